"""`python manage.py serve [ADDR:PORT]`: the whole product in one process. daphne serves HTTP and
websockets; a pool of worker threads runs executions; a housekeeper closes executions whose
worker was lost and picks up executions left pending (by another process, or before a restart)."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections

logger = logging.getLogger("otterweb.serve")


class Command(BaseCommand):
    help = "Serve OtterWeb (HTTP, websockets and workers) on 127.0.0.1:8000 or ADDR:PORT."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "address", nargs="?", default="127.0.0.1:8000", help="ADDR:PORT or PORT"
        )

    def handle(self, *args, address: str, **options) -> None:
        host, _, port = address.rpartition(":")
        host = host or "127.0.0.1"
        if not port.isdigit():
            raise CommandError(f"'{address}' is not ADDR:PORT")
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        from otterweb.asgi import application
        from otterweb.executions import dispatch

        dispatch.serving = True

        _first_admin(self.stdout)
        stop = threading.Event()
        housekeeper = threading.Thread(
            target=_housekeeping, args=(stop,), name="otterweb-housekeeper", daemon=True
        )
        housekeeper.start()
        self.stdout.write(
            f"OtterWeb on http://{host}:{port}/ with {getattr(settings, 'OTTERWEB_WORKERS', 4)} worker threads"
        )
        server = Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=int(port)),
            ready_callable=_ready,
            server_name="OtterWeb",
        )
        try:
            server.run()
        finally:
            stop.set()


def _first_admin(out) -> None:
    """On a fresh install, make the user `admin` and show its password, once, on the console
    (never in a log)."""
    import secrets

    from django.contrib.auth import get_user_model

    users = get_user_model()
    if users.objects.filter(is_superuser=True).exists():
        return
    password = secrets.token_urlsafe(12)
    users.objects.create_superuser("admin", password=password)
    out.write(
        "\nFirst start: log in as 'admin' with the password below. It is shown only this once;\n"
        f"change it at /admin/password_change/ after logging in.\n\n    {password}\n\n"
    )


def _ready() -> None:
    import asyncio

    from otterweb.executions import publish

    publish.use_server_loop(asyncio.get_event_loop())
    logger.info("message='ready: websockets publish on the server loop'")


def _housekeeping(stop: threading.Event) -> None:
    from otterweb.executions.dispatch import dispatch_pending
    from otterweb.executions.services import reap_lost_executions

    while not stop.wait(settings.OTTERWEB_HOUSEKEEPING_SECONDS):
        close_old_connections()
        try:
            reap_lost_executions()
            dispatch_pending()
        except Exception:
            logger.exception("message='housekeeping failed; trying again later'")
