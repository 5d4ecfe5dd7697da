"""Schemathesis holds the API to its OpenAPI schema (/api/schema/, drf-spectacular).

Every operation of the schema gets ``CASES`` requests that the schema says are valid and
``CASES`` that it says are not, through the project's WSGI application in this process (no
server), as a superuser and (``REFUSED_CASES`` of each) as a user with no permissions, each with
an API token. Every answer must be no server error, have a status code, content type and body
that the schema documents; a valid request must not be refused as invalid (400) and an invalid
one must be refused (4xx).

Valid requests name the objects of a small inventory made here (an environment, a server, a
raft with a script item, a job template ...), so operations with an id act on something real;
each request runs in a transaction rolled back after it, so every one finds the same data.
Hypothesis is derandomized: the same cases each run.

Alone: ``.venv/bin/pytest tests/web/api/test_schema_conformance.py -q`` (OTTERWEB_SCHEMA_CASES
sets the superuser's cases per operation and kind).
"""

from __future__ import annotations

import os
from collections import Counter
from contextlib import contextmanager

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from otterweb.accounts import tokens
from otterweb.schedules import services as schedules
from tests.web.sample import sample_inventory

# an execution of the inventory runs on threads of its own: they see its committed rows
pytestmark = pytest.mark.django_db(transaction=True)

# 5 valid and 5 invalid requests per operation for the superuser; a user with no permissions is
# refused before the request's body or query is read (DRF checks permissions first), so 2 of each
# cover what can differ for it. About 30 s of CPU in all.
CASES = int(os.environ.get("OTTERWEB_SCHEMA_CASES", "5"))
REFUSED_CASES = min(CASES, 2)
HELD = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
# Measured and reported, not held at zero: a request the schema calls valid may name a server,
# raft or item that does not exist, or carry a script or cron expression that does not parse,
# and JSON Schema cannot say which names exist or what parses; the API answers those 400 with
# the field and why, as it should.
MEASURED = [positive_data_acceptance]
CHECKS = HELD + MEASURED
# What each check's failure means, for the report.
FINDINGS = {
    "not_a_server_error": "server errors",
    "response_schema_conformance": "schema violations",
    "positive_data_acceptance": "valid requests rejected",
    "negative_data_rejection": "invalid requests accepted",
    "status_code_conformance": "undocumented status codes",
    "content_type_conformance": "undocumented content types",
}


@pytest.fixture
def app():
    """The project's WSGI application. Django closes the database connection as a request starts
    and finishes; each request runs in a transaction of the test's, so (as Django's test client
    does) not here."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def things(django_user_model) -> dict[str, dict[str, object]]:
    """A small inventory; its path parameters by the operations' path prefix."""
    made = sample_inventory(server="web1", worker="schema")
    trigger, _secret = schedules.create_trigger(template=made.template, name="hook")
    schedule = schedules.save_schedule(
        name="nightly", kind="job", template=made.template, cron="0 3 * * *"
    )
    production, web, server, variable = made.environment, made.role, made.server, made.variable
    raft, item, template, execution = made.raft, made.item, made.template, made.execution
    version = item.versions.order_by("-pk").first()
    return {
        "/api/credentials/": {"name": "deploy"},
        "/api/environments/": {"name": production.name},
        "/api/roles/": {"name": web.name},
        "/api/servers/": {"name": server.name},
        "/api/configuration/servers/": {"name": server.name},
        "/api/variables/": {"id": variable.pk},
        "/api/rafts/": {"id": raft.pk},
        "/api/raft-items/": {"id": item.pk},
        "/api/raft-item-versions/": {"id": version.pk},
        "/api/job-templates/{template_pk}/triggers/": {
            "template_pk": template.pk,
            "id": trigger.pk,
        },
        "/api/job-templates/": {"id": template.pk},
        "/api/triggers/": {"id": trigger.pk},
        "/api/schedules/": {"id": schedule.pk},
        "/api/jobs/": {"id": execution.job_id},
        "/api/executions/": {"id": execution.pk},
    }


def real_ids(path: str, things: dict[str, dict[str, object]]) -> dict[str, object] | None:
    for prefix, values in things.items():
        if path.startswith(prefix.split("{template_pk}")[0]) and ("{template_pk}" in path) == (
            "{template_pk}" in prefix
        ):
            return {name: value for name, value in values.items() if "{" + name + "}" in path}
    return None


@contextmanager
def rolled_back():
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def findings_of(app, schema, things, token: str, cases: int) -> dict[Failure, str]:
    """Each finding (one per operation and kind of failure) and the first request that made it."""
    headers = {"Authorization": f"Token {token}"}
    found: dict[Failure, str] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        ids = real_ids(operation.path, things) if "{" in operation.path else None
        valid = operation.as_strategy(GenerationMode.POSITIVE)
        if ids:
            valid = st.one_of(
                operation.as_strategy(GenerationMode.POSITIVE, path_parameters=ids), valid
            )
        invalid = operation.as_strategy(GenerationMode.NEGATIVE)
        strategies = [valid, invalid] if can_be_invalid(schema, operation) else [valid]
        for strategy in strategies:

            @settings(
                max_examples=cases,
                derandomize=True,
                database=None,
                deadline=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(strategy)
            def call(case) -> None:
                with rolled_back():
                    response = case.call(app=app, headers=headers)
                try:
                    case.validate_response(response, checks=CHECKS, headers=headers)
                except FailureGroup as group:
                    for failure in group.exceptions:
                        found.setdefault(failure, evidence(case, response))

            try:
                call()
            except Exception as error:
                error.add_note(
                    f"in {operation.label}, {'valid' if strategy is valid else 'invalid'}"
                )
                raise
    return found


def can_be_invalid(schema, operation) -> bool:
    """Whether a request of ``operation`` can break its schema: not when it takes no body and
    only path parameters that may be any text (a name)."""
    definition = schema.raw_schema["paths"][operation.path][operation.method.lower()]
    return "requestBody" in definition or any(
        parameter["in"] != "path" or constraints(parameter["schema"]) != {"type": "string"}
        for parameter in definition.get("parameters", [])
    )


def constraints(schema: dict) -> dict:
    return {key: value for key, value in schema.items() if key not in ("description", "title")}


def evidence(case, response) -> str:
    body = "" if isinstance(case.body, NotSet) else f" body={case.body!r:.300}"
    return (
        f"{case.method} {case.formatted_path} query={case.query!r:.200}{body} -> "
        f"{response.status_code} {response.text[:300]!r}"
    )


def report(found: dict[Failure, str]) -> str:
    kinds = Counter(check for failure in found for check in type(failure).checks[:1])
    lines = [
        f"{len(found)} findings: "
        + ", ".join(f"{count} {FINDINGS.get(kind, kind)}" for kind, count in kinds.items())
    ]
    for failure in sorted(found, key=lambda f: (f.operation or "", f.title)):
        message = " ".join(failure.message.split())[:300]
        lines.append(f"- {failure.operation}: {failure.title}: {message}\n    {found[failure]}")
    return "\n".join(lines)


@pytest.mark.slow
# a user with no permissions is refused before the database is asked much: on SQLite only
@pytest.mark.parametrize(
    "who", ["superuser", pytest.param("nobody", marks=pytest.mark.any_database)]
)
def test_api_schema_matches_what_the_api_does(app, things, user_with, who) -> None:
    user = user_with(username=who, is_superuser=who == "superuser", is_staff=who == "superuser")
    _token, key = tokens.create(user=user)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", app)
    schema.config.generation.update(with_security_parameters=False)
    found = findings_of(app, schema, things, key, CASES if user.is_superuser else REFUSED_CASES)
    print(report(found))
    held = {failure: why for failure, why in found.items() if not measured_only(failure)}
    assert not held, report(held)


def measured_only(failure: Failure) -> bool:
    return set(type(failure).checks) <= {check.__name__ for check in MEASURED}
