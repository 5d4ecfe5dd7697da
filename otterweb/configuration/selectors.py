"""Configuration management, the reads: servers' plans (their roles' configurations in
dependency order), how a run went on each server, and the rollups by server, role and
environment that the pages and the API show, each in a fixed number of queries."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from django.db.models import Prefetch
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.crypto import salted_hmac

from engine import (
    CombinedPlan,
    Level,
    OtterSyntaxError,
    PlanPart,
    called_modules,
    combine_plan,
    json_dumps,
    parse,
)
from otterweb.configuration.models import Check, ConfigurationRun, DriftItem, ServerState, State
from otterweb.execution_logs.models import LogEntry, LogScope
from otterweb.executions.models import Execution
from otterweb.inventory.models import Environment, Role, Server
from otterweb.inventory.selectors import (
    RoleCycle,
    descendants,
    resolve_variables,
    role_graph,
    roles_in_order,
    servers_for,
    variable_table,
)
from otterweb.privileges.checks import environments_inside, visible
from otterweb.rafts.models import RaftItem
from otterweb.rafts.selectors import find_item
from otterweb.schedules.models import Schedule

NO_CONFIGURATION = "none of its roles has a configuration"


@dataclass(frozen=True)
class RolePart:
    role_id: int
    role_name: str
    item_id: int
    item_name: str  # raft::item

    def as_json(self) -> dict:
        return {
            "role": self.role_id,
            "name": self.role_name,
            "item": self.item_id,
            "item_name": self.item_name,
        }


@dataclass
class PlanGroup:
    """Servers whose plans are the same, with that plan."""

    parts: tuple[RolePart, ...]
    plan: CombinedPlan
    servers: list[Server] = field(default_factory=list)

    def origins(self) -> dict[int, list]:
        """By line of the plan's text: [role pk, raft item pk, line in the item]."""
        return {
            line: [self.parts[o.part].role_id, self.parts[o.part].item_id, o.line]
            for line, o in self.plan.origins.items()
        }


@dataclass(frozen=True)
class ServerPlan:
    """A server's plan for its page: its roles in order (with those that have no
    configuration), the plan's text with each role's lines, or why there is none."""

    roles: list[Role]
    parts: tuple[RolePart, ...]
    plan: CombinedPlan | None
    problem: str = ""

    def marked_lines(self) -> list[tuple[int, str, str]]:
        """Each line of the plan's text with its number and the role whose part it is in."""
        if self.plan is None:
            return []
        owner = {}
        for part, (first, last) in zip(self.parts, self.plan.part_lines, strict=True):
            for line in range(first, last + 1):
                owner[line] = part.role_name
        return [
            (number, owner.get(number, ""), text)
            for number, text in enumerate(self.plan.text.splitlines(), 1)
        ]


class _Roles:
    """Every role with its configuration and dependencies, read once for many servers."""

    def __init__(self) -> None:
        self.by_pk = {
            role.pk: role
            for role in Role.objects.select_related("configuration__raft").order_by("name")
        }
        self.graph = role_graph()
        self.names = {pk: role.name for pk, role in self.by_pk.items()}
        self._plans: dict[tuple[int, ...], tuple[tuple[RolePart, ...], CombinedPlan | None]] = {}

    def ordered(self, role_ids: list[int]) -> list[Role]:
        ids = sorted(role_ids, key=lambda pk: self.names[pk])
        return [self.by_pk[pk] for pk in roles_in_order(ids, graph=self.graph, names=self.names)]

    def plan(self, roles: list[Role]) -> tuple[tuple[RolePart, ...], CombinedPlan | None]:
        """The parts of the configured roles, and their combined plan (None without parts).
        Raises OtterSyntaxError for a configuration that does not parse."""
        key = tuple(role.pk for role in roles)
        if key not in self._plans:
            configured = [
                (role, role.configuration) for role in roles if role.configuration is not None
            ]
            parts = tuple(
                RolePart(role.pk, role.name, item.pk, str(item)) for role, item in configured
            )
            plan = (
                combine_plan(
                    [
                        PlanPart(f"Role {role.name}", str(item), item.content)
                        for role, item in configured
                    ]
                )
                if configured
                else None
            )
            self._plans[key] = (parts, plan)
        return self._plans[key]


def _plan_or_problem(roles: _Roles, role_ids: list[int]):
    """(ordered roles, parts, plan, problem)."""
    try:
        ordered = roles.ordered(role_ids)
    except RoleCycle as cycle:
        return [], (), None, str(cycle)
    try:
        parts, plan = roles.plan(ordered)
    except OtterSyntaxError as error:  # "raft::web:1:14: error: expected ..."
        return ordered, (), None, f"a configuration does not parse: {str(error).splitlines()[0]}"
    if plan is None:
        return ordered, (), None, NO_CONFIGURATION
    return ordered, parts, plan, ""


def server_plan(*, server: Server) -> ServerPlan:
    roles = _Roles()
    ordered, parts, plan, problem = _plan_or_problem(
        roles, list(server.roles.values_list("pk", flat=True))
    )
    return ServerPlan(ordered, parts, plan, problem)


def plan_groups(*, servers: list[Server], skipped: dict[str, str]) -> list[PlanGroup]:
    """``servers`` grouped by plan; those without one go into ``skipped`` with why."""
    roles = _Roles()
    role_ids: dict[int, list[int]] = defaultdict(list)
    through = Server.roles.through.objects.filter(server__in=servers)
    for server_id, role_id in through.values_list("server_id", "role_id"):
        role_ids[server_id].append(role_id)
    groups: dict[tuple[int, ...], PlanGroup] = {}
    for server in servers:
        _, parts, plan, problem = _plan_or_problem(roles, role_ids[server.pk])
        if plan is None:
            skipped[server.name] = problem
            continue
        key = tuple(part.role_id for part in parts)
        groups.setdefault(key, PlanGroup(parts, plan)).servers.append(server)
    return list(groups.values())


def plan_digest(*, servers: list[Server]) -> str:
    """A digest of everything a remediation of ``servers`` would run now: each group's combined
    script text and the modules it calls, the servers it targets (how they are reached and
    with which credential), and every variable each of them sees; or why a server has no plan.
    Keyed (HMAC-SHA256 with the site's secret key): a digest that covers sensitive values gives
    no way to guess them offline."""
    skipped: dict[str, str] = {}
    groups: list[dict[str, Any]] = []
    for group in plan_groups(servers=servers, skipped=skipped):
        groups.append(
            {
                "text": group.plan.text,
                "modules": _called_texts(group.plan.text),
                "servers": sorted(
                    (_target(server) for server in group.servers), key=lambda t: t["name"]
                ),
            }
        )
    groups.sort(key=lambda g: [t["name"] for t in g["servers"]])
    table = variable_table()
    variables = {
        server.name: sorted(
            [v.name, v.scope, bool(v.sensitive), v.value]
            for v in resolve_variables(server=server, variables=table).values()
        )
        for server in sorted(servers, key=lambda server: server.name)
    }
    payload = json_dumps({"groups": groups, "skipped": skipped, "variables": variables})
    return salted_hmac("otterweb.remediation-plan", payload, algorithm="sha256").hexdigest()


def _target(server: Server) -> dict:
    return {
        "name": server.name,
        "agent": server.agent_type,
        "host": server.host,
        "port": server.port,
        "credential": server.credential_id,
        "user": server.user,
        "sudo": server.sudo,
        "active": server.active,
    }


def _called_texts(text: str, *, depth: int = 16) -> list[list]:
    """The modules a script calls (at any depth): [raft, name, their text], in order."""
    found: dict[int, list] = {}
    pending: list[tuple[str, str | None, int]] = [(text, None, 0)]
    while pending:
        current, raft, level = pending.pop()
        try:
            script = parse(current, name="configuration plan")
        except OtterSyntaxError:
            continue
        for called_raft, name in called_modules(script):
            kinds = (RaftItem.Kind.MODULE, RaftItem.Kind.SCRIPT)
            item = find_item(raft=called_raft or raft, name=name, kinds=kinds)
            if item is None and called_raft is None and raft is not None:
                item = find_item(raft=None, name=name, kinds=kinds)
            if item is None or item.pk in found or level >= depth:
                continue
            found[item.pk] = [item.raft.name, item.name, item.content]
            pending.append((item.content, item.raft.name, level + 1))
    return sorted(found.values())


def routine_servers(*, environment: Environment | None) -> list[Server]:
    """The active servers a routine check covers: those in ``environment`` and the
    environments in it; without one, those in no environment that has a check of its own."""
    active = Server.objects.filter(active=True)
    if environment is not None:
        inside = [environment, *descendants(environment=environment)]
        return list(active.filter(environments__in=inside).distinct().order_by("name"))
    own = Environment.objects.filter(
        pk__in=Schedule.objects.filter(
            kind=Schedule.Kind.CONFIGURATION, enabled=True, environment__isnull=False
        ).values("environment")
    )
    covered = set()
    for env in own:
        covered |= {env.pk, *(child.pk for child in descendants(environment=env))}
    return list(active.exclude(environments__in=covered).distinct().order_by("name"))


def server_error(*, execution: Execution, server: Server) -> str:
    """The first error logged in the server's scope (or those in it), for a check's record."""
    children: dict[int | None, list[int]] = defaultdict(list)
    inside: list[int] = []
    for scope, parent, name in LogScope.objects.filter(execution_id=execution.pk).values_list(
        "scope_id", "parent_id", "name"
    ):
        children[parent].append(scope)
        if name == server.name:
            inside.append(scope)
    for scope in inside:  # grows as it goes: every scope below the server's
        inside.extend(children[scope])
    entry = (
        LogEntry.objects.filter(
            execution_id=execution.pk, scope_id__in=inside, level__gte=Level.ERROR
        )
        .order_by("seq")
        .values_list("message", flat=True)
        .first()
    )
    return entry or execution.error or "The check failed on this server."


def role_name(run: ConfigurationRun, role_id: int | None) -> str:
    for part in run.parts:
        if part["role"] == role_id:
            return part["name"]
    return ""


# ---- rollups -------------------------------------------------------------------------------------


@dataclass
class Rollup:
    """States of servers counted: for a role, an environment, or everything."""

    name: str = ""
    counts: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def state(self) -> str:
        """Drifted when any server is; else error, else unknown, else current."""
        for state in (State.DRIFTED, State.ERROR, State.UNKNOWN, State.CURRENT):
            if self.counts.get(state):
                return state
        return State.UNKNOWN

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "state": str(self.state),
            "servers": self.total,
            **{str(state): self.counts.get(state, 0) for state in State},
        }


@dataclass
class Matrix:
    """Servers by roles: each server's state, and each cell's (the server's drift in that
    role's part), with the rollups by role (of the cells: a role is drifted when its part
    drifted on any server) and by environment (of the servers), and the overall counts."""

    servers: list[dict]
    roles: list[str]
    by_role: list[Rollup]
    by_environment: list[Rollup]
    overall: Rollup
    total_servers: int


def matrix(
    *,
    role: str | None = None,
    environment: str | None = None,
    state: str | None = None,
    search: str = "",
    offset: int = 0,
    limit: int | None = None,
    user=None,
) -> Matrix:
    """The configuration matrix, filtered by role, environment (and the environments in it),
    state and a part of the server's name; rollups over every active server ``user`` may see
    (None: all). A fixed number of queries whatever the number of servers."""
    servers = list(
        visible(user, Server.objects.filter(active=True))
        .select_related("configuration_state")
        .only(
            "pk",
            "name",
            "configuration_state__state",
            "configuration_state__checked",
            "configuration_state__drift_count",
            "configuration_state__last_check_id",
        )
        .order_by("name")
    )
    role_names = dict(Role.objects.values_list("pk", "name"))
    # the environments of the servers the user may see (seeing servers is what this page needs)
    environments = list(visible(user, Environment.objects.all(), "inventory.view_server"))
    env_names = {env.pk: env.name for env in environments}
    needs = _dependency_closure(role_graph())
    roles_of: dict[int, set[int]] = defaultdict(set)  # with the roles they need
    for server_id, role_id in Server.roles.through.objects.values_list("server_id", "role_id"):
        roles_of[server_id] |= needs[role_id]
    envs_of = _environments_of_servers()
    last_checks = [s.configuration_state.last_check_id for s in servers if _state(s).last_check_id]
    drift_cells: dict[tuple[int | None, int | None], int] = Counter()
    for check_id, role_id in DriftItem.objects.filter(server_check__in=last_checks).values_list(
        "server_check_id", "role_id"
    ):
        drift_cells[(check_id, role_id)] += 1

    by_role = {pk: Rollup(name) for pk, name in role_names.items()}
    by_env = {pk: Rollup(name) for pk, name in env_names.items()}
    overall = Rollup("all servers")
    rows = []
    inside = environments_inside({env.pk: env.parent_id for env in environments})
    wanted_envs = None
    if environment:
        wanted_envs = set().union(*(inside[e.pk] for e in environments if e.name == environment))
    around = _counted_in(inside)
    for server in servers:
        current = _state(server)
        overall.counts[current.state] += 1
        for role_id in roles_of[server.pk]:
            by_role[role_id].counts[_cell(current, drift_cells, role_id)] += 1
        # a server counts in its environments and every one they are inside, as jobs target it
        rolled_up = {outer for env_id in envs_of[server.pk] for outer in around.get(env_id, ())}
        for env_id in rolled_up:
            by_env[env_id].counts[current.state] += 1
        if role and role not in {role_names[r] for r in roles_of[server.pk]}:
            continue
        if wanted_envs is not None and not envs_of[server.pk] & wanted_envs:
            continue
        if state and current.state != state:
            continue
        if search and search.casefold() not in server.name.casefold():
            continue
        cells = {
            role_names[role_id]: {
                "state": str(_cell(current, drift_cells, role_id)),
                "drift": drift_cells.get((current.last_check_id, role_id), 0),
            }
            for role_id in roles_of[server.pk]
        }
        rows.append(
            {
                "name": server.name,
                "state": str(current.state),
                "checked": current.checked,
                "drift": current.drift_count,
                "check": current.last_check_id,
                "environments": sorted(env_names[e] for e in envs_of[server.pk] & env_names.keys()),
                "roles": cells,
            }
        )
    shown_roles = sorted({name for row in rows for name in row["roles"]})
    page = rows[offset : offset + limit if limit is not None else None]
    return Matrix(
        servers=page,
        roles=shown_roles,
        by_role=sorted(by_role.values(), key=lambda r: r.name),
        by_environment=sorted(by_env.values(), key=lambda r: r.name),
        overall=overall,
        total_servers=len(rows),
    )


def _environments_of_servers() -> dict[int, set[int]]:
    """Each server's id: the ids of the environments it is in (itself, not those they are in)."""
    envs_of: dict[int, set[int]] = defaultdict(set)
    for server_id, env_id in Server.environments.through.objects.values_list(
        "server_id", "environment_id"
    ):
        envs_of[server_id].add(env_id)
    return envs_of


def _counted_in(inside: dict[int, set[int]]) -> dict[int, set[int]]:
    """Each environment (from `environments_inside`): it and those it is inside, where a server
    in it counts too, as jobs target it."""
    return {pk: {outer for outer, within in inside.items() if pk in within} for pk in inside}


def _cell(state: ServerState, drift_cells: dict, role_id: int) -> str:
    """A server's state in one role's part of its plan: drifted only where that part drifted."""
    if state.state == State.DRIFTED and not drift_cells.get((state.last_check_id, role_id)):
        return State.CURRENT
    return state.state


def _dependency_closure(graph: dict[int, list[int]]) -> dict[int, set[int]]:
    """Each role with every role it needs, directly or not (a circle ends the walk)."""
    closure: dict[int, set[int]] = {}
    for role in graph:
        found, pending = {role}, list(graph[role])
        while pending:
            needed = pending.pop()
            if needed not in found:
                found.add(needed)
                pending.extend(graph.get(needed, ()))
        closure[role] = found
    return closure


_UNCHECKED = ServerState(state=State.UNKNOWN)


def _state(server: Server) -> ServerState:
    return getattr(server, "configuration_state", None) or _UNCHECKED


def server_history(*, server: Server, limit: int = 20) -> list[Check]:
    """The server's last finished checks, newest first, with their runs' executions."""
    return list(
        Check.objects.filter(server=server, finished=True)
        .select_related("run__execution")
        .prefetch_related(
            Prefetch("drift_items", queryset=DriftItem.objects.select_related("role", "raft_item"))
        )
        .order_by("-checked", "-pk")[:limit]
    )


def servers_in_scope(
    *, server: str | None = None, role: str | None = None, environment: str | None = None
) -> list[Server]:
    """The active servers a "check now" or "remediate" on a server, a role (in an environment,
    optionally) or an environment covers: as a job targets them (nothing named: none)."""
    return servers_for(
        servers=[server] if server else [],
        roles=[role] if role else [],
        environments=[environment] if environment else [],
    )


def scope_label(*, server: str | None, role: str | None, environment: str | None) -> str:
    if server:
        return f"server {server}"
    label = f"role {role}" if role else ""
    if environment:
        label = f"{label} in environment {environment}" if label else f"environment {environment}"
    return label


def drift_of(*, check: Check) -> list[DriftItem]:
    return list(check.drift_items.select_related("role", "raft_item__raft"))


# ---- the dashboard's view of the configuration ------------------------------------------------


@dataclass
class DriftHistory:
    """Servers found drifted on each of the last days (oldest first), for everything the user
    may see and for each environment (a server in an environment counts in those it is inside)."""

    days: list[date]
    overall: list[int]
    by_environment: dict[str, list[int]]


def drift_history(*, user=None, days: int = 14, today: date | None = None) -> DriftHistory:
    """How many servers a check found drifted, each of the last ``days`` days. Three queries
    whatever the number of servers and checks."""
    today = today or timezone.localdate()
    first = today - timedelta(days=days - 1)
    dates = [first + timedelta(days=n) for n in range(days)]
    column = {day: n for n, day in enumerate(dates)}
    servers = visible(user, Server.objects.filter(active=True)).values("pk")
    found = (
        Check.objects.filter(
            server__in=servers,
            state=State.DRIFTED,
            checked__date__gte=first,
            checked__date__lte=today,
        )
        .annotate(day=TruncDate("checked"))
        .values_list("server_id", "day")
        .distinct()
    )
    environments = list(visible(user, Environment.objects.all(), "inventory.view_server"))
    inside = environments_inside({env.pk: env.parent_id for env in environments})
    around = _counted_in(inside)
    envs_of = {
        server_id: {outer for env_id in own for outer in around.get(env_id, ())}
        for server_id, own in _environments_of_servers().items()
    }
    overall = [0] * days
    by_env = {env.pk: [0] * days for env in environments}
    for server_id, day in found:
        if day not in column:
            continue
        overall[column[day]] += 1
        for env_id in envs_of.get(server_id, ()):
            by_env[env_id][column[day]] += 1
    names = {env.pk: env.name for env in environments}
    return DriftHistory(
        days=dates,
        overall=overall,
        by_environment={
            names[pk]: counts for pk, counts in sorted(by_env.items(), key=lambda i: names[i[0]])
        },
    )


def unreachable_servers(*, user=None, limit: int = 10) -> tuple[list[Server], int]:
    """The active servers whose last check could not reach them (the first ``limit`` by name),
    and how many there are."""
    servers = visible(user, Server.objects.filter(active=True, reachable=False)).order_by("name")
    return list(servers.only("name", "check_error", "last_checked")[:limit]), servers.count()
