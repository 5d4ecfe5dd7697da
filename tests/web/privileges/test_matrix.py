"""The privilege matrix: each built-in role on each kind of scope (everything, the
environment Testing, the raft alpha), against the API, the pages, the log download and the
websocket, for objects in Testing and in Production. The expected answers are worked out here
from the roles' meaning, not read from the product's tables."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from otterweb.executions.models import Execution, JobTemplate
from otterweb.executions.services import create_job
from otterweb.inventory.models import Environment, Server
from otterweb.privileges import services
from otterweb.privileges.models import Role
from otterweb.rafts.models import Raft, RaftItem
from tests.web.execution_logs.sockets import communicator

ROLES = ["Viewer", "Operator", "Editor", "Administrator"]
SCOPES = ["everything", "Testing", "alpha"]
# what each role may do, in words of this test
RUNS = {"Operator", "Administrator"}
EDITS = {"Editor", "Administrator"}
ADMINISTERS = {"Administrator"}


@dataclass
class World:
    testing: Environment
    production: Environment
    t1: Server
    p1: Server
    alpha: Raft
    beta: Raft
    deploy: RaftItem  # alpha's, run by the Testing template
    other: RaftItem  # beta's, run by the Production template
    test_template: JobTemplate
    prod_template: JobTemplate
    test_run: Execution
    prod_run: Execution


@pytest.fixture
def world(db) -> World:
    return make_world()


def make_world() -> World:
    testing = Environment.objects.create(name="Testing")
    production = Environment.objects.create(name="Production")
    t1 = Server.objects.create(name="t1", host="127.0.0.1", agent_type=Server.AgentType.SSH)
    t1.environments.add(testing)
    p1 = Server.objects.create(name="p1", host="127.0.0.1", agent_type=Server.AgentType.SSH)
    p1.environments.add(production)
    alpha, beta = Raft.objects.create(name="alpha"), Raft.objects.create(name="beta")
    deploy = RaftItem.objects.create(raft=alpha, name="deploy", content="Log-Information hi;")
    other = RaftItem.objects.create(raft=beta, name="other", content="Log-Information hi;")
    test_template = JobTemplate.objects.create(
        name="test-deploy", raft_item=deploy, targeting=JobTemplate.Targeting.SERVERS
    )
    test_template.servers.add(t1)
    prod_template = JobTemplate.objects.create(
        name="prod-deploy", raft_item=other, targeting=JobTemplate.Targeting.SERVERS
    )
    prod_template.servers.add(p1)
    test_run = create_job(raft_item=deploy, servers=["t1"])
    prod_run = create_job(raft_item=other, servers=["p1"])
    return World(
        testing,
        production,
        t1,
        p1,
        alpha,
        beta,
        deploy,
        other,
        test_template,
        prod_template,
        test_run,
        prod_run,
    )


def holder(world: World, role: str, scope: str):
    """A user holding ``role`` on ``scope``, and nothing else."""
    user = get_user_model().objects.create_user(username=f"{role}-{scope}".lower())
    services.grant(
        role=Role.objects.get(name=role),
        user=user,
        environment=world.testing if scope == "Testing" else None,
        raft=world.alpha if scope == "alpha" else None,
    )
    return user


def covers(scope: str, where: str) -> bool:
    """Whether a grant on ``scope`` reaches an object that is ``where``: "Testing" or
    "Production" (by its environments), "alpha" or "beta" (a raft and its items), or a template
    "Testing+alpha" (targets in Testing, script in alpha)."""
    return scope == "everything" or scope in where.split("+")


def seen(scope: str, where: str, ok: int) -> int:
    return ok if covers(scope, where) else 404


def acted(role: str, allowed: set[str], scope: str, where: str, ok: int) -> int:
    """An action: 403 for a role that may not do it anywhere, then 404 for what one may not
    see; what one sees, one's role may do there."""
    if role not in allowed:
        return 403
    return ok if covers(scope, where) else 404


def run_answer(role: str, scope: str, where: str) -> int:
    """Running a template: the permission to run must be held somewhere (403), the template
    seen (404), and the run permission held on its targets' environments, which a raft's grant
    never gives (403)."""
    if role not in RUNS:
        return 403
    if not covers(scope, where):
        return 404
    environment = where.split("+")[0]
    return 201 if scope in ("everything", environment) else 403


def answers(api: APIClient, page, world: World) -> dict[str, object]:
    w = world
    return {  # in this order: the runs started below are not in the list
        "executions listed": sorted(e["id"] for e in api.get("/api/executions/").json()["results"]),
        "servers listed": sorted(s["name"] for s in api.get("/api/servers/").json()["results"]),
        "server t1": api.get("/api/servers/t1/").status_code,
        "server p1": api.get("/api/servers/p1/").status_code,
        "environment Production": api.get("/api/environments/Production/").status_code,
        "change t1": api.patch("/api/servers/t1/", {"description": "x"}).status_code,
        "change p1": api.patch("/api/servers/p1/", {"description": "x"}).status_code,
        "move t1 to Production": api.patch(
            "/api/servers/t1/", {"environments": ["Testing", "Production"]}
        ).status_code,
        "rafts listed": sorted(r["name"] for r in api.get("/api/rafts/").json()["results"]),
        "edit deploy": api.patch(
            f"/api/raft-items/{w.deploy.pk}/", {"content": "Log-Information edited;"}
        ).status_code,
        "edit other": api.patch(
            f"/api/raft-items/{w.other.pk}/", {"content": "Log-Information edited;"}
        ).status_code,
        "templates listed": sorted(
            t["name"] for t in api.get("/api/job-templates/").json()["results"]
        ),
        "run test-deploy": api.post(f"/api/job-templates/{w.test_template.pk}/launch/").status_code,
        "run prod-deploy": api.post(f"/api/job-templates/{w.prod_template.pk}/launch/").status_code,
        "run a script on p1": api.post(
            "/api/executions/", {"script": "Log-Information x;", "servers": ["p1"]}
        ).status_code,
        "execution on p1": api.get(f"/api/executions/{w.prod_run.pk}/").status_code,
        "log download p1": api.get(f"/api/executions/{w.prod_run.pk}/log/download/").status_code,
        "log search p1": api.get(
            f"/api/executions/{w.prod_run.pk}/log/search/", {"q": "hi"}
        ).status_code,
        "cancel on t1": api.post(f"/api/executions/{w.test_run.pk}/cancel/").status_code,
        "cancel on p1": api.post(f"/api/executions/{w.prod_run.pk}/cancel/").status_code,
        "check p1": api.post("/api/configuration/check/", {"server": "p1"}).status_code,
        "page server p1": page.get(reverse("server-detail", args=["p1"])).status_code,
        "page execution on p1": page.get(
            reverse("execution-detail", args=[w.prod_run.pk])
        ).status_code,
        "page log.txt on p1": page.get(
            reverse("execution-log-text", args=[w.prod_run.pk])
        ).status_code,
        "page raft beta": page.get(reverse("raft-detail", args=["beta"])).status_code,
        "page run prod-deploy": page.get(
            reverse("template-launch", args=[w.prod_template.pk])
        ).status_code,
    }


def expected(role: str, scope: str, world: World) -> dict[str, object]:
    servers = [
        name for name, where in [("p1", "Production"), ("t1", "Testing")] if covers(scope, where)
    ]
    return {
        "executions listed": sorted(
            [world.test_run.pk] * covers(scope, "Testing")
            + [world.prod_run.pk] * covers(scope, "Production")
        ),
        "servers listed": servers,
        "server t1": seen(scope, "Testing", 200),
        "server p1": seen(scope, "Production", 200),
        "environment Production": seen(scope, "Production", 200),
        "change t1": acted(role, ADMINISTERS, scope, "Testing", 200),
        "change p1": acted(role, ADMINISTERS, scope, "Production", 200),
        # into an environment outside the grant: refused, even to an administrator of Testing
        "move t1 to Production": (
            acted(role, ADMINISTERS, scope, "Testing", 200 if scope == "everything" else 403)
        ),
        "rafts listed": [name for name in ["alpha", "beta"] if covers(scope, name)],
        # raft items are in their raft only
        "edit deploy": acted(role, EDITS, scope, "alpha", 200),
        "edit other": acted(role, EDITS, scope, "beta", 200),
        "templates listed": [
            name
            for name, where in [
                ("prod-deploy", "Production+beta"),
                ("test-deploy", "Testing+alpha"),
            ]
            if covers(scope, where)
        ],
        "run test-deploy": run_answer(role, scope, "Testing+alpha"),
        "run prod-deploy": run_answer(role, scope, "Production+beta"),
        "run a script on p1": 201 if role in RUNS and scope == "everything" else 403,
        "execution on p1": seen(scope, "Production", 200),
        "log download p1": seen(scope, "Production", 200),
        "log search p1": seen(scope, "Production", 200),
        "cancel on t1": acted(role, RUNS, scope, "Testing", 202),
        "cancel on p1": acted(role, RUNS, scope, "Production", 202),
        # the servers one may not see are not in the scope asked for: nothing to check
        "check p1": (403 if role not in RUNS else 202 if covers(scope, "Production") else 400),
        "page server p1": seen(scope, "Production", 200),
        "page execution on p1": seen(scope, "Production", 200),
        "page log.txt on p1": seen(scope, "Production", 200),
        "page raft beta": seen(scope, "beta", 200),
        "page run prod-deploy": seen(scope, "Production+beta", 200),
    }


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("role", ROLES)
def test_privileges_answer_as_the_role_and_scope_say(world, client, role, scope) -> None:
    user = holder(world, role, scope)
    api = APIClient()
    api.force_authenticate(user)
    client.force_login(user)
    world.test_run.refresh_from_db()
    assert answers(api, client, world) == expected(role, scope, world)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("scope", SCOPES)
async def test_privileges_websocket_shows_only_executions_in_scope(scope) -> None:
    world = await sync_to_async(make_world)()
    user = await sync_to_async(holder)(world, "Viewer", scope)
    for execution, where in [(world.test_run, "Testing"), (world.prod_run, "Production")]:
        connection = communicator(execution.pk, user)
        connected, code = await connection.connect()
        if covers(scope, where):
            assert connected, f"a Viewer of {scope} should watch the run in {where}"
            assert (await connection.receive_json_from())["type"] == "status"
        else:
            assert (connected, code) == (False, 4404), f"a Viewer of {scope} watched {where}"
        await connection.disconnect()
