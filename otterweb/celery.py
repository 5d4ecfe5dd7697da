"""The Celery application of the distributed mode: `celery -A otterweb worker` on any number of
machines, each with OTTERWEB_DATABASE_URL and OTTERWEB_REDIS_URL set like the web servers'."""

from __future__ import annotations

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

from otterweb.settings import use_default_settings

use_default_settings()

app = Celery("otterweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
def _run_executions(**_) -> None:
    """A worker also keeps house (see dispatch.Housekeeper), so no execution stays "executing"
    as long as one worker is alive."""
    from otterweb import metrics
    from otterweb.executions import dispatch  # it imports the models: once the apps are loaded

    dispatch.current().start()
    metrics.WORKERS.inc()


@worker_ready.connect
def _serve_metrics(**_):
    """The machine's metrics at OTTERWEB_WORKER_METRICS_ADDRESS, when it is set (the server, for
    whoever stops it)."""
    from django.conf import settings

    from otterweb import metrics

    if not settings.OTTERWEB_WORKER_METRICS_ADDRESS:
        return None
    return metrics.serve_machine_metrics(settings.OTTERWEB_WORKER_METRICS_ADDRESS)


@worker_shutdown.connect
def _stop(**_) -> None:
    from otterweb import metrics
    from otterweb.executions import dispatch

    dispatch.current().stop()
    metrics.process_ends()
