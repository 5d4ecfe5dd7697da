"""OtterWeb: the Django project around the OtterScript engine."""

# The Celery app is made whenever Django starts, so that shared tasks use it.
from otterweb.celery import app as celery_app

__all__ = ("celery_app",)
