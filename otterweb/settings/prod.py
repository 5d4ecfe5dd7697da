"""The default settings of every entry point (see otterweb.settings.DEFAULT_SETTINGS): `make run`,
daphne, Celery workers. DEBUG is off; the keys come from the environment, or are generated into
the data folder on the first start. Everything else that differs per installation comes from
OTTERWEB_* variables (docs/deploy.md)."""

import os

from otterweb.settings.base import *  # noqa: F403
from otterweb.settings.base import DATA_DIR
from otterweb.settings.keys import data_folder, encryption_key, secret_key

data_folder(DATA_DIR)
SECRET_KEY = secret_key(DATA_DIR)
ENCRYPTION_KEY = encryption_key(DATA_DIR)

DEBUG = False
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_TRUSTED_ORIGINS = [
    origin for origin in os.environ.get("OTTERWEB_CSRF_TRUSTED_ORIGINS", "").split(",") if origin
]

# OTTERWEB_HTTPS=1: people reach OtterWeb over HTTPS (a TLS proxy in front of it, as
# docs/deploy.md recommends): cookies only over HTTPS, HSTS, and plain HTTP redirected.
# OTTERWEB_BEHIND_PROXY=1 trusts the proxy's X-Forwarded-Proto header for which scheme was used.
HTTPS = os.environ.get("OTTERWEB_HTTPS", "0") == "1"
if os.environ.get("OTTERWEB_BEHIND_PROXY", "0") == "1":
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if HTTPS:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = int(os.environ.get("OTTERWEB_HSTS_SECONDS", str(365 * 24 * 3600)))
    # HSTS for every subdomain, and the browsers' preload list, bind the whole domain, not
    # only OtterWeb: each is the domain owner's choice, off unless asked for.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = os.environ.get("OTTERWEB_HSTS_SUBDOMAINS", "0") == "1"
    SECURE_HSTS_PRELOAD = os.environ.get("OTTERWEB_HSTS_PRELOAD", "0") == "1"
    SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021"]
else:
    # The embedded default serves plain HTTP on 127.0.0.1: cookies marked secure would never be
    # sent back, a redirect to HTTPS would reach nothing, and HSTS is ignored without TLS. These
    # are the checks of `check --deploy` that only apply to a site reached over HTTPS.
    SILENCED_SYSTEM_CHECKS = ["security.W004", "security.W008", "security.W012", "security.W016"]
