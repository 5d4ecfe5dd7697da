"""What OtterWeb counts for Prometheus: the metrics every process adds to (otterweb.health
serves them).

Every process of a site on one machine adds to the same metrics through prometheus_client's
multiprocess mode: the serving process, the embedded mode's worker processes, daphne and each
Celery worker write their values to files in OTTERWEB_METRICS_DIR (the data folder's
``metrics/`` unless set), and whichever process answers ``/metrics`` sums them
(otterweb.health). The library takes the folder from its environment variable
PROMETHEUS_MULTIPROC_DIR, read as it is first imported (here) and as each process writes: it is
set here from the site's setting, never taken from a parent process's environment. Gauges of
processes that are gone are dropped when read.

What the database knows (executions by state, servers by reachability, drift) is read from it
when scraped, by the collector that otterweb.health adds; what only a process sees as it
happens (runs ending, how long they took and waited, log lines stored, websocket viewers,
workers) is counted here. Metric names follow Prometheus' conventions: ``otterweb_`` first, the
unit last, ``_total`` on counters."""

from __future__ import annotations

import hmac
import logging
import os
import threading
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings

logger = logging.getLogger(__name__)

METRICS_DIR = Path(settings.OTTERWEB_METRICS_DIR)
METRICS_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(METRICS_DIR)

# after the folder is set
from prometheus_client import (  # noqa: E402
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

# runs from a second to hours; waits from milliseconds (a free worker) to hours (a full queue)
DURATION_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600)
WAIT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 300, 900, 3600)

EXECUTIONS_ENDED = Counter(
    "otterweb_executions_ended_total",
    "Executions that ended, by mode (execute, collect, collect-execute) and status (normal, "
    "warning, error, cancelled).",
    ["mode", "status"],
)
EXECUTION_DURATION = Histogram(
    "otterweb_execution_duration_seconds",
    "How long executions ran, from their start to their end.",
    ["mode"],
    buckets=DURATION_BUCKETS,
)
QUEUE_WAIT = Histogram(
    "otterweb_execution_queue_wait_seconds",
    "How long executions waited for a worker, from their creation to their start.",
    buckets=WAIT_BUCKETS,
)
LOG_LINES = Counter("otterweb_log_lines_written_total", "Log lines stored, of every execution.")
WEBSOCKET_CLIENTS = Gauge(
    "otterweb_websocket_clients",
    "Browsers watching an execution's log live.",
    multiprocess_mode="livesum",
)
WORKERS = Gauge(
    "otterweb_workers_alive",
    "Processes that run executions and are alive (the embedded mode's worker processes, "
    "Celery workers).",
    multiprocess_mode="livesum",
)


def start_afresh() -> None:
    """Remove the files of processes that are gone: what an earlier start of the site left (the
    serving process calls it as it starts, and may have counted already)."""
    for path in METRICS_DIR.glob("*.db"):
        if not process_alive(pid_of(path)):
            path.unlink(missing_ok=True)


def process_ends() -> None:
    """This process's live gauges no longer count (its counters and histograms still do)."""
    multiprocess.mark_process_dead(os.getpid(), str(METRICS_DIR))


def forget_dead_processes() -> None:
    """Drop the live gauges of processes that are gone (killed, or ended without saying so):
    their files would count them still. Counters and histograms of a process that ended keep
    counting, as they should."""
    for path in METRICS_DIR.glob("gauge_live*.db"):
        pid = pid_of(path)
        if not process_alive(pid):
            multiprocess.mark_process_dead(pid, str(METRICS_DIR))


def pid_of(path: Path) -> int:
    """The process that writes a file of the folder (``counter_1234.db``)."""
    return int(path.stem.rsplit("_", 1)[1])


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


# ---- reading them


def machine_registry() -> CollectorRegistry:
    """Every process of this machine summed (what the database holds is otterweb.health's)."""
    forget_dead_processes()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(METRICS_DIR))
    return registry


def may_scrape(authorization: str) -> bool:
    """Whether a scrape with this Authorization header may read the metrics: with the token
    OTTERWEB_METRICS_TOKEN ("Bearer ..."), or by anyone with OTTERWEB_METRICS_PUBLIC."""
    if settings.OTTERWEB_METRICS_PUBLIC:
        return True
    token = settings.OTTERWEB_METRICS_TOKEN
    if not token:
        return False
    scheme, _, sent = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent.strip(), token)


def serve_machine_metrics(address: str) -> WSGIServer:
    """``GET /metrics`` of this machine's processes at ``address`` ("host:port"; port 0: any
    free one), on a thread of its own, under the same token or setting as the site's: for a
    Celery worker on a machine of its own, which no web server's /metrics sees. Not what the
    database holds: the web servers say that, and a sum of every target counts it once."""
    host, _, port = address.rpartition(":")

    def answer(environ, start_response):
        if environ.get("PATH_INFO") != "/metrics" or not may_scrape(
            environ.get("HTTP_AUTHORIZATION", "")
        ):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"Not found.\n"]
        body = generate_latest(machine_registry())
        start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
        return [body]

    server = make_server(host or "0.0.0.0", int(port), answer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="otterweb-metrics", daemon=True).start()
    logger.info(
        "address=%s:%s message='serving this machine's metrics at /metrics'",
        *server.server_address[:2],
    )
    return server


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args) -> None:
        pass  # a scrape every few seconds is no news for the log
