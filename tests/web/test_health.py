"""/healthz, /readyz and /metrics (otterweb.health): answered to probes and scrapers whatever host
they name, /readyz names the part that does not answer and nothing more, /metrics only with its
token, in Prometheus' format as its own parser reads it, with values that change as runs end."""

from __future__ import annotations

import socket

import pytest
from django.test import Client

from otterweb.configuration.models import ServerState, State
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server
from tests.metrics import samples

TOKEN = "scrape-token-0123456789"
# a probe names the machine by its address, which ALLOWED_HOSTS does not hold
PROBE = {"HTTP_HOST": "10.11.12.13:8000"}


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scrape(**headers) -> dict[str, dict[tuple, float]]:
    """Each sample of /metrics: by name, its labels (sorted pairs) and value."""
    response = Client().get("/metrics", **PROBE, **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return samples(response.content.decode())


def test_healthz_answers_whatever_host_the_probe_names() -> None:
    response = Client().get("/healthz", **PROBE)
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


def test_healthz_refuses_other_methods_with_the_error_body() -> None:
    response = Client().post("/healthz", **PROBE)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.django_db
def test_readyz_answers_ok_when_the_database_and_channel_layer_answer() -> None:
    response = Client().get("/readyz", **PROBE)
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


@pytest.mark.django_db
def test_readyz_names_the_part_that_does_not_answer_and_logs_why(settings, caplog) -> None:
    address = f"redis://:hunter2@127.0.0.1:{dead_port()}/0"
    settings.REDIS_URL = address  # the distributed mode's channel layer, with nothing there
    response = Client().get("/readyz", **PROBE)
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "failed": ["channel layer"]}
    assert b"hunter2" not in response.content and b"127.0.0.1" not in response.content
    [record] = [r for r in caplog.records if r.name == "otterweb.health"]
    assert record.levelname == "WARNING"
    assert "part='channel layer'" in record.getMessage()
    assert "hunter2" not in record.getMessage()


@pytest.mark.django_db
def test_metrics_are_not_found_without_a_token_or_with_a_wrong_one(settings) -> None:
    settings.OTTERWEB_METRICS_TOKEN = ""
    assert Client().get("/metrics", **PROBE).status_code == 404
    settings.OTTERWEB_METRICS_TOKEN = TOKEN
    for sent in ("", "Bearer wrong", f"Token {TOKEN}", TOKEN):
        response = Client().get("/metrics", **PROBE, HTTP_AUTHORIZATION=sent)
        assert response.status_code == 404, sent
        assert response.json()["code"] == "not_found"


@pytest.mark.django_db
def test_metrics_are_public_only_when_made_so(settings) -> None:
    settings.OTTERWEB_METRICS_TOKEN = ""
    settings.OTTERWEB_METRICS_PUBLIC = True
    assert "otterweb_executions" in scrape()


@pytest.mark.django_db(transaction=True)
def test_metrics_count_runs_as_they_end_and_what_the_database_holds(settings) -> None:
    """The counters are this process's (the test process's metrics folder), where threads that
    other tests left may end runs of their own meanwhile: they grow by at least this run. The
    gauges read from the database are exact. tests/e2e/test_site.py counts exactly, per site."""
    settings.OTTERWEB_METRICS_TOKEN = TOKEN
    auth = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}
    Server.objects.create(name="here")
    web = Server.objects.create(name="web", agent_type=Server.AgentType.SSH, reachable=False)
    ServerState.objects.create(server=web, state=State.DRIFTED, drift_count=3)
    before = scrape(**auth)
    pending = create_job(script="Log-Information one; Log-Information two;", servers=["here"])
    create_job(script="Log-Error broken;", servers=["here"])
    assert scrape(**auth)["otterweb_executions"][(("run_state", "pending"),)] == 2
    run_execution(pending.pk, worker="test")
    after = scrape(**auth)

    def grown(name: str, *labels: tuple[str, str]) -> float:
        return after.get(name, {}).get(labels, 0.0) - before.get(name, {}).get(labels, 0.0)

    assert grown("otterweb_executions_ended_total", ("mode", "execute"), ("status", "normal")) >= 1
    assert grown("otterweb_execution_duration_seconds_count", ("mode", "execute")) >= 1
    assert grown("otterweb_execution_queue_wait_seconds_count") >= 1
    assert grown("otterweb_log_lines_written_total") >= 2
    assert after["otterweb_executions"][(("run_state", "pending"),)] == 1
    assert after["otterweb_executions"][(("run_state", "executing"),)] == 0
    assert after["otterweb_servers"][(("reachability", "unreachable"),)] == 1
    assert after["otterweb_servers"][(("reachability", "unchecked"),)] == 1
    assert after["otterweb_servers_configuration"][(("state", "drifted"),)] == 1
    assert after["otterweb_drift_items"][()] == 3


def test_metrics_of_a_worker_s_machine_at_its_own_address_under_the_token(settings) -> None:
    """A Celery worker on a machine of its own serves that machine's process metrics (not the
    database's, which the web servers say) at OTTERWEB_WORKER_METRICS_ADDRESS."""
    from urllib.error import HTTPError
    from urllib.request import Request, urlopen

    from otterweb import celery, metrics

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.OTTERWEB_METRICS_TOKEN = "scraper-token"
    settings.OTTERWEB_WORKER_METRICS_ADDRESS = f"127.0.0.1:{port}"
    metrics.LOG_LINES.inc(7)
    server = celery._serve_metrics()
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        for refused in (Request(url), Request(url, headers={"Authorization": "Bearer wrong"})):
            with pytest.raises(HTTPError) as answer:
                urlopen(refused, timeout=5)
            assert answer.value.code == 404
        with urlopen(
            Request(url, headers={"Authorization": "Bearer scraper-token"}), timeout=5
        ) as ok:
            found = samples(ok.read().decode())
        assert found["otterweb_log_lines_written_total"][()] >= 7
        assert "otterweb_executions" not in found  # the database's: the web servers say it
    finally:
        server.shutdown()
        server.server_close()
