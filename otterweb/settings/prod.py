"""Deployments: every secret and address comes from the environment."""

import os

from django.core.exceptions import ImproperlyConfigured

from otterweb.settings.base import *  # noqa: F403
from otterweb.settings.base import ENCRYPTION_KEY, SECRET_KEY

if not SECRET_KEY:
    raise ImproperlyConfigured("Set OTTERWEB_SECRET_KEY to a long random value.")
if not ENCRYPTION_KEY:
    raise ImproperlyConfigured(
        "Set OTTERWEB_ENCRYPTION_KEY to a Fernet key (it encrypts credential secrets)."
    )

DEBUG = False
SESSION_COOKIE_SECURE = os.environ.get("OTTERWEB_SECURE_COOKIES", "1") == "1"
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
