"""The built-in operations. Importing this package registers them."""

from engine.operations import files, general, http, scripting, templates  # noqa: F401
