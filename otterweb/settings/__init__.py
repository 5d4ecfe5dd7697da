"""Settings, split by purpose: base (shared), dev (make run), test (pytest), prod (deployments)."""

import os

# The one rule for every entry point (manage.py, otterweb.asgi, otterweb.celery): the settings
# named by DJANGO_SETTINGS_MODULE, and the production settings when it is not set. The
# development settings (DEBUG on) are used only when asked for by name.
DEFAULT_SETTINGS = "otterweb.settings.prod"


def use_default_settings() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", DEFAULT_SETTINGS)
