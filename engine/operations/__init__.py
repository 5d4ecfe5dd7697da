"""The built-in operations. Importing this package registers them."""

from engine.operations import (  # noqa: F401
    accounts,
    files,
    general,
    git,
    http,
    lines,
    mail,
    otter,
    packages,
    scripting,
    services,
    templates,
    transfer,
)
