"""The Celery application of the distributed mode: `celery -A otterweb worker` on any number of
machines, each with OTTERWEB_DATABASE_URL and OTTERWEB_REDIS_URL set like the web servers'."""

from __future__ import annotations

from celery import Celery
from celery.signals import worker_ready, worker_shutdown
from django.apps import apps

from otterweb.executions.apps import ExecutionsConfig
from otterweb.settings import use_default_settings

use_default_settings()

app = Celery("otterweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _executions() -> ExecutionsConfig:
    config = apps.get_app_config("executions")
    assert isinstance(config, ExecutionsConfig)
    return config


@worker_ready.connect
def _run_executions(**_) -> None:
    """A worker also keeps house (see dispatch.Housekeeper), so no execution stays "executing"
    as long as one worker is alive."""
    _executions().dispatcher.start()


@worker_shutdown.connect
def _stop(**_) -> None:
    _executions().dispatcher.stop()
