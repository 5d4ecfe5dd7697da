"""`manage.py worker`: one worker process of `manage.py serve`, which starts it with the socket
it listens on (OTTERWEB_WORKER_FD). Not for use by hand: see otterweb.executions.workers."""

from __future__ import annotations

import os
from multiprocessing.connection import Connection

from django.core.management.base import BaseCommand, CommandError

from otterweb.executions import workers


class Command(BaseCommand):
    help = "A worker process of `manage.py serve` (started by it, not by hand)."

    def handle(self, *args, **options) -> None:
        descriptor = os.environ.pop("OTTERWEB_WORKER_FD", "")
        if not descriptor.isdigit():
            raise CommandError("manage.py serve starts its worker processes itself")
        workers.work(Connection(int(descriptor)))
