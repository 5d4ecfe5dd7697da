"""The built-in variable functions (InedoCore's general-purpose set). Importing this package
registers them."""

from engine.functions import (  # noqa: F401
    dates,
    execution,
    files,
    inventory,
    json_functions,
    lists,
    maps,
    math,
    shell,
    strings,
)
