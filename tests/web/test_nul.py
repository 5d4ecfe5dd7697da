"""NUL characters. PostgreSQL's text and jsonb cannot hold U+0000: a NUL a run makes
(a process's output, a value set at run time and logged, an error, a drift value, a scope's
name) is stored as U+2400 (␀), on SQLite too, so the run ends as it would have and keeps its
log; a NUL in an API body (a run's variables, a schedule's) is refused with a 400 that says
where, before anything is made. Run on SQLite, and on PostgreSQL with OTTERWEB_DATABASE_URL."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.execution_logs.sink import without_nul, without_nuls
from otterweb.executions.models import Execution, Job
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server

pytestmark = pytest.mark.django_db(transaction=True)

NUL_VALUE = "set $x = $FromJson('\"a\\u0000b\"');\n"  # "a", NUL, "b"


@pytest.fixture
def web1(db) -> Server:
    return Server.objects.create(name="web1")


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("root"))
    return client


def ran(script: str, mode: str = "execute") -> Execution:
    execution = create_job(script=script, servers=["web1"], mode=mode)
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    return execution


def messages(execution: Execution) -> list[str]:
    entries = LogEntry.objects.filter(execution_id=execution.pk).order_by("seq")
    return list(entries.values_list("message", flat=True))


# ---- what a run stores


def test_nul_in_process_output_is_logged_as_a_symbol(web1) -> None:
    execution = ran("SHExec >>printf 'a\\0b\\n'>>;\nLog-Information after;")
    assert execution.status == "normal" and execution.error == ""
    assert "a␀b" in messages(execution) and "after" in messages(execution)


def test_nul_in_a_value_set_at_run_time_is_logged_as_a_symbol(web1) -> None:
    execution = ran(NUL_VALUE + "Log-Information got $x;")
    assert execution.status == "normal"
    assert messages(execution) == ["got a␀b"]


def test_nul_in_an_error_keeps_the_run_its_status_and_log(web1) -> None:
    execution = ran(NUL_VALUE + "throw $x;")
    assert execution.status == "error"
    assert "a␀b" in execution.error and "\x00" not in execution.error
    assert "a␀b" in messages(execution)


def test_nul_in_a_drift_value_is_stored_as_a_symbol(web1, tmp_path) -> None:
    (tmp_path / "f").write_text("ab")
    execution = ran(NUL_VALUE + f"Ensure-File {tmp_path}/f (Text: $x);", mode="collect")
    assert execution.status == "normal" and execution.outcome == "drifted"
    [drift] = execution.drift
    assert drift["differences"] == [{"property": "Text", "expected": "a␀b", "actual": "ab"}]
    assert "Drift: Text should be 'a␀b', is 'ab'." in messages(execution)


def test_nul_in_a_scope_name_is_stored_as_a_symbol(web1, tmp_path) -> None:
    execution = ran(NUL_VALUE + f"Ensure-File {tmp_path}/$x (Text: y);")
    names = list(LogScope.objects.filter(execution_id=execution.pk).values_list("name", flat=True))
    assert f"Ensure-File {tmp_path}/a␀b" in names
    # the file system refuses the name too: the run says so, and its log is whole
    assert execution.status == "error" and "embedded null byte" in execution.error


def test_nul_lines_read_back_through_the_log_api(web1, admin) -> None:
    execution = ran(NUL_VALUE + "Log-Information got $x;")
    lines = admin.get(f"/api/executions/{execution.pk}/log/lines/").json()["entries"]
    assert [line["message"] for line in lines] == ["got a␀b"]
    found = admin.get(f"/api/executions/{execution.pk}/log/search/", {"q": "a␀b"}).json()
    assert found["total"] == 1


def test_nul_saved_execution_fields_of_any_save_are_clean(db) -> None:
    execution = Execution.objects.create(job=Job.objects.create(name="x", script="x"))
    execution.error = "bad\x00"
    execution.drift = [{"operation": "op\x00", "differences": [{"k\x00": ["v\x00", 1, None]}]}]
    execution.save()
    execution.refresh_from_db()
    assert execution.error == "bad␀"
    assert execution.drift == [{"operation": "op␀", "differences": [{"k␀": ["v␀", 1, None]}]}]


def test_nul_helpers_leave_other_text_alone() -> None:
    text = "plain ␀ text"
    assert without_nul(text) is text
    assert without_nuls({"a": [1, True, None, "b"]}) == {"a": [1, True, None, "b"]}


# ---- what the API takes


@pytest.mark.parametrize(
    ("body", "field", "place"),
    [
        ('"variables": {"Token": "a\\u0000b"}', "variables", "variables.Token holds"),
        ('"variables": {"To\\u0000ken": "ab"}', "variables", 'variables["To␀ken"] is named with'),
        ('"variables": {"List": ["ok", "a\\u0000"]}', "variables", "variables.List[1] holds"),
        ('"name": "deploy\\u0000"', "name", "name holds"),
    ],
)
def test_nul_in_a_run_request_is_refused_naming_where(admin, web1, body, field, place) -> None:
    request = '{"script": "Log-Information $Token;", "servers": ["web1"], ' + body + "}"
    answer = admin.post("/api/executions/", request, content_type="application/json")
    assert answer.status_code == 400, answer.content
    error = answer.json()
    assert error["code"] == "invalid"
    [message] = error["errors"][field]
    assert message.startswith(place) and "NUL character (U+0000" in message
    assert error["detail"] == f"invalid request: {message}"
    assert Execution.objects.count() == 0 and Job.objects.count() == 0


def test_nul_as_escaped_text_is_taken(admin, web1) -> None:
    # a backslash and "u0000" (written \\u0000 in JSON) is text like any other
    request = (
        '{"script": "Log-Information $Token;", "servers": ["web1"], '
        '"variables": {"Token": "a\\\\u0000b"}}'
    )
    answer = admin.post("/api/executions/", request, content_type="application/json")
    assert answer.status_code == 201, answer.content
    assert Job.objects.get().variables == {"Token": "a\\u0000b"}


def test_nul_in_a_schedule_is_refused(admin, web1) -> None:
    request = (
        '{"name": "nightly", "kind": "job", "cron": "0 2 * * *", "variables": {"V": "\\u0000"}}'
    )
    answer = admin.post("/api/schedules/", request, content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["errors"]["variables"][0].startswith("variables.V holds a NUL")


@pytest.mark.parametrize("encoding", ["form", "multipart"])
def test_nul_in_a_form_body_is_refused_naming_where(admin, web1, encoding) -> None:
    """Form and multipart bodies as JSON ones: PostgreSQL could not look a NUL name up."""
    from otterweb.inventory.models import Credential

    Credential.objects.create(name="deploy", username="ops")
    body = {"name": "deploy", "environments": ["ok", "bad\x00name"]}
    if encoding == "form":
        from urllib.parse import urlencode

        answer = admin.put(
            "/api/credentials/deploy/",
            urlencode(body, doseq=True),
            content_type="application/x-www-form-urlencoded",
        )
    else:
        from django.test.client import MULTIPART_CONTENT, encode_multipart

        answer = admin.put(
            "/api/credentials/deploy/",
            encode_multipart("BoUnDaRy", body),
            content_type=MULTIPART_CONTENT.replace("BoUnDaRyStRiNg", "BoUnDaRy"),
        )
    assert answer.status_code == 400, answer.content
    [message] = answer.json()["errors"]["environments"]
    assert message.startswith("environments[1] holds a NUL character")
