"""Reading the inventory: the servers of a job, and the variables a server sees."""

from __future__ import annotations

from dataclasses import dataclass

from otterweb.inventory.models import Environment, Role, Server, Variable


@dataclass(frozen=True)
class ResolvedVariable:
    name: str
    value: object  # text, list or map
    sensitive: bool
    scope: str  # "server web1", "environment Production", "role web", "global"
    shadowed: tuple[str, ...] = ()  # the scopes that also define it, in resolution order


def scope_order(server: Server, role: Role | None = None) -> list[tuple[str, dict]]:
    """Where a server's variables come from, first match winning: the server, its environments
    (each before its parent; several environments by name), the role in context then its
    other roles (by name), then global."""
    scopes: list[tuple[str, dict]] = [(f"server {server.name}", {"server": server})]
    seen: set[int] = set()
    for environment in sorted(server.environments.all(), key=lambda e: e.name):
        for ancestor in environment.lineage():
            if ancestor.pk not in seen:
                seen.add(ancestor.pk)
                scopes.append((f"environment {ancestor.name}", {"environment": ancestor}))
    roles = sorted(server.roles.all(), key=lambda r: (role is None or r.pk != role.pk, r.name))
    scopes.extend((f"role {r.name}", {"role": r}) for r in roles)
    scopes.append(
        ("global", {"server__isnull": True, "environment__isnull": True, "role__isnull": True})
    )
    return scopes


def resolve_variables(*, server: Server, role: Role | None = None) -> dict[str, ResolvedVariable]:
    """Every configuration variable ``server`` sees, by case-insensitive name, with the scope
    that supplied it."""
    resolved: dict[str, ResolvedVariable] = {}
    shadowed: dict[str, list[str]] = {}
    for label, lookup in scope_order(server, role):
        for variable in Variable.objects.filter(**lookup):
            key = variable.name.casefold()
            if key in resolved:
                shadowed.setdefault(key, []).append(label)
                continue
            resolved[key] = ResolvedVariable(
                variable.name, variable.runtime_value(), variable.sensitive, label
            )
    return {
        key: ResolvedVariable(v.name, v.value, v.sensitive, v.scope, tuple(shadowed.get(key, ())))
        for key, v in resolved.items()
    }


def servers_for(
    *, servers: list[str] = (), roles: list[str] = (), environments: list[str] = ()
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
                names.update(child.name for child in _descendants(environment))
            query = query.filter(environments__name__in=names)
        chosen.update({s.pk: s for s in query.distinct()})
    return sorted(chosen.values(), key=lambda s: s.name)


def _descendants(environment: Environment) -> list[Environment]:
    found, pending = [], list(environment.children.all())
    while pending:
        child = pending.pop()
        if child not in found:
            found.append(child)
            pending.extend(child.children.all())
    return found
