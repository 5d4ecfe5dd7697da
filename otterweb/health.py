"""Health and metrics, for load balancers, orchestrators and Prometheus (docs/deploy.md):

- ``/healthz``: the process answers (200), asking nothing else: a liveness probe.
- ``/readyz``: the database, the channel layer and, in the distributed mode, Celery's broker
  answer (200), or which of them does not (503): a readiness probe.
- ``/metrics``: Prometheus' text format, every process of the machine summed (otterweb.metrics)
  and what the database holds now; only with the scraper's token or when made public, else 404.

They are answered by the first middleware, before the host is checked against ALLOWED_HOSTS or
a request is redirected to HTTPS: probes and scrapers name the machine by its address, over
plain HTTP inside the network. No answer says more than which part failed: the reasons, which
may name a host, go to the log."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Iterator

import redis
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.db.models import Count, QuerySet, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from engine import RunState
from otterweb import metrics
from otterweb.api.error_body import error_response
from otterweb.configuration.models import ServerState, State
from otterweb.executions.models import Execution
from otterweb.inventory.models import Server
from otterweb.middleware import SyncAndAsync

logger = logging.getLogger(__name__)

# a part that takes longer than this to answer is not ready
READY_TIMEOUT_SECONDS = 3


def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> HttpResponse:
    failed = [name for name, check in parts().items() if not answers(name, check)]
    if failed:
        return JsonResponse({"status": "unavailable", "failed": failed}, status=503)
    return JsonResponse({"status": "ok"})


def parts() -> dict[str, Callable[[], None]]:
    """What must answer for this process to serve: each name and a call that raises if not."""
    checked = {"database": database_answers, "channel layer": channel_layer_answers}
    if settings.OTTERWEB_DISPATCH == "celery":
        checked["broker"] = broker_answers
    return checked


def answers(name: str, check: Callable[[], None]) -> bool:
    try:
        check()
    except Exception as error:  # whatever stops it, the part is not ready
        logger.warning(
            "readiness check failed: part=%r error=%r",
            name,
            f"{type(error).__name__}: {error}",
        )
        return False
    return True


def database_answers() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def channel_layer_answers() -> None:
    """Redis answers in the distributed mode (its channel layer is pub/sub: a message sent to
    nobody is dropped, not kept to be read back); the embedded mode's layer in memory gives back
    a message sent to a channel of this check's own."""
    if settings.REDIS_URL:
        timeout = READY_TIMEOUT_SECONDS
        with redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout
        ) as client:
            client.ping()
        return
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = f"readyz.{uuid.uuid4().hex}"
    message = {"type": "readyz.check"}

    async def round_trip() -> None:
        await layer.send(channel, message)
        received = await asyncio.wait_for(layer.receive(channel), READY_TIMEOUT_SECONDS)
        if received != message:
            raise RuntimeError("the channel layer gave back another message")

    async_to_sync(round_trip)()


def broker_answers() -> None:
    from otterweb.celery import app

    with app.connection_for_write() as broker:
        broker.ensure_connection(max_retries=1, timeout=READY_TIMEOUT_SECONDS)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not metrics.may_scrape(request.headers.get("Authorization", "")):
        # as if there were no such page: its existence is not advertised
        return error_response(404, "Not found.", "not_found")
    registry = metrics.machine_registry()
    registry.register(DatabaseCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


class DatabaseCollector(Collector):
    """What the database holds at the scrape, the same from whichever process answers:
    executions by run state (the pending ones are the queue), servers by what their last
    reachability check found, and by configuration state with the drift they hold."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield self.executions()
        yield self.servers()
        yield from self.configuration()

    def executions(self) -> GaugeMetricFamily:
        counts = counted_by(Execution.objects.exclude(run_state=RunState.COMPLETED), "run_state")
        family = GaugeMetricFamily(
            "otterweb_executions",
            "Executions not ended, by run state (pending: waiting for a worker).",
            labels=["run_state"],
        )
        for state in (RunState.PENDING, RunState.EXECUTING):
            family.add_metric([state.value], counts.get(state.value, 0))
        return family

    def servers(self) -> GaugeMetricFamily:
        counts = counted_by(Server.objects.filter(active=True), "reachable")
        family = GaugeMetricFamily(
            "otterweb_servers",
            "Active servers by what their last reachability check found (unchecked: none yet).",
            labels=["reachability"],
        )
        for label, reachable in (("reachable", True), ("unreachable", False), ("unchecked", None)):
            family.add_metric([label], counts.get(reachable, 0))
        return family

    def configuration(self) -> Iterator[GaugeMetricFamily]:
        counts = counted_by(ServerState.objects.all(), "state")
        family = GaugeMetricFamily(
            "otterweb_servers_configuration",
            "Servers by configuration state, from their last configuration check.",
            labels=["state"],
        )
        for state in State:
            family.add_metric([state.value], counts.get(state.value, 0))
        yield family
        drifted = ServerState.objects.filter(state=State.DRIFTED)
        yield GaugeMetricFamily(
            "otterweb_drift_items",
            "Drifted items on all servers, from their last configuration checks.",
            value=drifted.aggregate(items=Sum("drift_count"))["items"] or 0,
        )


def counted_by(rows: QuerySet, field: str) -> dict:
    """How many of ``rows`` hold each value of ``field``."""
    return dict(rows.values_list(field).annotate(count=Count("pk")).values_list(field, "count"))


ANSWERS: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz,
    "/readyz": readyz,
    "/metrics": metrics_view,
}


class Health(SyncAndAsync):
    """Answers the paths above, before any other middleware; passes every other request on."""

    def __call__(self, request: HttpRequest):
        answer = ANSWERS.get(request.path_info)
        if self.is_async:
            return self.__acall__(request, answer)
        if answer is None:
            return self.get_response(request)
        return answered(request, answer)

    async def __acall__(self, request: HttpRequest, answer) -> HttpResponse:
        if answer is None:
            return await self.get_response(request)
        return await sync_to_async(answered)(request, answer)


def answered(request: HttpRequest, answer: Callable[[HttpRequest], HttpResponse]) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        detail = f'Method "{request.method}" not allowed.'
        return error_response(405, detail, "method_not_allowed", headers={"Allow": "GET, HEAD"})
    response = answer(request)
    response["Cache-Control"] = "no-store"
    return response
