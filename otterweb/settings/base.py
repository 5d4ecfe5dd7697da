"""Settings shared by every environment. Values that differ per deployment come from the
environment (OTTERWEB_*), never from this file."""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured
from servestatic.compress import Compressor

from otterweb.accounts import directory_settings

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(os.environ.get("OTTERWEB_DATA_DIR", BASE_DIR / "var"))

# Set by each settings module: prod (the default) reads them from the environment or the data
# folder, test has its own.
SECRET_KEY = ""
ENCRYPTION_KEY = ""
DEBUG = False
# Whether people reach OtterWeb over HTTPS (prod reads OTTERWEB_HTTPS).
HTTPS = False
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
    "otterweb.apps.StaticFilesConfig",
    "channels",
    "rest_framework",
    "knox",
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "auditlog",
    "otterweb",
    "otterweb.accounts",
    "otterweb.inventory",
    "otterweb.rafts",
    "otterweb.execution_logs",
    "otterweb.executions",
    "otterweb.configuration",
    "otterweb.schedules",
    "otterweb.audit",
    "otterweb.privileges",
    "otterweb.retention",
]

MIDDLEWARE = [
    # /healthz, /readyz, /metrics: before the host is checked or HTTP redirected (otterweb.health)
    "otterweb.health.Health",
    "django.middleware.security.SecurityMiddleware",
    "otterweb.middleware.RefuseNulCharacters",
    "otterweb.middleware.StaticFiles",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # who and from where, for the audit trail's entries (otterweb.audit.context)
    "otterweb.audit.context.audit_context",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # last, as django-axes asks: turns a locked-out login into the lockout answer
    "axes.middleware.AxesMiddleware",
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
                "otterweb.navigation.navigation",
            ],
        },
    },
]

DATABASES: dict[str, dict[str, Any]] = {
    "default": {
        "ENGINE": "otterweb.sqlite3",  # Django's, with writers waiting in line: see there
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


def database_from_url(url: str) -> dict[str, Any]:
    """Django's database settings from `postgres://user:password@host:port/name`."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ImproperlyConfigured(
            f"OTTERWEB_DATABASE_URL must be a postgres:// URL, not {parts.scheme}://"
        )
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        # Workers hold a connection for the whole run; web requests reuse theirs for a minute.
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


# The distributed mode: PostgreSQL shared by every web server and worker ...
DATABASE_URL = os.environ.get("OTTERWEB_DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Keys that encrypted secrets before the current one (comma-separated Fernet keys): secrets are
# still read with them until `manage.py reencrypt_secrets` has moved them to the current key.
PREVIOUS_ENCRYPTION_KEYS = [
    key for key in os.environ.get("OTTERWEB_PREVIOUS_ENCRYPTION_KEYS", "").split(",") if key
]

# Logins: django-axes first, so a locked-out login is refused before the password is checked
# (it keeps no users: ModelBackend finds them and their permissions).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's ModelBackend, but service accounts never sign in with a password
    "otterweb.accounts.backends.ModelBackend",
    # roles granted on scopes (otterweb.privileges.checks): django-rules answers has_perm
    "rules.permissions.ObjectPermissionBackend",
]
# After this many wrong passwords for one username from one address, that username is locked out
# from that address (the login pages, the admin's, /api/auth/token/) for this long; 0 minutes:
# until an administrator unlocks it (`manage.py axes_reset_username USERNAME`).
OTTERWEB_LOGIN_FAILURE_LIMIT = int(os.environ.get("OTTERWEB_LOGIN_FAILURE_LIMIT", "5"))
OTTERWEB_LOGIN_LOCKOUT_MINUTES = float(os.environ.get("OTTERWEB_LOGIN_LOCKOUT_MINUTES", "15"))
# Behind the TLS proxy, a login's address is the one the proxy adds to X-Forwarded-For.
OTTERWEB_BEHIND_PROXY = os.environ.get("OTTERWEB_BEHIND_PROXY", "0") == "1"
AXES_FAILURE_LIMIT = OTTERWEB_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = (
    timedelta(minutes=OTTERWEB_LOGIN_LOCKOUT_MINUTES) if OTTERWEB_LOGIN_LOCKOUT_MINUTES else None
)
# username and address together: a stranger cannot lock a user out from everywhere
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "otterweb.accounts.lockout.client_ip"
AXES_LOCKOUT_CALLABLE = "otterweb.accounts.lockout.response"

# Directory logins (docs/logins.md): LDAP / Active Directory (OTTERWEB_LDAP_*) and OpenID Connect
# single sign-on (OTTERWEB_OIDC_*), each off unless OTTERWEB_LDAP_URI or OTTERWEB_OIDC_ISSUER is
# set. Their backends come after Django's own: a local account's password is checked first.
OTTERWEB_LDAP_GROUPS: dict = {}
OTTERWEB_OIDC_ISSUER = ""
_directory = {
    **directory_settings.ldap_settings(os.environ),
    **directory_settings.oidc_settings(os.environ),
}
globals().update(_directory)
AUTHENTICATION_BACKENDS += directory_settings.backends(_directory)

# API tokens (django-rest-knox): stored as SHA-512 digests, shown once, valid for this many days
# unless made with another lifetime (0: until revoked). The prefix lets secret scanners spot one.
OTTERWEB_TOKEN_TTL_DAYS = float(os.environ.get("OTTERWEB_TOKEN_TTL_DAYS", "90"))
# knox's token model is swappable: named, so otterweb.accounts.ApiKey can point at it
KNOX_TOKEN_MODEL = "knox.AuthToken"
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=OTTERWEB_TOKEN_TTL_DAYS) if OTTERWEB_TOKEN_TTL_DAYS else None,
    "TOKEN_PREFIX": "otterweb_",
    "AUTH_HEADER_PREFIX": "Token",
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Static files (the pages', the admin's, the API docs') are collected at setup (`make setup`
# runs collectstatic) and served by ServeStatic from the ASGI application itself, compressed
# (gzip and brotli) and with far-future cache headers on their hashed names. They are build
# output, not data: one folder serves every data folder.
STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("OTTERWEB_STATIC_ROOT", BASE_DIR / "var" / "static"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "otterweb.static_storage.StaticFilesStorage"},
}
# Source maps are fetched by a browser's developer tools alone: served as they are, not
# compressed (brotli at its best takes 1.5 s a megabyte, and they are half of what is left).
SERVESTATIC_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]

# Workers beat every few seconds; an execution whose heartbeat is older than this is lost.
# Prometheus' /metrics (otterweb.health, docs/deploy.md): answered only to a scraper that sends
# this token ("Authorization: Bearer ..."), or to anyone with OTTERWEB_METRICS_PUBLIC=1; else 404.
# Each process writes its values to files in OTTERWEB_METRICS_DIR (one folder per machine).
OTTERWEB_METRICS_TOKEN = os.environ.get("OTTERWEB_METRICS_TOKEN", "")
OTTERWEB_METRICS_PUBLIC = os.environ.get("OTTERWEB_METRICS_PUBLIC", "") == "1"
OTTERWEB_METRICS_DIR = Path(os.environ.get("OTTERWEB_METRICS_DIR", DATA_DIR / "metrics"))
# A Celery worker serves its machine's metrics at this "host:port" too (empty: it does not), for a
# worker on a machine of its own, which no web server's /metrics sees.
OTTERWEB_WORKER_METRICS_ADDRESS = os.environ.get("OTTERWEB_WORKER_METRICS_ADDRESS", "")
OTTERWEB_HEARTBEAT_SECONDS = float(os.environ.get("OTTERWEB_HEARTBEAT_SECONDS", "5"))
OTTERWEB_LOST_AFTER_SECONDS = float(os.environ.get("OTTERWEB_LOST_AFTER_SECONDS", "30"))
OTTERWEB_HOUSEKEEPING_SECONDS = float(os.environ.get("OTTERWEB_HOUSEKEEPING_SECONDS", "10"))
OTTERWEB_WORKERS = int(os.environ.get("OTTERWEB_WORKERS", "4"))
# The largest script, draft or raft item text the editor's endpoints take (bytes of UTF-8); an
# API request's JSON may be four times this (otterweb.api.bodies).
OTTERWEB_MAX_SCRIPT_BYTES = int(os.environ.get("OTTERWEB_MAX_SCRIPT_BYTES", str(1024 * 1024)))
# Requests to the script endpoints (check, format, blocks, unblocks) one user may send, as DRF
# writes rates ("120/minute", "10/second"); empty: no limit.
OTTERWEB_SCRIPTS_THROTTLE_RATE = os.environ.get("OTTERWEB_SCRIPTS_THROTTLE_RATE", "120/minute")
# An execution's log: a longer line is cut (with a marker); past this many megabytes (each line
# counts its text and 64 bytes), one warning says so, later lines are dropped (errors excepted),
# and the run goes on to end with at least a warning. 0: no limit.
OTTERWEB_MAX_LOG_LINE_CHARS = int(os.environ.get("OTTERWEB_MAX_LOG_LINE_CHARS", "8192"))
OTTERWEB_MAX_LOG_MB = float(os.environ.get("OTTERWEB_MAX_LOG_MB", "64"))
# A run still going after this long is stopped (its processes killed), whichever worker has it;
# 0: no limit. A day by default: a run that long is almost always stuck.
OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS = float(
    os.environ.get("OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS", "86400")
)

# Local runs (servers whose agent is local: this machine) run as this OS user; unset: otterweb-run
# when OtterWeb runs as root (made by `make setup`), else OtterWeb's own user; empty: always
# OtterWeb's own user. Each execution works in a folder of its own under OTTERWEB_WORK_DIR.
OTTERWEB_RUN_AS_USER = os.environ.get("OTTERWEB_RUN_AS_USER")
OTTERWEB_WORK_DIR = Path(
    os.environ.get("OTTERWEB_WORK_DIR", Path(tempfile.gettempdir()) / "otterweb")
)

# Servers over SSH (docs/ssh.md): whether a server with no trusted host key is trusted on first
# contact (off: its key waits for an admin), how many servers one execution connects to at once,
# and how often every server is checked (minutes; 0: never, except "Check now").
OTTERWEB_SSH_TRUST_ON_FIRST_USE = os.environ.get("OTTERWEB_SSH_TRUST_ON_FIRST_USE", "0") == "1"
OTTERWEB_SSH_MAX_CONNECTING = int(os.environ.get("OTTERWEB_SSH_MAX_CONNECTING", "100"))
OTTERWEB_SSH_CONNECT_TIMEOUT_SECONDS = float(
    os.environ.get("OTTERWEB_SSH_CONNECT_TIMEOUT_SECONDS", "10")
)
OTTERWEB_SERVER_CHECK_MINUTES = float(os.environ.get("OTTERWEB_SERVER_CHECK_MINUTES", "5"))

# E-mail that scripts send (Send-Email, docs/deploy.md): the site's SMTP server (none when the
# host is empty), how to secure the connection (starttls, tls or none), the sender's address,
# the stored credential (a user name and password) that logs in, and a CA file to trust besides
# the system's authorities.
OTTERWEB_SMTP_HOST = os.environ.get("OTTERWEB_SMTP_HOST", "")
OTTERWEB_SMTP_PORT = int(os.environ.get("OTTERWEB_SMTP_PORT", "587"))
OTTERWEB_SMTP_SECURITY = os.environ.get("OTTERWEB_SMTP_SECURITY", "starttls")
OTTERWEB_SMTP_FROM = os.environ.get("OTTERWEB_SMTP_FROM", "")
OTTERWEB_SMTP_CREDENTIAL = os.environ.get("OTTERWEB_SMTP_CREDENTIAL", "")
OTTERWEB_SMTP_CA_FILE = os.environ.get("OTTERWEB_SMTP_CA_FILE", "")

# Configuration management (docs/configuration.md): remediating more servers than this at once
# needs their number typed to confirm (the blast-radius guard).
OTTERWEB_REMEDIATION_CONFIRM_OVER = int(os.environ.get("OTTERWEB_REMEDIATION_CONFIRM_OVER", "10"))

# Schedules and triggers (docs/schedules.md): how often each process's housekeeper fires the
# schedules that are due (seconds; 0: this process fires none), and the calls a trigger takes.
OTTERWEB_SCHEDULER_SECONDS = float(os.environ.get("OTTERWEB_SCHEDULER_SECONDS", "15"))
OTTERWEB_TRIGGER_THROTTLE_RATE = os.environ.get("OTTERWEB_TRIGGER_THROTTLE_RATE", "30/minute")

# The audit trail (docs/audit.md): django-auditlog writes its entries into otterweb.audit's model
# (its own, swapped out, gets no table); entries older than this many days are deleted by the
# housekeeper (0: kept for ever).
AUDITLOG_LOGENTRY_MODEL = "audit.Entry"
MIGRATION_MODULES = {"auditlog": None}
OTTERWEB_AUDIT_RETENTION_DAYS = float(os.environ.get("OTTERWEB_AUDIT_RETENTION_DAYS", "365"))
# Retention of executions and their logs (otterweb.retention; docs/deploy.md "Retention"): kept
# while they ended less than these days ago (0: kept for ever), or while among the last N runs
# of their job template; purged every OTTERWEB_PURGE_SECONDS, a little at a time.
OTTERWEB_KEEP_EXECUTIONS_DAYS = float(os.environ.get("OTTERWEB_KEEP_EXECUTIONS_DAYS", "90"))
OTTERWEB_KEEP_FAILED_DAYS = float(os.environ.get("OTTERWEB_KEEP_FAILED_DAYS", "365"))
OTTERWEB_KEEP_CHECKS_DAYS = float(os.environ.get("OTTERWEB_KEEP_CHECKS_DAYS", "30"))
OTTERWEB_KEEP_LAST_PER_TEMPLATE = int(os.environ.get("OTTERWEB_KEEP_LAST_PER_TEMPLATE", "10"))
OTTERWEB_PURGE_SECONDS = float(os.environ.get("OTTERWEB_PURGE_SECONDS", "600"))

# ... and Redis, for the channel layer, Celery's broker and global locks (`lock=!token`).
REDIS_URL = os.environ.get("OTTERWEB_REDIS_URL", "")
# Names in Redis (channel groups, the task queue, locks) start with this, so installations can
# share one Redis server.
REDIS_PREFIX = os.environ.get("OTTERWEB_REDIS_PREFIX", "otterweb")

# Where executions run: "embedded" (worker threads in `manage.py serve`), "celery" (workers started
# with `celery -A otterweb worker`), or "none" (left pending; tests run them themselves).
OTTERWEB_DISPATCH = "celery" if REDIS_URL else "embedded"

if REDIS_URL:
    # Of the Redis layers, only the pub/sub one lost no message under load, and it does not
    # expire them. Log batches are one message each; a lost one is refilled from the database.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": REDIS_PREFIX},
        }
    }
else:
    # The embedded default: an in-memory channel layer. The capacity counts batches, not lines.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": 1000},
        }
    }

if REDIS_URL:
    # The cache the API's throttles count in: shared by every web server of the installation,
    # so a limit (a trigger's calls a minute) holds across them. Embedded: each process's memory.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }

# Celery (distributed mode only). An execution's task is acknowledged when it ends, so a task
# whose worker died is delivered again; run_execution claims an execution once, so it never runs
# twice. Worker threads, not processes: a killed worker takes its executions with it (the reaper
# closes them), and the engine spends its time waiting on processes and servers.
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = f"{REDIS_PREFIX}-executions"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_POOL = "threads"
CELERY_WORKER_CONCURRENCY = OTTERWEB_WORKERS
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Redis hands an unacknowledged task to another worker after this long. A run may last up to its
# time limit; a copy delivered while it runs would only find it claimed, but is not sent at all.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(OTTERWEB_EXECUTION_TIME_LIMIT_SECONDS, 3600) + 600
}

# Requests to /api/ one signed-in user, and one address without a login, may send (DRF rates:
# "1200/minute"; empty: no limit), counted in the cache (each process's memory in the embedded
# mode, Redis in the distributed one); past it, 429 with Retry-After.
OTTERWEB_API_THROTTLE_USER_RATE = os.environ.get("OTTERWEB_API_THROTTLE_USER_RATE", "1200/minute")
OTTERWEB_API_THROTTLE_ANON_RATE = os.environ.get("OTTERWEB_API_THROTTLE_ANON_RATE", "300/minute")
REST_FRAMEWORK = {
    "DEFAULT_THROTTLE_CLASSES": [
        "otterweb.api.throttles.ApiUserThrottle",
        "otterweb.api.throttles.ApiAddressThrottle",
    ],
    # the classes read the OTTERWEB_API_THROTTLE_* settings as they are (these are DRF's record)
    "DEFAULT_THROTTLE_RATES": {
        "api_user": OTTERWEB_API_THROTTLE_USER_RATE or None,
        "api_anon": OTTERWEB_API_THROTTLE_ANON_RATE or None,
    },
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # knox's tokens as named API keys: last use recorded, a narrower key's limit attached
        "otterweb.accounts.authentication.KeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["otterweb.api.permissions.ModelPermissions"],
    "DEFAULT_FILTER_BACKENDS": ["otterweb.api.permissions.VisibleOnly"],
    # drf-spectacular's, with each operation's refusals in the one error body
    "DEFAULT_SCHEMA_CLASS": "otterweb.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "otterweb.api.errors.handle",
    # JSON with limits: size, depth, real text, numbers in range (otterweb.api.bodies)
    "DEFAULT_PARSER_CLASSES": [
        "otterweb.api.bodies.JSONParser",
        "otterweb.api.bodies.FormParser",
        "otterweb.api.bodies.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "otterweb.api.queries.Pagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "OtterWeb API",
    "DESCRIPTION": "Rafts, inventory, jobs and executions. Authenticate with `Authorization: Token <token>`; make a token with `POST /api/auth/token/` or `manage.py create_token`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # several models have a "kind": each enum is named after its model
    "ENUM_NAME_OVERRIDES": {
        "CredentialKindEnum": "otterweb.inventory.models.Credential.Kind",
        "RaftItemKindEnum": "otterweb.rafts.models.RaftItem.Kind",
        "ScheduleKindEnum": "otterweb.schedules.models.Schedule.Kind",
        "TriggerKindEnum": "otterweb.schedules.models.Trigger.Kind",
    },
}

# Machine-parseable logs: one key=value record per line, with the logger and level.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"keyvalue": {"()": "otterweb.logs.KeyValueFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "keyvalue"}},
    "root": {"handlers": ["console"], "level": os.environ.get("OTTERWEB_LOG_LEVEL", "INFO")},
}
