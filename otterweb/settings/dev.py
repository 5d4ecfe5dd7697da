"""For developers, by name only (DJANGO_SETTINGS_MODULE=otterweb.settings.dev): the default
settings with DEBUG on, so error pages show tracebacks and static files are served from the
source folders without collecting them."""

from otterweb.settings.prod import *  # noqa: F403

DEBUG = True
