#!/usr/bin/env python
"""Django's command-line utility for OtterWeb."""

import sys


def main() -> None:
    from otterweb.settings import use_default_settings

    use_default_settings()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
