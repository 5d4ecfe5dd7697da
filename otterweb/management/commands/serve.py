"""`python manage.py serve [ADDR:PORT]`: the whole product in one command. daphne serves HTTP and
websockets; a pool of worker processes it supervises runs executions (Celery workers do, in the
distributed mode), so no script runs in the process that serves pages; a housekeeper closes
executions whose worker was lost and picks up executions left pending (by another process, or
before a restart)."""

from __future__ import annotations

import asyncio
import ipaddress
import logging

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from otterweb import metrics
from otterweb.accounts import first_admin
from otterweb.execution_logs import publish
from otterweb.executions import dispatch

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

        _first_admin(self.stdout)
        if settings.OTTERWEB_DISPATCH == "embedded":  # this process and its workers: the only
            metrics.start_afresh()  # ones writing metrics for the data folder
        dispatcher = dispatch.current()
        dispatcher.start()
        self.stdout.write(f"OtterWeb on http://{host}:{port}/ with {dispatcher.workers}")
        if not _loopback(host) and not settings.HTTPS:
            logger.warning(
                "address=%s message='plain HTTP on an address other machines reach: put a TLS "
                "proxy in front, then set OTTERWEB_HTTPS=1 and OTTERWEB_ALLOWED_HOSTS "
                "(docs/deploy.md)'",
                host,
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
            dispatcher.stop()


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def _first_admin(out) -> None:
    """On a fresh install, make the user `admin`; its password goes to a file only this user can
    read, never to the console (which may well be a log)."""
    path = first_admin.create_if_none(data=settings.DATA_DIR)
    if path is not None:
        out.write(
            f"\nFirst start: the user '{first_admin.USERNAME}' was made. Its password is in\n\n"
            f"    {path}\n\n"
            "(readable by this OS user only). Log in, then change the password under your name\n"
            "(/accounts/password_change/): the file is removed when you do.\n\n"
        )


def _ready() -> None:
    publish.use_server_loop(asyncio.get_event_loop())
    logger.info("message='ready: websockets publish on the server loop'")
