"""Escaping: no text a user, a script or a server sets reaches a page as markup.

A site is built where every CharField and TextField of every model of OtterWeb's apps (and
auth's users and groups), and every string in their JSON fields, holds an HTML payload that
would set ``window.__xss``, open a dialog and add elements with a ``data-x`` attribute if it
were read as markup. The fields are found with django.apps, so a new model or field is covered
without editing this test; a field that refuses the payload (a name of a restricted alphabet, a
choice) is listed with its reason, and the model's validation is asked to refuse it. Payloads
also come the ways people and runs make them: names, descriptions, prompts, schedules,
triggers, a raft item's name, log lines written by executions, drift, a draft.

Then every page the URL resolver knows (its parameters filled from the objects made here) and
the admin's list, add and change pages of every registered model are opened in Chromium: none
may run the payload, open a dialog or hold one of its elements; a download is never text/html."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.e2e.browser import browser, log_in, open_settled
from tests.e2e.serving import Site, stop
from tests.e2e.test_pages import WALK, fill, parameter_values

# One payload, three ways out: of an attribute (either quote), of text, of RCDATA (a textarea,
# a title) and of a script. {key} says which field it came from.
PAYLOAD = (
    "\"'><img src=x data-x={key} onerror=__xss='{key}'></textarea></title></script>"
    "<svg data-x={key} onload=alert('{key}')>"
)
SHORT_PAYLOAD = "\"'><img src=x data-x={key} onerror=__xss='{key}'>"  # for short fields
MARK = "data-x="  # in every payload: a field that holds one already is left alone


def payload(key: str, limit: int | None = None) -> str:
    text = PAYLOAD.format(key=key)
    return SHORT_PAYLOAD.format(key=key) if limit and len(text) > limit else text


# Fields that keep no payload, and why. Every other text field of every model gets one.
NOT_FILLED = {
    "auth.User.password": "a password hash: the user signs in with it; never shown",
    "inventory.Credential.encrypted_secret": "ciphertext (Fernet); never shown, never decrypted to a page",
    "inventory.Credential.encrypted_passphrase": "ciphertext (Fernet); never shown",
    "inventory.Variable.encrypted_value": "ciphertext (Fernet); a sensitive value is never shown",
    "schedules.Trigger.encrypted_secret": "ciphertext (Fernet): the webhook key; never shown",
    "inventory.Server.host_keys": "OpenSSH public keys, checked where they are written (the "
    "API's refusal is tested below)",
    "inventory.Server.pending_host_key": "the key an SSH server offered, written by the server "
    "check as asyncssh exports it (an OpenSSH key line): never free text",
}
# JSON fields that hold no text, and what they hold.
NO_TEXT = {
    "configuration.ConfigurationRun.origins": "line numbers to ids and line numbers",
    "audit.Entry.serialized_data": "django-auditlog's snapshot of an object: not kept here (null)",
}
# Fields whose validation refuses the payload (the model's own: forms, the API and the admin
# all run it), and what they hold. The test asks each to refuse the payload.
REFUSED = {
    "auth.User.username": "letters, digits and @.+-_ (Django's user name validator)",
    "auth.User.email": "an e-mail address",
    "inventory.Environment.name": "a name by otterweb.names' rule: scripts and URLs name it",
    "inventory.Role.name": "a name by the same rule",
    "inventory.Role.remediation": "a choice",
    "inventory.Credential.name": "a name by the same rule",
    "inventory.Credential.kind": "a choice",
    "inventory.Server.name": "a name by the same rule",
    "inventory.Server.agent_type": "a choice",
    "inventory.Server.remediation": "a choice",
    "inventory.InstalledPackage.manager": "a choice",
    "rafts.Raft.name": "a name by the same rule",
    "rafts.RaftItem.kind": "a choice",
    "executions.JobTemplate.targeting": "a choice",
    "executions.JobTemplate.mode": "a choice",
    "executions.JobTemplatePrompt.type": "a choice",
    "executions.Execution.run_state": "a choice",
    "executions.Execution.status": "a choice",
    "executions.Execution.mode": "a choice",
    "execution_logs.LogScope.status": "a choice",
    "configuration.RemediationPlan.status": "a choice",
    "configuration.ConfigurationRun.purpose": "a choice",
    "configuration.Check.state": "a choice",
    "configuration.ServerState.state": "a choice",
    "schedules.Schedule.kind": "a choice",
    "schedules.Schedule.cron": "a cron expression",
    "schedules.Schedule.time_zone": "an IANA time zone name",
    "schedules.Trigger.kind": "a choice",
}

# Run inside the site (`manage.py shell -c`, with PAYLOAD, SHORT_PAYLOAD, NOT_FILLED and the
# rows below prepended): a payload in every text field of every row of every model of
# OtterWeb's apps and auth's User and Group, and in every string of their JSON fields; a
# restricted field's validation is asked to refuse one. Prints what it did, by field.
POISON = """
import json
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import models
from otterweb.executions.models import Execution, GlobalLock

MARK = "data-x="

def payload(key, limit=None):
    text = PAYLOAD.format(key=key)
    return SHORT_PAYLOAD.format(key=key) if limit and len(text) > limit else text

def poisoned(value, key):
    # every string in a JSON value (not its keys) replaced by a payload
    if isinstance(value, str):
        return value if MARK in value else payload(key)
    if isinstance(value, list):
        return [poisoned(item, key) for item in value]
    if isinstance(value, dict):
        return {name: poisoned(item, key) for name, item in value.items()}
    return value

def strings(value):
    if isinstance(value, str):
        return 1
    if isinstance(value, list):
        return sum(strings(item) for item in value)
    if isinstance(value, dict):
        return sum(strings(item) for item in value.values())
    return 0

# rows the API does not make: a group with a grant, a service account (page forms make them),
# a global lock (held only while a script runs inside a lock block), and a server's collected
# inventory
from django.contrib.auth.models import User
from otterweb.accounts import services as accounts
from otterweb.accounts.models import ServiceAccount
from otterweb.privileges import services as privileges
from otterweb.privileges.models import Grant, Role
ops = User.objects.get(username="ops")
group, _ = Group.objects.get_or_create(name="operators")
if not ServiceAccount.objects.exists():
    accounts.create_service_account(actor=ops, username="robot", description="robot")
if not Grant.objects.exists():
    privileges.grant(role=Role.objects.order_by("pk").first(), group=group, by=ops)
if not GlobalLock.objects.exists():
    GlobalLock.objects.create(token="deploy", execution=Execution.objects.order_by("pk").first())
# a server's collected inventory (the server check writes it; web1 is never reached)
from django.utils import timezone
from otterweb.inventory.models import InstalledPackage, Server
web1 = Server.objects.get(name="web1")
if not InstalledPackage.objects.exists():
    InstalledPackage.objects.create(
        server=web1, manager="deb", name="openssl", version="3.0.15-1", architecture="amd64"
    )
    Server.objects.filter(pk=web1.pk).update(
        facts={
            "os_id": "debian",
            "os_version": "12",
            "architecture": "x86_64",
            "cpus": 2,
            "memory_mb": 2048,
            "addresses": ["10.0.0.5"],
            "disks": [{"mount": "/", "size_kb": 1024, "used_kb": 512}],
        },
        system="debian-12",
        facts_collected=timezone.now(),
        packages_collected=timezone.now(),
    )

TEXT = (models.CharField, models.TextField)
report = {"filled": {}, "refused": {}, "accepted": [], "empty": [], "no_text": [], "keys": {}}
number = 0
for model in apps.get_models():
    label = model._meta.label
    if not (model._meta.app_config.name.startswith("otterweb") or label in ("auth.User", "auth.Group")):
        continue
    fields = [f for f in model._meta.concrete_fields if isinstance(f, (*TEXT, models.JSONField))]
    rows = list(model._default_manager.order_by("pk"))
    if fields and not rows:
        report["empty"].append(label)
        continue
    for field in fields:
        name = f"{label}.{field.name}"
        if name in NOT_FILLED:
            continue
        number += 1
        key = f"f{number}"
        report["keys"][key] = name
        if isinstance(field, TEXT):
            try:
                field.clean(payload(key, field.max_length), rows[0])
            except ValidationError as error:
                report["refused"][name] = error.messages
                continue
            if name in REFUSED:
                report["accepted"].append(name)
        count = 0
        for index, row in enumerate(rows):
            value = getattr(row, field.attname)
            if isinstance(field, models.JSONField):
                new = poisoned(value, f"{key}.{index}")
                count += strings(new)
            else:
                new = value if MARK in (value or "") else payload(f"{key}.{index}", field.max_length)
                count += 1
            if new != value:
                model._default_manager.filter(pk=row.pk).update(**{field.attname: new})
        if count:
            report["filled"][name] = count
        else:
            report["no_text"].append(name)
print("REPORT=" + json.dumps(report))
"""

DEPLOY = """\
# Say the message
{
    Log-Information $Message;
    Log-Warning "warned: $Message";
}
"""
TEMPLATE_LIMIT = 200  # max_length of a template's, a trigger's and a schedule's name


def api(site: Site, method: str, path: str, body: dict | None = None):
    """site.api, failing with what the API answered."""
    try:
        return site.api(method, path, body)
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read()[:2000]!r}") from None


def finished(site: Site, execution: int) -> None:
    """Wait for the execution to complete (a busy machine may take a while)."""
    detail = site.wait_for(execution, lambda d: d["run_state"] == "completed", seconds=180)
    assert detail["run_state"] == "completed", detail


def refused(site: Site, path: str, body: dict) -> str:
    """The API's 400 to ``body`` (fails if it took it)."""
    try:
        site.api("POST", path, body)
    except urllib.error.HTTPError as error:
        assert error.code == 400, (path, error.code)
        return error.read().decode()
    raise AssertionError(f"POST {path} took {body}")


def populate(site: Site, drift_file: str) -> dict:
    """Through the API, payloads where people put text: descriptions, a credential's user
    name, a server's host and user, a variable (logged by a check), a raft item's name, a
    version's message, a job template (name, description, prompts: their descriptions, a
    prompt's name and a choice), runs that log the payload and find it as drift, a
    configuration check and plan, a trigger (fired once) and a schedule, and a draft that
    does not parse. Returns the objects, shaped as tests/e2e/test_pages.py's parameter_values
    takes them."""
    P = payload
    api(site, "POST", "/api/environments/", {"name": "production", "description": P("env")})
    api(site, "POST", "/api/roles/", {"name": "web", "description": P("role")})
    api(
        site,
        "POST",
        "/api/credentials/",
        {
            "name": "deploy",
            "kind": "password",
            "username": P("cred-user"),
            "secret": P("secret"),
            "description": P("cred"),
        },
    )
    api(
        site,
        "POST",
        "/api/servers/",
        {
            "name": "web1",
            "host": P("host"),
            "user": P("ssh-user", 100),
            "agent_type": "ssh",
            "roles": ["web"],
            "environments": ["production"],
            "description": P("server"),
        },
    )
    api(site, "PATCH", "/api/servers/localhost/", {"roles": ["web"]})
    variable = api(site, "POST", "/api/variables/", {"name": "Message", "value": f">>{P('var')}>>"})
    raft = api(site, "POST", "/api/rafts/", {"name": "ops", "description": P("raft")})
    item = api(
        site,
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": P("item", 200), "kind": "script", "content": DEPLOY},
    )
    item = api(
        site,
        "PATCH",
        f"/api/raft-items/{item['id']}/",
        {"content": DEPLOY + "Log-Debug $Message;\n", "message": P("commit")},
    )
    versions = api(site, "GET", f"/api/raft-item-versions/?item={item['id']}")
    versions_list = sorted(versions.get("results", versions), key=lambda v: v["number"])
    template = api(
        site,
        "POST",
        "/api/job-templates/",
        {
            "name": P("template", TEMPLATE_LIMIT),
            "description": P("template-desc"),
            "raft_item": item["id"],
            "targeting": "servers",
            "servers": ["localhost"],
            "prompts": [
                {"name": "Message", "default": P("prompt"), "description": P("prompt-desc")},
                {
                    "name": P("pn", 100),
                    "type": "choice",
                    "choices": [P("choice"), "plain"],
                    "description": P("choice-desc"),
                },
            ],
        },
    )
    launched = api(site, "POST", f"/api/job-templates/{template['id']}/launch/", {})
    drift = api(
        site,
        "POST",
        "/api/executions/",
        {
            "script": f"Ensure-File {drift_file} (Text: $Message);",
            "mode": "collect",
            "servers": ["localhost"],
            "name": P("job"),
        },
    )
    for execution in (launched, drift):
        finished(site, execution["id"])
    check, plan = configure(site, drift_file)
    trigger = api(
        site,
        "POST",
        f"/api/job-templates/{template['id']}/triggers/",
        {"name": P("trigger", TEMPLATE_LIMIT), "kind": "token"},
    )
    fired = urllib.request.Request(
        f"{site.base}/api/triggers/{trigger['id']}/?token={trigger['token']}",
        method="POST",
        data=b"{}",
        headers={"Content-Type": "application/json", "X-OtterWeb-Delivery": "release-1"},
    )
    with urllib.request.urlopen(fired, timeout=10) as answer:
        fired = json.loads(answer.read())
    finished(site, fired["execution"])
    schedule = api(
        site,
        "POST",
        "/api/schedules/",
        {
            "name": P("schedule", TEMPLATE_LIMIT),
            "description": P("schedule-desc"),
            "kind": "job",
            "template": template["id"],
            "cron": "0 3 * * *",
            "variables": {"Message": P("schedule-var")},
        },
    )
    # keys are made from a signed-in session: the seed's token is one (its name gets a payload)
    keys = api(site, "GET", "/api/keys/")
    (key,) = keys.get("results", keys)
    entries = api(site, "GET", "/api/audit/")
    latest = versions_list[-1]["number"]
    api(
        site,
        "PUT",
        f"/api/raft-items/{item['id']}/draft/",
        {"content": f"Log-Information {P('draft')};\n", "base_version": latest},
    )
    return {
        "execution": launched,
        "template": template,
        "raft": {"name": "ops"},
        "item": {"name": quote(item["name"], safe="/")},
        "versions": versions_list,
        "server": {"name": "web1"},
        "role": {"name": "web"},
        "environment": {"name": "production"},
        "credential": {"name": "deploy"},
        "variable": variable["id"],
        "check": check,
        "plan": plan,
        "trigger": trigger["id"],
        "schedule": schedule["id"],
        # (the word before a parameter, the parameter) -> a value, for the API's patterns
        "api": {
            ("rafts", "pk"): str(raft["id"]),
            ("raft-items", "pk"): str(item["id"]),
            ("raft-item-versions", "pk"): str(versions_list[-1]["id"]),
            ("job-templates", "pk"): str(template["id"]),
            ("job-templates", "template_pk"): str(template["id"]),
            ("jobs", "pk"): str(launched["job"]["id"]),
            ("keys", "pk"): str(key["id"]),
            ("audit", "pk"): str(entries.get("results", entries)[0]["id"]),
        },
    }


def configure(site: Site, drift_file: str) -> tuple[int, int]:
    """The web role's desired state (the file holds the payload, and a command runs with it),
    checked on localhost, and a plan to remediate the role: the check's id and the plan's."""
    item = api(
        site,
        "POST",
        "/api/raft-items/",
        {
            "raft": "ops",
            "name": "web-config",
            "kind": "script",
            "content": f"Ensure-File {drift_file} (Text: $Message);\nSHExec true;\n",
        },
    )
    api(site, "PATCH", "/api/roles/web/", {"configuration": item["id"], "remediation": "on-demand"})
    (execution,) = api(site, "POST", "/api/configuration/check/", {"server": "localhost"})[
        "executions"
    ]
    finished(site, execution["id"])
    deadline = time.monotonic() + 60  # the check is recorded just after its run completes
    while not (checks := api(site, "GET", "/api/configuration/servers/localhost/")["checks"]):
        assert time.monotonic() < deadline, "the check of localhost was never recorded"
        time.sleep(0.2)
    (check,) = checks
    # of the role: web1, never checked, is left out
    plan = api(site, "POST", "/api/configuration/plans/", {"role": "web"})
    return check["id"], plan["id"]


def poison(site: Site) -> dict:
    """Run POISON in the site: its report."""
    constants = "\n".join(
        f"{name} = {value!r}"
        for name, value in {
            "PAYLOAD": PAYLOAD,
            "SHORT_PAYLOAD": SHORT_PAYLOAD,
            "NOT_FILLED": NOT_FILLED,
            "REFUSED": REFUSED,
        }.items()
    )
    printed = site.manage("shell", "--no-imports", "-c", constants + POISON)
    return json.loads(printed.rsplit("REPORT=", 1)[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("escaping")
    site = Site(folder)
    log = open(folder / "server.log", "wb")  # noqa: SIM115 (closed below, after the server)
    server = site.serve(log)
    # the file the checks find drifted: where the run user reads (pytest's folders are root's)
    drift_file = f"/tmp/otterweb-e2e-escaping-{uuid.uuid4().hex}"
    try:
        Path(drift_file).write_text("before\n")
        data = populate(site, drift_file)
        report = poison(site)
        yield site, data, report
    finally:
        stop(server)
        log.close()
        Path(drift_file).unlink(missing_ok=True)


def test_escaping_every_text_field_of_every_model_holds_a_payload_or_refuses_it(site) -> None:
    site, _, report = site
    assert report["empty"] == [], (
        f"models with no row, so no payload: {report['empty']} (make one in populate())"
    )
    assert report["accepted"] == [], (
        f"fields listed as refusing the payload took it: {report['accepted']}"
    )
    assert set(report["refused"]) == set(REFUSED), (
        "fields refusing the payload, not listed in REFUSED (or listed and no longer there): "
        f"{set(report['refused']) ^ set(REFUSED)}"
    )
    assert set(report["no_text"]) == set(NO_TEXT), (
        f"JSON fields with no string to hold a payload, or listed in NO_TEXT and holding one: "
        f"{set(report['no_text']) ^ set(NO_TEXT)}"
    )
    filled = set(report["filled"])
    every = set(report["keys"].values())
    assert every - filled == set(REFUSED) | set(NO_TEXT), every - filled - set(REFUSED)
    # what the model refuses, the API refuses too (as people would meet it)
    for path, body, field in [
        ("/api/servers/", {"name": payload("server-name")}, "name"),
        ("/api/environments/", {"name": payload("env-name")}, "name"),
        ("/api/rafts/", {"name": payload("raft-name")}, "name"),
        ("/api/servers/", {"name": "web9", "host_keys": payload("host-keys")}, "host_keys"),
    ]:
        assert list(json.loads(refused(site, path, body))["errors"]) == [field], (path, body)


# files to save, not pages: fetched, never opened; whether they hold the site's text
DOWNLOADS = {
    "execution-log-text": True,
    "execution-log-jsonl": True,
    "api:execution-log-download": True,
    "api:schema": False,  # the OpenAPI document (YAML)
}
PARAMETER = re.compile(r"\(\?P<\w+>[^)]*\)|<(?:\w+:)?\w+>")

# In the page: did the payload run (window.__xss) or become elements; which payloads are text.
INSPECT = """() => ({
    ran: window.__xss === undefined ? null : String(window.__xss),
    elements: [...document.querySelectorAll('[data-x], img[src="x"], [onerror], [onload]')]
        .map(e => e.outerHTML.slice(0, 160)),
    text: [...new Set((document.body ? document.body.innerText : '')
        .match(/data-x=[\\w.-]+/g) || [])],
})"""


def walk(site: Site, data: dict) -> tuple[list[tuple[str, str]], list[str], dict[str, str]]:
    """(name, path) of every named pattern answering GET, the API's too (a browser gets Django
    REST framework's browsable API: a page), the admin's pages, and the named patterns left
    out, with why. Names are namespaced (api:server-detail)."""
    found = json.loads(site.manage("shell", "--no-imports", "-c", WALK).splitlines()[-1])
    values = {**parameter_values(data), **data["api"]}
    pages, left_out = [], {}
    for pattern in found["patterns"]:
        route, namespace = pattern["route"], pattern["namespace"]
        name = f"{namespace}:{pattern['name']}" if namespace else pattern["name"] or route
        if namespace == "admin":
            continue  # the admin's pages are listed apart, for every registered model
        if "get" not in pattern["methods"]:
            left_out[name] = "answers no GET"
            continue
        if "format>" in route:
            continue  # the same view as the pattern without the suffix (.json)
        if route == "favicon.ico":
            left_out[route] = "a redirect to a static icon"
            continue
        # a router's regular expression as a path: ^servers/(?P<name>[^/.]+)/$ -> servers/<name>/
        route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", route.replace("^", "").replace("$", ""))
        pages.append((name, fill(route, values) + QUERIES.get(name, "")))
    return list(dict.fromkeys(pages)), found["admin"], left_out  # a pattern included twice: once


# what a view needs in its query string to answer with its data
QUERIES = {
    "api:execution-log-search": "?q=data-x",
    "api:execution-log-lines": "?from=1",
    "api:script-names": "?raft=ops",
}


def visit(site: Site, paths: list[tuple[str, str]]) -> tuple[dict, set[str]]:
    """Open each (name, path) in one browser, signed in: what was wrong, by (name, path), and
    every payload seen as text."""
    problems: dict[tuple[str, str], list[str]] = {}
    seen: set[str] = set()
    dialogs: list[str] = []
    with browser() as context:
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        log_in(page, site)
        for name, path in paths:
            wrong = []
            if name in DOWNLOADS:
                response = context.request.get(site.base + path)
                kind = response.headers.get("content-type", "")
                if response.status != 200 or kind.startswith("text/html"):
                    wrong.append(f"download answered {response.status} {kind}")
                if response.headers.get("x-content-type-options") != "nosniff":
                    wrong.append("download without X-Content-Type-Options: nosniff")
                if DOWNLOADS[name] and MARK not in response.text():
                    wrong.append("the download holds no payload")
                problems[name, path] = wrong
                continue
            response = open_settled(page, site.base + path)
            if response is None or response.status != 200:
                wrong.append(f"answered {response.status if response else 'nothing'}")
            if name == "execution-detail":  # the log comes over a websocket, after the load
                page.wait_for_function("document.body.innerText.includes('data-x=prompt')")
            found = page.evaluate(INSPECT)
            if found["ran"] is not None:
                wrong.append(f"the payload ran: window.__xss = {found['ran']}")
            if found["elements"]:
                wrong.append(f"payload elements: {found['elements'][:5]}")
            if dialogs:
                wrong.append(f"dialogs opened: {dialogs}")
                dialogs.clear()
            seen.update(found["text"])
            problems[name, path] = wrong
    return problems, seen


# One test (the walk is most of the module's time): pytest-xdist would build the site and walk
# it once in each process that runs some of the module's tests.
def test_escaping_no_page_of_every_get_pattern_runs_or_renders_a_payload(site, capsys) -> None:
    site, data, report = site
    pages, admin_pages, left_out = walk(site, data)
    problems, seen = visit(site, [*pages, *(("admin", path) for path in admin_pages)])
    with capsys.disabled():
        print(
            f"\n{len(pages)} pages and {len(admin_pages)} admin pages opened; left out: "
            + ", ".join(f"{name} ({why})" for name, why in sorted(left_out.items()))
        )
    failures = {where: wrong for where, wrong in problems.items() if wrong}
    assert not failures, "\n".join(
        f"{path} ({name}): {wrong}" for (name, path), wrong in failures.items()
    )
    # every named pattern answering GET is opened (but favicon.ico), downloads fetched
    names = {name for name, _ in pages}
    assert set(left_out.values()) <= {"answers no GET", "a redirect to a static icon"}
    assert len(problems) == len(pages) + len(admin_pages)
    assert {
        "home",
        "execution-detail",
        "template-launch",
        "raft-item-edit",
        "api:api-root",
    } <= names
    assert set(DOWNLOADS) <= names
    # the payloads people and runs wrote are on the pages, as text
    shown = {match.removeprefix("data-x=").split(".")[0] for match in seen}
    for key in (
        "env",
        "role",
        "cred",
        "server",
        "raft",
        "item",
        "commit",
        "template",
        "template-desc",
        "prompt-desc",
        "choice-desc",
        "trigger",
        "schedule",
        "var",
        "prompt",
    ):
        assert key in shown, f"the payload {key!r} is on no page"
    fields = {report["keys"][key] for key in shown if key in report["keys"]}
    assert len(fields) >= len(report["filled"]) // 2, sorted(set(report["filled"]) - fields)
