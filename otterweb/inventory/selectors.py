"""Reading the inventory: the servers of a job, the variables a server sees, the environment
tree, what stands in the way of a deletion, a server's recent executions, and the packages the
server checks collected."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TypeAlias

from django.db.models import Q, QuerySet, TextChoices

from engine import Manager, Value, compare_versions
from otterweb.inventory.models import (
    Credential,
    Environment,
    InstalledPackage,
    Role,
    Server,
    Variable,
)


@dataclass(frozen=True)
class ResolvedVariable:
    name: str
    value: Value
    sensitive: bool
    scope: str  # "server web1", "environment Production", "role web", "global"
    shadowed: tuple[str, ...] = ()  # the scopes that also define it, in resolution order


Scope: TypeAlias = tuple[str, int | None]  # ("server", pk), ("environment", pk), ("role", pk)
GLOBAL: Scope = ("global", None)


def _scope_of(variable: Variable) -> Scope:
    for kind, pk in (
        ("server", variable.server_id),
        ("environment", variable.environment_id),
        ("role", variable.role_id),
    ):
        if pk is not None:
            return (kind, pk)
    return GLOBAL


class VariableTable:
    """Variables by the scope they belong to, read at once: what resolution works on. Each
    value is decrypted and read once, however many servers see it."""

    def __init__(self, variables: Iterable[Variable]) -> None:
        self._at: dict[Scope, list[Variable]] = {}
        for variable in variables:
            self._at.setdefault(_scope_of(variable), []).append(variable)
        self._values: dict[int, Value] = {}

    def at(self, scope: Scope) -> list[Variable]:
        """The variables of ``scope``, by name."""
        return self._at.get(scope, [])

    def value(self, variable: Variable) -> Value:
        if variable.pk not in self._values:
            self._values[variable.pk] = variable.runtime_value()
        return self._values[variable.pk]


def variable_table(*, scopes: Iterable[Scope] | None = None) -> VariableTable:
    """The variables of ``scopes`` (of every scope when None), in one query."""
    if scopes is None:
        return VariableTable(Variable.objects.all())
    where = Q()
    for kind, pk in scopes:
        where |= (
            Q(server=None, environment=None, role=None)
            if (kind, pk) == GLOBAL
            else Q(**{f"{kind}_id": pk})
        )
    return VariableTable(Variable.objects.filter(where) if where else ())


def scope_order(server: Server, role: Role | None = None) -> list[tuple[str, Scope]]:
    """Where a server's variables come from, first match winning: the server, its environments
    (each before its parent; several environments by name), the role in context then its
    other roles (by name), then global."""
    scopes: list[tuple[str, Scope]] = [(f"server {server.name}", ("server", server.pk))]
    seen: set[int] = set()
    for environment in sorted(server.environments.all(), key=lambda e: e.name):
        for ancestor in environment.lineage():
            if ancestor.pk not in seen:
                seen.add(ancestor.pk)
                scopes.append((f"environment {ancestor.name}", ("environment", ancestor.pk)))
    roles = sorted(server.roles.all(), key=lambda r: (role is None or r.pk != role.pk, r.name))
    scopes.extend((f"role {r.name}", ("role", r.pk)) for r in roles)
    scopes.append(("global", GLOBAL))
    return scopes


def resolve_scopes(
    scopes: list[tuple[str, Scope]], variables: VariableTable
) -> dict[str, ResolvedVariable]:
    """The variables of ``scopes`` (labelled, in resolution order) by case-insensitive name,
    each from the first scope that has it."""
    resolved: dict[str, ResolvedVariable] = {}
    shadowed: dict[str, list[str]] = {}
    for label, scope in scopes:
        for variable in variables.at(scope):
            key = variable.name.casefold()
            if key in resolved:
                shadowed.setdefault(key, []).append(label)
                continue
            resolved[key] = ResolvedVariable(
                variable.name, variables.value(variable), variable.sensitive, label
            )
    return {
        key: ResolvedVariable(v.name, v.value, v.sensitive, v.scope, tuple(shadowed.get(key, ())))
        for key, v in resolved.items()
    }


def resolve_variables(
    *, server: Server, role: Role | None = None, variables: VariableTable | None = None
) -> dict[str, ResolvedVariable]:
    """Every configuration variable ``server`` sees, by case-insensitive name, with the scope
    that supplied it. ``variables`` spares the query for them (see ``variable_table``)."""
    scopes = scope_order(server, role)
    if variables is None:
        variables = variable_table(scopes=[scope for _label, scope in scopes])
    return resolve_scopes(scopes, variables)


def global_variables(*, variables: VariableTable) -> dict[str, ResolvedVariable]:
    """The global variables: what a run sees outside any server."""
    return resolve_scopes([("global", GLOBAL)], variables)


def variable_at(
    *,
    name: str,
    server: Server | None = None,
    environment: Environment | None = None,
    role: Role | None = None,
) -> Variable | None:
    """The variable ``name`` (any case, with or without its sigil) set at exactly this scope
    (global when none is given)."""
    return Variable.objects.filter(
        name__iexact=name.strip().lstrip("$@%"),
        server=server,
        environment=environment,
        role=role,
    ).first()


def active_servers() -> list[Server]:
    """The active servers, with their roles and environments, and every environment's parents
    linked in memory (``lineage()`` walks them without a query): four queries in all."""
    servers = list(Server.objects.filter(active=True).prefetch_related("roles", "environments"))
    environments = {e.pk: e for e in Environment.objects.all()}
    for environment in [
        *environments.values(),
        *(e for s in servers for e in s.environments.all()),
    ]:
        parent_id = environment.parent_id
        environment.parent = environments.get(parent_id) if parent_id is not None else None
    return servers


def servers_for(
    *,
    servers: Collection[str] = (),
    roles: Collection[str] = (),
    environments: Collection[str] = (),
) -> list[Server]:
    """The active servers a job targets: named ones, plus those with any of the roles in any
    of the environments (either side may be left empty to mean all)."""
    chosen = {s.pk: s for s in Server.objects.filter(active=True, name__in=list(servers))}
    if roles or environments:
        query = Server.objects.filter(active=True)
        if roles:
            query = query.filter(roles__name__in=list(roles))
        if environments:
            names = set(environments)
            for environment in Environment.objects.filter(name__in=list(environments)):
                names.update(child.name for child in descendants(environment=environment))
            query = query.filter(environments__name__in=names)
        chosen.update({s.pk: s for s in query.distinct()})
    return sorted(chosen.values(), key=lambda s: s.name)


def descendants(*, environment: Environment) -> list[Environment]:
    """Its children, their children, and so on."""
    found, pending = [], list(environment.children.all())
    while pending:
        child = pending.pop()
        if child not in found:
            found.append(child)
            pending.extend(child.children.all())
    return found


@dataclass
class EnvironmentNode:
    environment: Environment
    children: list[EnvironmentNode] = field(default_factory=list)

    @property
    def direct_servers(self) -> int:
        return len(self.environment.servers.all())

    @property
    def servers(self) -> int:
        """The servers in this environment or in any inside it (each once)."""
        found: set[int] = set()
        pending = [self]
        while pending:
            node = pending.pop()
            found.update(server.pk for server in node.environment.servers.all())
            pending.extend(node.children)
        return len(found)


def environment_tree(
    *, root: Environment | None = None, shown: set[int] | None = None
) -> list[EnvironmentNode]:
    """The environments as a forest, each level by name: every environment when ``root`` is
    None, else the subtree under ``root`` (without it); only those in ``shown`` when given (one
    whose parent is not shown is a root). One query."""
    environments = list(Environment.objects.order_by("name").prefetch_related("servers"))
    if shown is not None:
        environments = [e for e in environments if e.pk in shown]
    kept = {e.pk for e in environments}
    by_parent: dict[int | None, list[Environment]] = {}
    for environment in environments:
        parent = environment.parent_id if environment.parent_id in kept else None
        by_parent.setdefault(parent, []).append(environment)
    seen: set[int] = set()

    def nodes(parent_id: int | None) -> list[EnvironmentNode]:
        level = []
        for environment in by_parent.get(parent_id, []):
            if environment.pk not in seen:  # a cycle written behind the services' back
                seen.add(environment.pk)
                level.append(EnvironmentNode(environment, nodes(environment.pk)))
        return level

    return nodes(root.pk if root is not None else None)


def role_dependencies(*, role: Role) -> list[Role]:
    """The roles ``role`` needs, directly or through the roles it needs, by name."""
    found: dict[int, Role] = {}
    pending = list(role.dependencies.all())
    while pending:
        dependency = pending.pop()
        if dependency.pk not in found:
            found[dependency.pk] = dependency
            pending.extend(dependency.dependencies.all())
    return sorted(found.values(), key=lambda r: r.name)


class RoleCycle(ValueError):
    """Roles that depend on each other in a circle; ``path`` names them from the first back to
    it (web, app, web)."""

    def __init__(self, path: list[str]) -> None:
        self.path = path
        super().__init__(f"The roles depend on each other in a circle: {' → '.join(path)}.")


def role_graph() -> dict[int, list[int]]:
    """Every role's direct dependencies, by primary key, in one query."""
    graph: dict[int, list[int]] = {pk: [] for pk in Role.objects.values_list("pk", flat=True)}
    through = Role.dependencies.through.objects.values_list("from_role_id", "to_role_id")
    for role, dependency in through.order_by("from_role_id", "to_role__name"):
        graph[role].append(dependency)
    return graph


def roles_in_order(
    roles: Iterable[int], *, graph: dict[int, list[int]], names: dict[int, str]
) -> list[int]:
    """``roles`` with everything they depend on, dependencies first and each once (roles side
    by side in ``roles``' order). Raises RoleCycle with the circle's path."""
    ordered: list[int] = []
    done: set[int] = set()
    path: list[int] = []

    def visit(role: int) -> None:
        if role in done:
            return
        if role in path:
            circle = [*path[path.index(role) :], role]
            raise RoleCycle([names[pk] for pk in circle])
        path.append(role)
        for dependency in graph.get(role, ()):
            visit(dependency)
        path.pop()
        done.add(role)
        ordered.append(role)

    for role in roles:
        visit(role)
    return ordered


def _names(objects) -> str:
    return ", ".join(str(o) for o in objects)


def deletion_blockers(*, obj: Environment | Role | Server | Credential) -> list[str]:
    """Why ``obj`` cannot be deleted now, for people; empty when it can."""
    if isinstance(obj, Environment):
        children = list(obj.children.order_by("name"))
        if children:
            return [
                f"{obj} contains other environments ({_names(children)}). Delete them, or give "
                "them another parent, first."
            ]
    if isinstance(obj, Credential):
        servers = list(obj.servers.order_by("name"))
        if servers:
            return [
                f"Servers log in with {obj} ({_names(servers)}). Give them another credential, "
                "or none, first."
            ]
    return []


def deletion_consequences(*, obj: Environment | Role | Server | Credential) -> list[str]:
    """What else goes, or changes, when ``obj`` is deleted, for people."""
    consequences = []
    variables = getattr(obj, "variables", None)
    if variables is not None and (count := variables.count()):
        consequences.append(
            f"Its {count} variable{'s' if count != 1 else ''} will be deleted with it."
        )
    if isinstance(obj, Environment) and (listed := list(obj.servers.order_by("name"))):
        consequences.append(f"These servers will no longer be in it: {_names(listed)}.")
    if isinstance(obj, Role) and (listed := list(obj.servers.order_by("name"))):
        consequences.append(f"These servers will no longer have this role: {_names(listed)}.")
    if isinstance(obj, Role) and (dependents := list(obj.dependents.order_by("name"))):
        consequences.append(f"These roles will no longer depend on it: {_names(dependents)}.")
    templates = getattr(obj, "job_templates", None)
    if templates is not None and (listed := list(templates.order_by("name"))):
        consequences.append(f"These job templates will no longer target it: {_names(listed)}.")
    return consequences


# ---- the collected inventory


class VersionTest(TextChoices):
    """How a package's version is compared with the one searched for."""

    OLDER = "older", "older than"
    AT_LEAST = "at-least", "at least"
    EXACTLY = "exactly", "exactly"

    def passes(self, manager: str, version: str, searched: str) -> bool:
        order = compare_versions(Manager(manager), version, searched)
        if self is VersionTest.OLDER:
            return order < 0
        return order >= 0 if self is VersionTest.AT_LEAST else order == 0


def operating_systems(*, servers: QuerySet[Server]) -> list[str]:
    """The operating systems of ``servers`` (``debian-12``), each once, in order."""
    return sorted(set(servers.exclude(system="").values_list("system", flat=True)))


def find_packages(
    *,
    servers: QuerySet[Server],
    name: str = "",
    test: VersionTest | None = None,
    version: str = "",
    system: str = "",
) -> QuerySet[InstalledPackage] | list[InstalledPackage]:
    """The packages installed on ``servers``: called ``name`` (any case; any name when empty),
    on the operating system ``system`` (``debian-12``; any when empty), by server, name and
    architecture. With a ``version``, only those whose version passes ``test`` against it, in
    the order of each package's manager (compared here, so a list)."""
    found = InstalledPackage.objects.filter(server__in=servers).select_related("server")
    if name.strip():
        found = found.filter(name__iexact=name.strip())
    if system:
        found = found.filter(server__system=system)
    found = found.order_by("server__name", "name", "architecture")
    if test is None or not version:
        return found
    return [p for p in found if test.passes(p.manager, p.version, version)]


def servers_running(*, servers: QuerySet[Server], system: str) -> QuerySet[Server]:
    """The servers of ``servers`` whose operating system is ``system`` (``debian-12``)."""
    return servers.filter(system=system).order_by("name")
