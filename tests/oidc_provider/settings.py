"""The test OpenID Connect provider's settings. Everything it keeps is in OIDC_PROVIDER_DATA (its
database and the RSA key server.py generates); OIDC_PROVIDER_ISSUER is its issuer URL."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ["OIDC_PROVIDER_DATA"])

SECRET_KEY = "oidc-provider-test-key-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": DATA / "provider.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = True
LOGIN_URL = "/accounts/login/"
# OtterWeb is served on the same host (127.0.0.1), another port: browsers share cookies by host,
# so the provider's have names of their own
SESSION_COOKIE_NAME = "provider_sessionid"
CSRF_COOKIE_NAME = "provider_csrftoken"

_key = DATA / "oidc.key"
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _key.read_text() if _key.exists() else "",
    "OIDC_ISS_ENDPOINT": os.environ.get("OIDC_PROVIDER_ISSUER", ""),
    "PKCE_REQUIRED": True,
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validators.ClaimsValidator",
    "SCOPES": {
        "openid": "Sign you in",
        "profile": "Your name and username",
        "email": "Your e-mail address",
        "groups": "The groups you are in",
    },
}
LOGGING = {
    "version": 1,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
}
