"""Nothing breaks on bad input: each finding of the robustness review, with the answer it gets
now (a clean 4xx with a message, a closed websocket, a run that ends) and the limits, each with
its setting and its message."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIClient

from otterweb.api.queries import Pagination
from otterweb.asgi import application
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.models import Execution, JobTemplate
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server, Variable
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("here")]


@pytest.fixture
def admin():
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("root"))
    return client


def messages(execution) -> list[str]:
    return list(
        LogEntry.objects.filter(execution_id=execution.pk)
        .order_by("seq")
        .values_list("message", flat=True)
    )


# ---- websockets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/ws/nowhere/", "/ws/executions/abc/", "/", "/ws/executions/1/x/"]
)
async def test_websocket_routing_refuses_unknown_paths_without_an_error(path) -> None:
    connection = WebsocketCommunicator(application, path)
    connected, code = await connection.connect()
    assert (connected, code) == (False, 4404)


# ---- text ---------------------------------------------------------------------------------

SURROGATE = "\\ud800"  # as JSON writes it: one half of a pair, not a character


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/api/executions/",
            '{"script": "Log-Information x;", "servers": ["here"], "variables": {"Version": "%s"}}',
        ),
        (
            "/api/executions/",
            '{"script": "Log-Information x;", "servers": ["here"], "variables": {"%s": "1"}}',
        ),
        ("/api/executions/", '{"script": "Log-Information %s;", "servers": ["here"]}'),
        ("/api/executions/", '{"script": "Log-Information x;", "servers": ["here"], "name": "%s"}'),
        ("/api/rafts/", '{"name": "ops%s"}'),
        ("/api/variables/", '{"name": "Port", "value": "80%s"}'),
        ("/api/servers/", '{"name": "web%s"}'),
        (
            "/api/job-templates/",
            '{"name": "x", "raft_item": 1, "prompts": [{"name": "V", "default": "%s"}]}',
        ),
    ],
)
def test_api_refuses_lone_surrogates_in_every_field_before_anything_is_made(
    admin, path, body
) -> None:
    counts = [model.objects.count() for model in (Execution, Raft, Variable, Server, JobTemplate)]
    answer = admin.post(path, body % SURROGATE, content_type="application/json")
    assert answer.status_code == 400
    assert "lone surrogate" in answer.json()["detail"]
    assert [
        model.objects.count() for model in (Execution, Raft, Variable, Server, JobTemplate)
    ] == counts
    assert admin.get("/api/executions/").status_code == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/servers/", '{"name": "web\\u0000"}'),
        ("/api/variables/", '{"name": "Port", "value": "80\\u0000"}'),
        ("/api/executions/", '{"script": "Log-Information \\u0000;", "servers": ["here"]}'),
    ],
)
def test_api_refuses_nul_characters_in_fields_before_anything_is_made(admin, path, body) -> None:
    counts = [model.objects.count() for model in (Execution, Variable, Server)]
    answer = admin.post(path, body, content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert [model.objects.count() for model in (Execution, Variable, Server)] == counts


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("delete", "/api/credentials/%00/"),
        ("get", "/api/servers/web%00/"),
        ("get", "/api/executions/?status=%00"),
        ("get", "/api/servers/?x%00=1"),
    ],
)
def test_api_addresses_with_a_nul_character_are_400_naming_it(admin, method, url) -> None:
    answer = getattr(admin, method)(url)
    assert answer.status_code == 400
    assert "NUL character" in answer.json()["detail"]


def test_pages_with_a_nul_character_in_the_address_are_400(client) -> None:
    answer = client.get("/inventory/servers/web%00/")
    assert answer.status_code == 400
    assert b"NUL character" in answer.content


# ---- query parameters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/raft-item-versions/?item=abc", "item"),
        ("/api/raft-item-versions/?item=99999999999999999999", "item"),
        ("/api/raft-item-versions/?item=%C2%B2", "item"),  # a digit to str.isdigit, not to int
        ("/api/raft-items/1/diff/?from=abc", "from"),
        ("/api/raft-items/1/diff/?to=99999999999999999999", "to"),
        ("/api/raft-item-versions/1/diff/?against=-1", "against"),
        ("/api/executions/1/logs/?after=abc", "after"),
        ("/api/executions/1/logs/?after=99999999999999999999", "after"),
    ],
)
def test_api_query_parameters_that_are_not_numbers_in_range_are_400(admin, url, field) -> None:
    item = save_item(raft=Raft.objects.create(name="ops"), name="deploy", content="fail;")
    execution = create_job(script="Log-Information x;", servers=["here"])
    # the objects' own ids: on PostgreSQL they do not start again at 1 for each test
    ids = {
        "raft-items": item.pk,
        "raft-item-versions": item.versions.get().pk,
        "executions": execution.pk,
    }
    resource = url.split("/")[2]
    answer = admin.get(url.replace("/1/", f"/{ids[resource]}/", 1))
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"]


@pytest.mark.parametrize(
    "query",
    [
        "limit=99999999999999999999",
        "offset=99999999999999999999",
        "limit=abc",
        "limit=-5",
        "limit=0",
        "limit=2.5",
        "offset=false",
    ],
)
def test_api_lists_refuse_a_limit_or_offset_that_is_no_whole_number(admin, query) -> None:
    create_job(script="Log-Information x;", servers=["here"])
    name = query.split("=")[0]
    for path in ("/api/executions/", "/api/servers/", "/api/raft-item-versions/"):
        answer = admin.get(f"{path}?{query}")
        assert answer.status_code == 400, (path, answer.content)
        assert name in answer.json()["errors"]


def test_pagination_gives_at_most_1000_rows_a_page(rf) -> None:
    pages = Pagination()
    assert pages.get_limit(Request(rf.get("/api/servers/?limit=5000"))) == 1000
    assert pages.get_limit(Request(rf.get("/api/servers/?limit=7"))) == 7
    assert pages.get_limit(Request(rf.get("/api/servers/"))) == 100


def test_api_body_over_the_size_limit_is_400_naming_the_limit(admin, settings) -> None:
    settings.OTTERWEB_MAX_SCRIPT_BYTES = 1000
    answer = admin.post("/api/rafts/", {"name": "ops", "description": "x" * 5000}, format="json")
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        "invalid request: the request is over 4,000 bytes, 4 times the script limit of 1,000 "
        "bytes (OTTERWEB_MAX_SCRIPT_BYTES)"
    )
    assert not Raft.objects.exists()


@pytest.mark.parametrize("number", ["99999999999999999999", "1e999", "NaN"])
def test_api_json_numbers_out_of_range_are_400(admin, number) -> None:
    answer = admin.post(
        "/api/raft-item-versions/1/restore/",
        f'{{"base_version": {number}}}',
        content_type="application/json",
    )
    assert answer.status_code == 400 and answer.json()["detail"].startswith("JSON parse error")


# ---- executions and templates ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the run stores its log on a thread of its own
def test_execution_variables_given_as_numbers_or_booleans_are_their_text(admin) -> None:
    started = admin.post(
        "/api/executions/",
        {
            "script": "Log-Information $Count $Ready $Ratio [$Nothing] $Join(+, @Mixed);",
            "servers": ["here"],
            "variables": {
                "Count": 3,
                "Ready": True,
                "Ratio": 1.5,
                "Nothing": None,
                "Mixed": [1, False, "x"],
            },
        },
        format="json",
    )
    assert started.status_code == 201, started.json()
    assert started.json()["job"]["variables"]["Count"] == "3"
    run_execution(started.json()["id"], worker="test")
    execution = Execution.objects.get(pk=started.json()["id"])
    assert execution.status == "normal", messages(execution)
    assert messages(execution) == ["3 true 1.5 [] 1+false+x"]


def test_execution_variables_need_names(admin) -> None:
    answer = admin.post(
        "/api/executions/",
        {"script": "Log-Information x;", "servers": ["here"], "variables": {" ": 1}},
        format="json",
    )
    assert answer.status_code == 400 and "a variable needs a name" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        ({"name": "V", "type": "number", "default": "abc"}, "Expected a number"),
        ({"name": "V", "type": "number", "default": "1e999999999"}, "at most 100 digits"),
        ({"name": "V", "type": "number", "default": {"a": 1}}, "default"),
        ({"name": "V", "type": "colour"}, "is not a valid choice"),
        ({"name": "V", "type": "choice", "choices": "abc"}, "choices"),
        ({"name": "V", "type": "choice", "choices": [["a"]]}, "choices"),
        ({"name": "V", "type": "boolean", "default": "maybe"}, "yes or no"),
        ({"name": "V", "required": "perhaps"}, "required"),
        ({"name": ["V"]}, "name"),
        ({"name": "$V"}, "without its $"),
        ("V", "prompt"),
    ],
)
def test_job_template_prompts_of_the_wrong_type_are_refused_when_it_is_made(
    admin, prompt, words
) -> None:
    item = save_item(raft=Raft.objects.create(name="ops"), name="deploy", content="fail;")
    answer = admin.post(
        "/api/job-templates/",
        {
            "name": "Deploy",
            "raft_item": item.pk,
            "targeting": "servers",
            "servers": ["here"],
            "prompts": [prompt],
        },
        format="json",
    )
    assert answer.status_code == 400, answer.json()
    assert words in str(answer.json())
    assert not JobTemplate.objects.exists()


# ---- the log --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_log_lines_longer_than_the_limit_are_cut_with_a_marker(settings) -> None:
    settings.OTTERWEB_MAX_LOG_LINE_CHARS = 20
    execution = create_job(
        script=f"Log-Information {'x' * 50};\nLog-Information short;", servers=["here"]
    )
    run_execution(execution.pk, worker="test")
    assert messages(execution) == [
        "x" * 20 + " … [30 more characters cut: OTTERWEB_MAX_LOG_LINE_CHARS]",
        "short",
    ]


@pytest.mark.django_db(transaction=True)
def test_log_past_its_volume_limit_says_so_keeps_errors_and_the_run_goes_on(settings) -> None:
    settings.OTTERWEB_MAX_LOG_MB = 10_000 / (1024 * 1024)  # 10,000 bytes: about 100 short lines
    script = (
        "foreach $i in @Range(1, 1000) {\n    Log-Information line $i;\n}\n"
        "Log-Error still stored;\nLog-Information not stored;"
    )
    execution = create_job(script=script, servers=["here"])
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    stored = messages(execution)
    notice = next(m for m in stored if "reached its limit" in m)
    assert "(OTTERWEB_MAX_LOG_MB)" in notice and "goes on" in notice
    assert 50 < stored.index(notice) < 150
    assert stored[-1] == "still stored" and "not stored" not in stored
    assert (execution.run_state, execution.status) == ("completed", "error")  # the error's


@pytest.mark.django_db(transaction=True)
def test_log_past_its_volume_limit_ends_a_normal_run_with_a_warning(settings) -> None:
    settings.OTTERWEB_MAX_LOG_MB = 10_000 / (1024 * 1024)
    execution = create_job(
        script="foreach $i in @Range(1, 1000) { Log-Information line $i; }", servers=["here"]
    )
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    assert (execution.run_state, execution.status) == ("completed", "warning")


def test_logs_api_answers_a_long_log_in_pages(admin) -> None:
    execution = create_job(script="Log-Information x;", servers=["here"])
    LogEntry.objects.bulk_create(
        LogEntry(
            execution_id=execution.pk, seq=seq, level=10, message=f"line {seq}", time=timezone.now()
        )
        for seq in range(1, 2501)
    )
    first = admin.get(f"/api/executions/{execution.pk}/logs/").json()
    assert [first[0]["seq"], first[-1]["seq"], len(first)] == [1, 1000, 1000]
    last = admin.get(f"/api/executions/{execution.pk}/logs/?after=2000").json()
    assert [last[0]["seq"], last[-1]["seq"]] == [2001, 2500]


# ---- inputs at the edges of what the API takes: each answers with a refusal or a result, never a 500


def test_api_raft_item_made_without_content_starts_empty(admin) -> None:
    Raft.objects.create(name="ops")
    made = admin.post("/api/raft-items/", {"raft": "ops", "name": "empty"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["content"] == "" and made.json()["version"] == 1


@pytest.mark.parametrize(
    "name", ["a\nb", "a\rb", "a\tb", "a\u202eb", "a\u200bb", "a\u2028b", "a/../b", "./x", ".."]
)
def test_raft_item_names_a_url_cannot_carry_are_refused_where_they_are_made(
    admin, client, name
) -> None:
    raft = Raft.objects.create(name="ops")
    made = admin.post(
        "/api/raft-items/", {"raft": "ops", "name": name, "content": ""}, format="json"
    )
    assert made.status_code == 400 and "name" in made.json()["errors"], made.content
    item = save_item(raft=raft, name="fine", content="")
    renamed = admin.patch(f"/api/raft-items/{item.pk}/", {"name": name}, format="json")
    assert renamed.status_code == 400 and "name" in renamed.json()["errors"]
    page = client
    page.force_login(get_user_model().objects.get(username="root"))
    form = page.post("/rafts/ops/-/new/", {"name": name, "kind": "script"})
    assert form.status_code == 200 and "errorlist" in form.content.decode()
    assert list(raft.items.values_list("name", flat=True)) == ["fine"]
    assert page.get("/rafts/ops/").status_code == 200


@pytest.mark.parametrize("path", ["servers", "roles", "environments", "rafts", "credentials"])
def test_names_with_a_line_break_are_refused_everywhere_else_too(admin, path) -> None:
    answer = admin.post(f"/api/{path}/", {"name": "a\nb"}, format="json")
    assert answer.status_code == 400 and "name" in answer.json()["errors"]


def test_ssh_user_with_an_invisible_character_is_refused_and_never_stops_a_check_round(
    admin,
) -> None:
    body = {"name": "odd", "agent_type": "ssh", "host": "127.0.0.1", "port": 1, "user": "a\u202eb"}
    refused = admin.post("/api/servers/", body, format="json")
    assert refused.status_code == 400 and "U+202E" in refused.json()["errors"]["user"][0]
    credential = admin.post(
        "/api/credentials/", {"name": "c", "username": "x\u202ey", "secret": "s"}, format="json"
    )
    assert credential.status_code == 400 and "username" in credential.json()["errors"]
    # one made before the check (or behind the services' back) is checked, and fails, alone
    Server.objects.create(name="odd", agent_type="ssh", host="127.0.0.1", port=1, user="a\u202eb")
    Server.objects.create(name="also", agent_type="ssh", host="127.0.0.1", port=1, user="deploy")
    checked = admin.post("/api/servers/odd/check/")
    assert checked.status_code == 200, checked.content
    assert checked.json()["reachable"] is False
    assert "Prohibited character" in Server.objects.get(name="odd").check_error
    from otterweb.inventory.checks import check_due_servers

    Server.objects.update(last_checked=None)
    assert check_due_servers() == 3  # here, odd and also: the round went on past odd
    also = Server.objects.get(name="also")
    assert also.last_checked is not None and also.reachable is False
    assert "Prohibited" not in also.check_error


SCHEMA_CLIENTS = """
import threading

import django

django.setup()
from django.test import Client
from django.test.utils import setup_test_environment

setup_test_environment()
answers, start = [], threading.Barrier(8)


def one():
    start.wait()
    try:
        answers.append(Client().get("/api/schema/").status_code)
    except Exception as error:
        answers.append(type(error).__name__)


threads = [threading.Thread(target=one) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(sorted(map(str, answers)))
"""


@pytest.mark.any_database  # the schema is made from the code
def test_api_schema_answers_eight_concurrent_anonymous_clients() -> None:
    """In a process of its own: drf-spectacular's first generation in a process is what raced."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "otterweb.settings.test"}
    answer = subprocess.run(
        [sys.executable, "-c", SCHEMA_CLIENTS],
        cwd=Path(__file__).resolve().parents[2],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.stdout.strip().splitlines()[-1] == str(["200"] * 8), answer.stderr[-2000:]
