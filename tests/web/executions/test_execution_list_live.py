"""The executions list's progress: a live status, the duration so far and the counts
of lines, warnings and errors, redrawn by frontend/src/executions/list.ts from the list's JSON
while executions run."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def viewer(client_with):
    return client_with("executions.view_execution")


def row_of(page: str, execution: Execution) -> str:
    start = page.index(f'data-execution="{execution.pk}"')
    return page[start : page.index("</tr>", start)]


def refreshed(client, **query) -> dict:
    response = client.get(reverse("execution-list"), query, HTTP_ACCEPT="application/json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response.json()


def test_execution_list_shows_the_counts_of_a_finished_run(viewer, here) -> None:
    script = "Log-Information one;\nLog-Warning two;\nLog-Error three;\nLog-Error four;"
    execution = create_job(script=script, servers=["here"])
    run_execution(execution.pk, worker="test")
    page = viewer.get(reverse("execution-list")).content.decode()
    row = row_of(page, execution)
    assert '<td data-label="Lines" class="num" data-count="lines">4</td>' in row
    assert '<span class="status-warning">1</span>' in row
    assert '<span class="status-error">2</span>' in row
    assert "data-running" not in row and "so far" not in row
    assert "frontend/assets/executions-" in page  # the script that refreshes it


def test_execution_list_json_redraws_a_running_execution_with_its_progress(viewer, here) -> None:
    execution = create_job(script="Log-Information x;", servers=["here"])
    execution.start(worker="w")
    Execution.objects.filter(pk=execution.pk).update(
        started=timezone.now() - timedelta(seconds=95), log_lines=12_345, log_warnings=2
    )
    data = refreshed(viewer)
    assert data["running"] is True
    row = row_of(data["html"], execution)
    assert "data-running" in row and '<span class="badge executing">Executing</span>' in row
    assert re.search(r">1 min 3\d s<span class=\"muted\"> so far</span>", row)  # 95 s and on
    assert ">12,345<" in row and '<span class="status-warning">2</span>' in row
    # later: it ended, and the refresh says so
    Execution.objects.filter(pk=execution.pk).update(log_lines=20_000, log_errors=1)
    execution.refresh_from_db()
    execution.finish(status=Execution.Status.ERROR, drift=[])
    data = refreshed(viewer)
    row = row_of(data["html"], execution)
    assert data["running"] is False and "data-running" not in row
    assert '<span class="badge error">Error</span>' in row and ">20,000<" in row


def test_execution_list_json_keeps_the_filters_and_the_empty_message(viewer, here) -> None:
    create_job(script="Log-Information x;", name="deploy", servers=["here"])
    data = refreshed(viewer, q="nothing like it")
    assert "No execution matches" in data["html"] and data["running"] is False
    assert "deploy" in refreshed(viewer, q="depl")["html"]


def test_execution_list_json_refuses_users_who_may_not_view_executions(client_with) -> None:
    client = client_with("inventory.view_server")
    response = client.get(reverse("execution-list"), HTTP_ACCEPT="application/json")
    assert response.status_code == 403


def test_dashboard_activity_rows_carry_the_counts(viewer, here) -> None:
    execution = create_job(script="Log-Warning careful;", servers=["here"])
    run_execution(execution.pk, worker="test")
    recent = viewer.get(reverse("execution-activity")).json()["recent"]
    assert {k: recent[0][k] for k in ("lines", "warnings", "errors", "running")} == {
        "lines": 1,
        "warnings": 1,
        "errors": 0,
        "running": False,
    }
