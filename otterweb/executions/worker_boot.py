"""Imported once by the fork server that the embedded mode's worker processes are forked from
(otterweb.executions.workers): Django set up, and what every run needs (the parser's tables, the
registry's operations) loaded, so that each worker starts in milliseconds, ready to run. The
serving process starts the fork server, which inherits its DJANGO_SETTINGS_MODULE (manage.py
sets it)."""

import django

django.setup()

from engine import check, parse  # noqa: E402 - only once Django is set up
from otterweb.executions import workers  # noqa: E402, F401 - what a worker runs

check(parse("Log-Information ready;"))
