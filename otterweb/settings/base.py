"""Settings shared by every environment. Values that differ per deployment come from the
environment (OTTERWEB_*), never from this file."""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(os.environ.get("OTTERWEB_DATA_DIR", BASE_DIR / "var"))

SECRET_KEY = os.environ.get("OTTERWEB_SECRET_KEY", "")
DEBUG = False
ALLOWED_HOSTS = [
    host
    for host in os.environ.get("OTTERWEB_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
    if host
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "otterweb",
    "otterweb.inventory",
    "otterweb.rafts",
    "otterweb.executions",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "otterweb.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "otterweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "otterweb.sqlite3",
        # WAL: readers never wait for the writer; IMMEDIATE: a writer takes the lock at once
        # and waits up to `timeout` seconds for another, instead of failing half-way.
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Credential secrets are encrypted with this key (Fernet: 32 url-safe base64 bytes). Set it in
# the environment; `python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`
ENCRYPTION_KEY = os.environ.get("OTTERWEB_ENCRYPTION_KEY", "")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"

# Workers beat every few seconds; an execution whose heartbeat is older than this is lost.
OTTERWEB_HEARTBEAT_SECONDS = float(os.environ.get("OTTERWEB_HEARTBEAT_SECONDS", "5"))
OTTERWEB_LOST_AFTER_SECONDS = float(os.environ.get("OTTERWEB_LOST_AFTER_SECONDS", "30"))
OTTERWEB_HOUSEKEEPING_SECONDS = float(os.environ.get("OTTERWEB_HOUSEKEEPING_SECONDS", "10"))
OTTERWEB_WORKERS = int(os.environ.get("OTTERWEB_WORKERS", "4"))

# The embedded default: an in-memory channel layer. Log batches are one message each, so the
# capacity counts batches, not lines; a dropped message is refilled from the database.
CHANNEL_LAYERS = {
    "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["otterweb.api.permissions.ModelPermissions"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "otterweb.api.errors.handle",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "OtterWeb API",
    "DESCRIPTION": "Rafts, inventory, jobs and executions. Authenticate with `Authorization: Token <key>`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# Machine-parseable logs: one key=value record per line, with the logger and level.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"keyvalue": {"()": "otterweb.logs.KeyValueFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "keyvalue"}},
    "root": {"handlers": ["console"], "level": os.environ.get("OTTERWEB_LOG_LEVEL", "INFO")},
}
