"""The built-in operations. Importing this package registers them."""

from engine.operations import files, general, http, lines, scripting, templates  # noqa: F401
