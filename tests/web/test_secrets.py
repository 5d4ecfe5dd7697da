"""Secrets stay secret: credentials only where their environments allow, sensitive variables
masked in every form a run can print them, never shown by the API or the admin, and encrypted
at rest."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from otterweb.executions.models import Execution, LogEntry
from otterweb.executions.services import create_job, run_execution
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Environment, Server

pytestmark = pytest.mark.django_db(transaction=True)

API_SECRET = "listener-s3cret-token"


class Listener:
    """An HTTP server on 127.0.0.1 that keeps the Authorization header of every request."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append(self.headers.get("Authorization"))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> Listener:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    with Listener() as listening:
        yield listening


@pytest.fixture
def limited_credential():
    """The credential 'api', limited to production; web1 is in production (through its child
    eu), web2 in test."""
    production = Environment.objects.create(name="production")
    eu = Environment.objects.create(name="eu", parent=production)
    test = Environment.objects.create(name="test")
    for name, environment in (("web1", eu), ("web2", test), ("bare", None)):
        server = Server.objects.create(name=name)
        if environment is not None:
            server.environments.add(environment)
    return inventory.save_credential(
        name="api", username="deployer", secret=API_SECRET, environments=[production]
    )


def run(script: str, **targets) -> Execution:
    execution = create_job(script=script, **targets)
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    return execution


def messages(execution: Execution) -> list[str]:
    return list(
        LogEntry.objects.filter(execution=execution).order_by("seq").values_list("message", flat=True)
    )


# ---- credential environment limits -----------------------------------------------------------


def test_credential_environment_limits_refuse_use_outside_them(
    limited_credential, listener
) -> None:
    request = f"Get-Http {listener.url} (Credentials: api);"
    on_test = run(request, servers=["web2"])
    on_no_environment = run(request, servers=["bare"])
    untargeted = run(f"for server web1 {{ Log-Information inside; }}\n{request}")
    assert listener.received == []
    assert (on_test.status, on_no_environment.status, untargeted.status) == ("error",) * 3
    assert (
        "credential 'api' may only be used in the environments production, and server web2 is "
        "in test: it was not used" in messages(on_test)
    )
    assert any("server bare is in no environment" in m for m in messages(on_no_environment))
    assert any(
        "this run has no target server, so it is in no environment" in m
        for m in messages(untargeted)
    )


def test_credential_environment_limits_allow_use_inside_them(
    limited_credential, listener
) -> None:
    execution = run(
        f"Get-Http {listener.url} (Credentials: api);\nLog-Information sent {API_SECRET};",
        servers=["web1"],
    )
    assert execution.status == "normal", messages(execution)
    assert len(listener.received) == 1 and listener.received[0].startswith("Basic ")
    assert f"sent {API_SECRET}" not in messages(execution)
    assert "sent ********" in messages(execution)
