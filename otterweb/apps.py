import sys

from django.apps import AppConfig
from django.contrib.staticfiles import apps as staticfiles

# Python's JSON reader and writer recurse once per level of nesting and stop at the recursion
# limit (1,000 by default). A Blockly workspace nests two levels for each statement in a row,
# so a script of a few hundred statements could not be sent as blocks. Ten thousand levels of
# the JSON encoder's C recursion fit well inside a thread's 8 MiB stack; the blocks endpoints
# bound what they read and write below it (otterweb.editor.api.MAX_JSON_DEPTH).
RECURSION_LIMIT = 10_000


class OtterWebConfig(AppConfig):
    name = "otterweb"

    def ready(self) -> None:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
        # the database's files are OtterWeb's user's alone, from the moment SQLite makes them
        from django.db.backends.signals import connection_created

        from otterweb import datafolder

        datafolder.secure_all()
        connection_created.connect(datafolder.secure_on_connect, dispatch_uid="otterweb.data")


class StaticFilesConfig(staticfiles.StaticFilesConfig):
    """collectstatic leaves out ReDoc (drf-spectacular-sidecar ships it beside Swagger UI, and
    the API docs are Swagger UI): 10 MB, a third of the static files, that setup would copy and
    compress for a page nobody can open. Named in INSTALLED_APPS; ``default = False`` keeps
    OtterWebConfig the configuration of the "otterweb" entry."""

    default = False
    ignore_patterns = [*staticfiles.StaticFilesConfig.ignore_patterns, "redoc"]
