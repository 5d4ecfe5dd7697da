"""pytest: an in-memory database and fast password hashing."""

from otterweb.settings.base import *  # noqa: F403

DEBUG = False
SECRET_KEY = "otterweb-test-key"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGGING = {"version": 1, "disable_existing_loggers": False}

ENCRYPTION_KEY = "dGVzdC1rZXktZm9yLW90dGVyd2ViLXRlc3RzLTMyYnk="

# Tests run executions themselves (run_execution), so nothing is queued behind their back.
OTTERWEB_DISPATCH = "none"
