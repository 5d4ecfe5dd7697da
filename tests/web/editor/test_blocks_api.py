"""The script endpoints with bad input: JSON that is not a workspace of OtterScript blocks, blocks
of unknown types, scripts over the size limit, random JSON. Always 400 with a message, never 5xx."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from engine import MAX_NESTING, json_dumps, json_loads, parse, to_blocks

pytestmark = pytest.mark.django_db

UNBLOCKS = "/api/scripts/unblocks/"


@pytest.fixture
def client(client_with):
    return client_with("rafts.change_raftitem")


def workspace(*blocks, **extra) -> dict:
    return {"blocks": {"languageVersion": 0, "blocks": list(blocks)}, **extra}


def log(message: str = "hi", **extra) -> dict:
    return {"type": "otter_log", "fields": {"LEVEL": "debug", "MESSAGE": message}, **extra}


def refused(response, text: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and text in body["detail"], body


def test_unblocks_well_formed_workspace_is_its_text(client) -> None:
    answer = client.post(UNBLOCKS, {"workspace": workspace(log())}, format="json")
    assert answer.status_code == 200 and answer.json()["script"] == "Log-Debug hi;\n"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            workspace(log(fields=["debug", "hi"])),
            "'fields' of block ? (otter_log) must be a JSON object, not a list",
        ),
        (
            workspace(log(next=[log()])),
            "'next' of block ? (otter_log) must be a JSON object, not a list",
        ),
        (workspace(log(next={"block": "Log-Debug x;"})), "a block is a JSON object, not text"),
        (workspace({"fields": {"TEXT": "fail;"}}), "has no type"),
        (workspace({"type": ["otter_log"]}), "has no type"),
        (
            workspace(log(fields={"LEVEL": "debug", "MESSAGE": {"x": 1}})),
            "field MESSAGE of block ? (otter_log) must be text",
        ),
        (
            workspace(log(extraState=[])),
            "'extraState' of block ? (otter_log) must be a JSON object",
        ),
        (workspace(log(extraState={"description": "# not a list"})), "must be a list, not text"),
        (workspace(log(extraState={"description": ["Exec evil;"]})), "must be comments"),
        (workspace(log(icons={"comment": {"text": 3}})), "must be text, not a number"),
        (
            workspace({"type": "otter_block", "inputs": {"BODY": "x"}}),
            "input BODY of block ? (otter_block) must be a JSON object",
        ),
        ({"blocks": []}, "'blocks' must be a JSON object, not a list"),
        ({"blocks": {"blocks": {}}}, "'blocks.blocks' must be a list"),
        (
            workspace(otterscript={"headers": ["Log-Debug injected;"]}),
            "a header is one line of text starting ##AH:",
        ),
        (workspace(otterscript=[]), "'otterscript' must be a JSON object"),
        (
            workspace(
                {
                    "type": "otter_if",
                    "fields": {"IF0": "true"},
                    "extraState": {"elseIfCount": 10**9},
                }
            ),
            "elseIfCount of block ? (otter_if) is 1000000000, but it has no IF1000000000 field",
        ),
        (
            workspace(
                {"type": "otter_if", "fields": {"IF0": "true"}, "extraState": {"elseIfCount": "2"}}
            ),
            "must be a whole number",
        ),
        (
            workspace(
                {
                    "type": "otter_operation_call",
                    "fields": {"NAME": "Exec"},
                    "extraState": {"arguments": ["FileName: x"]},
                }
            ),
            "an argument of block ? (otter_operation_call) must be a JSON object",
        ),
    ],
)
def test_unblocks_wrong_shapes_are_400_with_a_message(client, data, message) -> None:
    refused(client.post(UNBLOCKS, {"workspace": data}, format="json"), message)


def nested(depth: int) -> dict:
    block: dict = log()
    for _ in range(depth):
        block = {"type": "otter_block", "inputs": {"BODY": {"block": block}}}
    return block


def test_unblocks_blocks_nested_too_deep_are_400(client) -> None:
    assert (
        client.post(UNBLOCKS, {"workspace": workspace(nested(20))}, format="json").status_code
        == 200
    )
    refused(
        client.post(UNBLOCKS, {"workspace": workspace(nested(MAX_NESTING))}, format="json"),
        f"nested more than {MAX_NESTING} deep",
    )


def test_unblocks_reads_json_nested_100_000_deep_without_recursion(client) -> None:
    body = '{"workspace": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}"
    answer = client.post(UNBLOCKS, body, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["script"] == ""  # no blocks in it


@pytest.mark.parametrize("endpoint", ["/api/scripts/check/", "/api/executions/", "/api/rafts/"])
def test_api_json_nested_100_000_deep_is_400(endpoint) -> None:
    admin = APIClient()
    admin.force_authenticate(get_user_model().objects.create_superuser("root"))
    body = '{"script": ' + "[" * 100_000 + "]" * 100_000 + "}"
    answer = admin.post(endpoint, body, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith("JSON parse error - nested more than 64 deep")


def test_unblocks_unknown_block_type_is_kept_as_its_text(client) -> None:
    block = {"type": "acme_deploy", "fields": {"TEXT": "Log-Information from another editor;"}}
    answer = client.post(UNBLOCKS, {"workspace": workspace(block, log())}, format="json")
    assert answer.status_code == 200
    assert answer.json()["script"] == "Log-Information from another editor;\nLog-Debug hi;\n"


def test_unblocks_unknown_block_type_without_text_is_refused_by_name(client) -> None:
    block = {"type": "acme_deploy", "fields": {"SITE": "www"}}
    refused(
        client.post(UNBLOCKS, {"workspace": workspace(block)}, format="json"),
        "unknown block type 'acme_deploy'",
    )


def test_unblocks_unknown_block_type_with_text_that_does_not_parse_has_diagnostics(client) -> None:
    block = {"type": "acme_deploy", "id": "x1", "fields": {"TEXT": "set $x 1;"}}
    answer = client.post(UNBLOCKS, {"workspace": workspace(block)}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "script"
    assert "block x1 (acme_deploy)" in answer.json()["diagnostics"][0]["message"]


def test_unblocks_name_that_makes_other_text_is_refused(client) -> None:
    block = {"type": "otter_operation_call", "fields": {"NAME": "Exec {"}}
    refused(
        client.post(UNBLOCKS, {"workspace": workspace(block)}, format="json"),
        "the text of the blocks:1:6: error: expected a value",
    )


def test_unblocks_lone_surrogate_is_400(client) -> None:
    body = '{"workspace": {"blocks": {"blocks": [{"type": "otter_log", "fields": {"MESSAGE": "\\ud800"}}]}}}'
    answer = client.post(UNBLOCKS, body, content_type="application/json")
    assert answer.status_code == 400 and "lone surrogate" in answer.json()["detail"]
    pair = '{"workspace": {"blocks": {"blocks": [{"type": "otter_log", "fields": {"MESSAGE": "\\ud83e\\udda6"}}]}}}'
    assert (
        client.post(UNBLOCKS, pair, content_type="application/json").json()["script"]
        == "Log-Information 🦦;\n"
    )


@pytest.mark.parametrize("endpoint", ["check", "format", "blocks"])
def test_scripts_over_the_limit_are_400_naming_the_limit(client, endpoint, settings) -> None:
    settings.OTTERWEB_MAX_SCRIPT_BYTES = 100
    fits = "Log-Debug é;\n" * 7  # 98 bytes: é is two
    assert (
        client.post(f"/api/scripts/{endpoint}/", {"script": fits}, format="json").status_code == 200
    )
    answer = client.post(f"/api/scripts/{endpoint}/", {"script": fits + "#x\n"}, format="json")
    refused(
        answer,
        "the script is 101 bytes; the server takes at most 100 bytes (OTTERWEB_MAX_SCRIPT_BYTES)",
    )


def test_unblocks_over_the_limit_is_400_naming_the_limit(client, settings) -> None:
    settings.OTTERWEB_MAX_SCRIPT_BYTES = 500
    line = f"Log-Debug {'x' * 80};\n"  # 92 bytes
    small = to_blocks(parse(line * 5))
    assert client.post(UNBLOCKS, {"workspace": small}, format="json").status_code == 200
    answer = client.post(UNBLOCKS, {"workspace": to_blocks(parse(line * 6))}, format="json")
    refused(answer, "its script is 552 bytes; the server takes at most 500 bytes")
    huge = {"workspace": workspace(log("x" * 2000))}
    refused(
        client.post(UNBLOCKS, huge, format="json"),
        "the request is over 2,000 bytes, 4 times the script limit of 500 bytes "
        "(OTTERWEB_MAX_SCRIPT_BYTES)",
    )


def test_blocks_and_unblocks_take_a_flat_script_of_5000_statements(client) -> None:
    script = "".join(f"Log-Information line {n};\n" for n in range(5000))
    blocks = client.post("/api/scripts/blocks/", {"script": script}, format="json")
    assert blocks.status_code == 200
    workspace = json_loads(blocks.content.decode())["workspace"]
    body = json_dumps({"workspace": workspace})
    text = client.post(UNBLOCKS, body, content_type="application/json")
    assert text.status_code == 200 and json.loads(text.content)["script"] == script


@pytest.mark.parametrize("endpoint", ["check", "format", "blocks", "unblocks"])
def test_scripts_endpoints_need_the_permission_to_change_raft_items(endpoint, client_with) -> None:
    answer = client_with("rafts.view_raftitem").post(
        f"/api/scripts/{endpoint}/", {"script": "fail;"}, format="json"
    )
    assert answer.status_code == 403
    assert "need the permission to change raft items" in answer.json()["detail"]
    anonymous = APIClient().post(f"/api/scripts/{endpoint}/", {"script": "fail;"}, format="json")
    assert anonymous.status_code in (401, 403)


def test_scripts_endpoints_are_throttled_per_user_with_a_clear_message(
    client, client_with, settings
) -> None:
    settings.OTTERWEB_SCRIPTS_THROTTLE_RATE = "3/minute"
    cache.clear()
    answers = [
        client.post("/api/scripts/check/", {"script": "fail;"}, format="json") for _ in range(4)
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert (
        answers[-1]
        .json()["detail"]
        .startswith(
            "too many script requests: at most 3/minute for each user "
            "(OTTERWEB_SCRIPTS_THROTTLE_RATE); try again in"
        )
    )
    other = client_with("rafts.change_raftitem")
    assert other.post("/api/scripts/format/", {"script": "fail;"}, format="json").status_code == 200
    cache.clear()


def test_format_script_nested_too_deep_for_the_engine_is_400(client) -> None:
    deep = "{\n" * 12_000 + "}\n" * 12_000
    answer = client.post("/api/scripts/format/", {"script": deep}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "script"
    [diagnostic] = answer.json()["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"]) == ("nesting", MAX_NESTING + 1)


# ---- random JSON ----------------------------------------------------------------------------

KEYS = [
    "type",
    "id",
    "fields",
    "inputs",
    "next",
    "block",
    "extraState",
    "icons",
    "comment",
    "text",
    "blocks",
    "otterscript",
    "headers",
    "x",
    "y",
    "TEXT",
    "NAME",
    "MESSAGE",
    "LEVEL",
    "BODY",
    "IF0",
    "IF1",
    "DO0",
    "ELSE",
    "elseIfCount",
    "hasElse",
    "arguments",
    "value",
    "output",
    "description",
    "lines",
    "parameters",
    "variable",
    "default",
    "indexes",
    "trailingComment",
    "VARIABLE",
    "VALUE",
    "SOURCE",
    "CONTEXT",
    "DIRECTIVES",
    "CATCH",
    "NAMESPACE",
    "POSITIONAL",
]
TYPES = [
    "otter_raw",
    "acme_x",
    *sorted(
        {
            "otter_log",
            "otter_if",
            "otter_block",
            "otter_operation_call",
            "otter_set_variable",
            "otter_for_each",
            "otter_comment",
            "otter_module_declaration",
            "otter_with",
            "otter_try",
            "otter_context_iteration",
            "otter_call_module",
        }
    ),
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from(TYPES)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), children, max_size=6)
    ),
    max_leaves=40,
)


@pytest.mark.slow
@pytest.mark.any_database  # the engine reads the JSON: the database only signs the user in
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=json_values)
def test_unblocks_random_json_is_never_5xx(client, data) -> None:
    for body in ({"workspace": data}, {"workspace": {"blocks": {"blocks": [data]}}}, data):
        answer = client.post(UNBLOCKS, json.dumps(body), content_type="application/json")
        assert answer.status_code in (200, 400), answer.content


def test_blocks_and_unblocks_take_a_flat_script_of_two_thousand_statements(client) -> None:
    script = "".join(f"Log-Information line {n};\n" for n in range(2000))
    blocks = client.post("/api/scripts/blocks/", {"script": script}, format="json")
    assert blocks.status_code == 200, blocks.content[:300]
    back = client.post(UNBLOCKS, {"workspace": blocks.json()["workspace"]}, format="json")
    assert back.status_code == 200 and back.json()["script"] == script


BLOCKS = "/api/scripts/blocks/"
LAID_OUT = (
    "##AH:UseTextMode\n"
    "# deploy\n"
    "if $Env == prod {\n"
    "\tLog-Information   'prod';\n"
    "\tRestore-Packages();  # as it was\n"
    "}\n"
    "set $Swim = >>line one\n"
    "line two>>;\n"
)


def test_blocks_and_back_change_only_the_block_edited(client) -> None:
    made = client.post(BLOCKS, {"script": LAID_OUT}, format="json")
    assert made.status_code == 200
    data = made.json()["workspace"]
    assert client.post(UNBLOCKS, {"workspace": data}, format="json").json()["script"] == LAID_OUT
    log_block = data["blocks"]["blocks"][0]["inputs"]["DO0"]["block"]
    assert log_block["type"] == "otter_log"
    log_block["fields"]["MESSAGE"] = "'production'"
    answer = client.post(UNBLOCKS, {"workspace": data}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["script"] == LAID_OUT.replace(
        "\tLog-Information   'prod';", "\tLog-Information 'production';"
    )


def test_blocks_and_back_keep_crlf_line_breaks_and_change_only_the_block_edited(client) -> None:
    text = LAID_OUT.replace("\n", "\r\n")
    data = client.post(BLOCKS, {"script": text}, format="json").json()["workspace"]
    assert client.post(UNBLOCKS, {"workspace": data}, format="json").json()["script"] == text
    data["blocks"]["blocks"][0]["inputs"]["DO0"]["block"]["fields"]["MESSAGE"] = "'production'"
    answer = client.post(UNBLOCKS, {"workspace": data}, format="json").json()["script"]
    assert answer == text.replace("\tLog-Information   'prod';", "\tLog-Information 'production';")


def test_unblocks_kept_text_changed_in_the_browser_is_written_anew_and_the_rest_kept(
    client,
) -> None:
    data = client.post(BLOCKS, {"script": LAID_OUT}, format="json").json()["workspace"]
    log = data["blocks"]["blocks"][0]["inputs"]["DO0"]["block"]
    assert log["type"] == "otter_log"
    log["extraState"]["source"]["text"] = "Log-Information   'staging';"  # not what it says
    answer = client.post(UNBLOCKS, {"workspace": data}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["script"] == LAID_OUT.replace(
        "Log-Information   'prod'", "Log-Information 'prod'"
    )
