"""The Celery application of the distributed mode: `celery -A otterweb worker` on any number of
machines, each with OTTERWEB_DATABASE_URL and OTTERWEB_REDIS_URL set like the web servers'."""

from __future__ import annotations

import threading

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

from otterweb import use_default_settings

use_default_settings()

app = Celery("otterweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_stop_housekeeping = threading.Event()


@worker_ready.connect
def _start_housekeeping(**_) -> None:
    """Every worker also closes executions of workers that died, so no execution stays
    "executing" as long as one worker is alive."""
    from otterweb.executions.dispatch import start_housekeeper

    start_housekeeper(_stop_housekeeping)


@worker_shutdown.connect
def _stop(**_) -> None:
    _stop_housekeeping.set()
