"""Generated bad input (hypothesis) to every API endpoint of the OpenAPI schema, and the script
endpoints: odd path values and query parameters, JSON of every shape, broken JSON, form data.
Whatever is sent, the answer is never a 5xx; every execution it starts ends (none is left
"executing"); and the lists and pages still answer afterwards."""

from __future__ import annotations

import json
import os
from urllib.parse import quote

import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.inventory import services as inventory
from tests.web.sample import sample_inventory

pytestmark = pytest.mark.django_db(transaction=True)

# About a minute for the whole file; OTTERWEB_FUZZ_EXAMPLES=100 digs deeper.
EXAMPLES_PER_ROUTE = int(os.environ.get("OTTERWEB_FUZZ_EXAMPLES", "10"))
SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
ROUTES = sorted(
    (path, method.upper())
    for path, operations in SCHEMA["paths"].items()
    for method in operations
    if path.startswith("/api/")
)
FIELDS = sorted(
    {
        name
        for schema in SCHEMA["components"]["schemas"].values()
        for name in schema.get("properties", {})
    }
    | {"against", "after", "from", "to", "item", "limit", "offset", "raft", "since", "kind"}
)
# What a careless or hostile client sends where text or a number is expected.
NASTY = [
    "",
    " ",
    "abc",
    "0",
    "1",
    "-1",
    "2",
    "3.5",
    "1e5",
    "nan",
    "inf",
    "null",
    "true",
    "[]",
    "{}",
    "99999999999999999999",
    "-99999999999999999999",
    "18446744073709551616",
    "\x00",
    "\t\n",
    "é",
    "🦦",
    "\u202e",
    "\ufeff",
    "../..",
    "%",
    "%00",
    "a b",
    "<script>",
    "'; --",
    "x" * 3000,
    "fuzz1",
    "web",
    "production",
    "global",
    "execute",
    "collect",
    "text",
    "number",
    "choice",
    "script",
    "module",
    "localhost",
]
# Scripts that fail at run time in ways that could leave a run "executing", and a few that
# work; safe to run (nothing but logs, a closed local port and a module that calls itself).
SCRIPTS = [
    "Log-Information fine;",
    'Get-Http "http://127.0.0.1:9/a b";',
    "Get-Http http://127.0.0.1:9/;",
    "module Again {\n    call Again;\n}\ncall Again;",
    "{\n" * 199 + "Log-Information deep;\n" + "}\n" * 199,
    "{\n" * 250 + "}\n" * 250,
    "Log-Information " + "x" * 70_000 + ";",
    "set $x = $Eval('$Eval(x)');\nLog-Information $x;",
    "Log-Information $Missing;",
    "set @x = @(1, 2);\nLog-Information $x;",
    "for server nowhere {\n    Log-Information x;\n}",
    "Sleep nope;",
    "set $x",
]
RAW_BODIES = [
    "{",
    "[]",
    "null",
    '"text"',
    "1",
    "{'single': 'quotes'}",
    '{"a": NaN}',
    '{"a": 1e999}',
    '{"id": 99999999999999999999}',
    '{"name": "\\ud800"}',
    '{"script": "\\udfff x"}',
    '{"variables": {"\\ud83e": "x"}}',
    '{"a": ' * 10_000 + "1" + "}" * 10_000,
    "[" * 100_000 + "]" * 100_000,
    '{"a": 1, "a": [1, {"b": null}]}',
    "\x00",
]

texts = st.sampled_from(NASTY) | st.text(max_size=12)
numbers = st.integers(min_value=-(2**70), max_value=2**70) | st.floats(
    allow_nan=False, allow_infinity=False
)
scalars = st.none() | st.booleans() | numbers | texts | st.sampled_from(SCRIPTS)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | texts, inner, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.sampled_from(FIELDS), values, max_size=6)
path_values = (
    st.sampled_from(["1", "2", "3", "0", "-1", "abc", "fuzz1", "web", "production"]) | texts
)
queries = st.dictionaries(st.sampled_from(FIELDS), texts, max_size=3)
# A well-formed start, with random parts: reaches further than random JSON alone.
STARTS = {
    "/api/executions/": st.fixed_dictionaries(
        {"script": st.sampled_from(SCRIPTS), "servers": st.just(["fuzz1"]), "variables": values}
    ),
    "/api/job-templates/{id}/launch/": st.fixed_dictionaries({"variables": values}),
    "/api/job-templates/": st.fixed_dictionaries(
        {
            "name": texts,
            "raft_item": st.just(1),
            "targeting": st.just("servers"),
            "servers": st.just(["fuzz1"]),
            "prompts": st.lists(
                st.fixed_dictionaries({"name": texts, "type": texts, "default": values}), max_size=2
            ),
        }
    ),
    "/api/variables/": st.fixed_dictionaries({"name": texts, "value": values, "server": texts}),
}


@st.composite
def requests(draw, path: str, method: str):
    """(url, body, content type) for one call of ``method`` on ``path``."""
    url = path
    for name in ("id", "name"):
        url = url.replace("{" + name + "}", quote(draw(path_values), safe=""))
    query = draw(queries)
    if query:
        url += "?" + "&".join(f"{quote(k)}={quote(v, safe='')}" for k, v in query.items())
    if method in ("GET", "DELETE"):
        return url, None, None
    shape = draw(st.sampled_from(["start", "object", "value", "raw", "form"]))
    if shape == "start" and path in STARTS:
        body = {
            **draw(STARTS[path]),
            **draw(st.dictionaries(st.sampled_from(FIELDS), values, max_size=2)),
        }
        return url, json.dumps(body), "application/json"
    if shape == "raw":
        return url, draw(st.sampled_from(RAW_BODIES)), "application/json"
    if shape == "form":
        form = draw(st.dictionaries(st.sampled_from(FIELDS), texts, max_size=4))
        return url, form, "multipart/form-data"
    body = draw(objects) if shape in ("object", "start") else draw(values)
    return url, json.dumps(body), "application/json"


@pytest.fixture
def inventory_and_rafts(django_user_model):
    """One of everything, so ids 1, 2 ... and the names in NASTY find something."""
    sample_inventory(server="fuzz1", worker="fuzz")
    inventory.set_variable(name="Token", value="s3cret", sensitive=True)
    return django_user_model.objects.create_superuser("fuzzer")


def clients(admin, nobody) -> dict[str, APIClient]:
    as_admin = APIClient()
    as_admin.force_authenticate(admin)
    as_nobody = APIClient()
    as_nobody.force_authenticate(nobody)
    return {"admin": as_admin, "nobody": as_nobody, "anonymous": APIClient()}


def send(client: APIClient, method: str, url: str, body, content_type):
    if body is None:
        return client.generic(method, url)
    if content_type == "multipart/form-data":
        return getattr(client, method.lower())(url, body)
    return client.generic(method, url, body.encode("utf-8", "surrogatepass"), content_type)


def run_what_was_started() -> None:
    for pk in Execution.objects.filter(run_state="pending").values_list("pk", flat=True):
        run_execution(pk, worker="fuzz")
    assert not Execution.objects.filter(run_state="executing").exists()


@pytest.mark.slow
def test_fuzz_api_endpoints_never_answer_5xx(inventory_and_rafts, user_with) -> None:
    who = clients(inventory_and_rafts, user_with(username="nobody"))

    @settings(
        max_examples=EXAMPLES_PER_ROUTE * len(ROUTES),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def call(data) -> None:
        path, method = data.draw(st.sampled_from(ROUTES), label="route")
        url, body, content_type = data.draw(requests(path, method), label="request")
        identity = data.draw(st.sampled_from(sorted(who)), label="identity")
        answer = send(who[identity], method, url, body, content_type)
        assert answer.status_code < 500, (method, url, body and body[:300], answer.content[:500])
        run_what_was_started()

    call()
    still_answers(who["admin"], inventory_and_rafts)


SCRIPT_ENDPOINTS = ["check", "format", "blocks", "unblocks"]
PIECES = [
    *"{}()@$%\"'`;:,=<>!&|#/*\n\t abcX-",
    "Log-Information ",
    "if ",
    "foreach ",
    "module ",
    "with ",
    ">>",
]
script_texts = st.sampled_from(SCRIPTS) | st.lists(st.sampled_from(PIECES), max_size=80).map(
    "".join
)


@pytest.mark.parametrize("endpoint", SCRIPT_ENDPOINTS)
def test_fuzz_script_endpoints_never_answer_5xx(inventory_and_rafts, endpoint) -> None:
    client = APIClient()
    client.force_authenticate(inventory_and_rafts)

    @settings(
        max_examples=4 * EXAMPLES_PER_ROUTE,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(script_texts, values)
    def call(script, workspace) -> None:
        body = {"workspace": workspace} if endpoint == "unblocks" else {"script": script}
        answer = client.post(f"/api/scripts/{endpoint}/", body, format="json")
        assert answer.status_code < 500, (script, answer.content[:500])

    call()
    still_answers(client, inventory_and_rafts)


LISTS = [
    path for path, method in ROUTES if method == "GET" and "{" not in path and "names" not in path
]
PAGES = [
    "/",
    "/executions/",
    "/rafts/",
    "/inventory/servers/",
    "/inventory/variables/",
    "/templates/",
]


def still_answers(client: APIClient, admin) -> None:
    """After the bad input, every list of the API and the pages that show what it made answer."""
    for path in LISTS:
        assert client.get(path).status_code == 200, path
    pages = APIClient()
    pages.force_login(admin)
    for page in PAGES:
        assert pages.get(page).status_code == 200, page
