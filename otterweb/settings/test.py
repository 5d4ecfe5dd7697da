"""pytest: a file database in WAL mode (as the embedded default) and fast password hashing."""

import os

from otterweb.settings.base import *  # noqa: F403
from otterweb.settings.keys import data_folder

DEBUG = False
SECRET_KEY = "otterweb-test-key"
# A file, not memory: executions run their database work on other threads, and an in-memory
# database shared between threads fails at once on a lock instead of waiting.
# With OTTERWEB_DATABASE_URL (`make test` sets it for a second run of tests/web), PostgreSQL: Django
# makes a test database beside the named one.
if DATABASE_URL:  # noqa: F405
    # threads of the tests end with the test: their connections must not outlive it
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
    # Django's, but a transactional test empties the tables by DELETE (see there)
    DATABASES["default"]["ENGINE"] = "tests.postgresql"  # noqa: F405
else:
    # one per test run, so runs side by side in one checkout don't share a file
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / f"test-{os.getpid()}.sqlite3")}  # noqa: F405
    # the product's, but a transactional test keeps the content types and permissions (see there)
    DATABASES["default"]["ENGINE"] = "tests.sqlite3"  # noqa: F405
data_folder(DATA_DIR)  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests log in a lot, and client.login() passes no request, which django-axes needs: it is off,
# and the lockout tests turn it on (tests/web/accounts/test_accounts.py).
AXES_ENABLED = False
LOGGING = {"version": 1, "disable_existing_loggers": False}

ENCRYPTION_KEY = "dGVzdC1rZXktZm9yLW90dGVyd2ViLXRlc3RzLTMyYnk="
# Pages render without collected static files; ServeStatic serves them from the source folders.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Tests send the script endpoints more than a person does; the throttle's tests turn it on.
OTTERWEB_SCRIPTS_THROTTLE_RATE = ""
# The API's own throttle stays on, far above what a test sends (its test lowers it).
OTTERWEB_API_THROTTLE_USER_RATE = "100000/minute"
OTTERWEB_API_THROTTLE_ANON_RATE = "100000/minute"

# Tests run executions themselves (run_execution), so nothing is queued behind their back.
OTTERWEB_DISPATCH = "none"
# Local runs as the test runner's own user, in a work folder of the test run: tests write to
# their own temporary folders (tests/web/executions/test_local_runs.py runs as another user on
# purpose).
OTTERWEB_RUN_AS_USER = ""
