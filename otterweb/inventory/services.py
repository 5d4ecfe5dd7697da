"""Writing the inventory. Views, the admin and the API call these, never the models directly.

Refusals are ``ValidationError``s worded for the people who read them; those about one field
are keyed by that field's name, so a form shows them beside it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TypedDict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model

from engine import Inventory, Manager, OtterSyntaxError, Package, fingerprint, literal_value
from otterweb.inventory import selectors
from otterweb.inventory.models import (
    Credential,
    Environment,
    InstalledPackage,
    Remediation,
    Role,
    Server,
    Variable,
)
from otterweb.parse_errors import parse_failure
from otterweb.rafts.models import RaftItem

ONE_SCOPE = next(
    c.violation_error_message
    for c in Variable._meta.constraints
    if c.name == "variable_has_one_scope"
)


def validate_literal(value: str) -> None:
    try:
        literal_value(value)
    except OtterSyntaxError as error:
        raise parse_failure(error, name="value") from None


# ---- variables


class VariableScope(TypedDict):
    """Where a variable belongs: one of them at most, none for a global variable."""

    server: Server | None
    environment: Environment | None
    role: Role | None


def _scope(server, environment, role) -> tuple[str, Model] | None:
    """The one place a variable belongs to, or None for global; two or more are refused."""
    given = [
        (label, owner)
        for label, owner in (("server", server), ("environment", environment), ("role", role))
        if owner is not None
    ]
    if len(given) > 1:
        raise ValidationError({label: ONE_SCOPE for label, _owner in given})
    return given[0] if given else None


def validate_variable(
    *,
    name: str,
    value: str,
    server: Server | None = None,
    environment: Environment | None = None,
    role: Role | None = None,
    variable: Variable | None = None,
) -> str:
    """Everything a save of this variable would refuse, keyed by field; the name to store (its
    sigil dropped). ``variable`` is the one being changed, which may keep its own name."""
    scope = _scope(server, environment, role)
    name = name.strip().lstrip("$@%")
    errors: dict[str, list[str]] = {}
    if not name:
        errors["name"] = ["A variable needs a name."]
    else:
        lookup = (
            {scope[0]: scope[1]} if scope else {"server": None, "environment": None, "role": None}
        )
        clash = Variable.objects.filter(name__iexact=name, **lookup)
        if variable is not None and variable.pk:
            clash = clash.exclude(pk=variable.pk)
        if clash.exists():
            errors["name"] = [
                f"This {scope[0]} already has a variable named {name}."
                if scope
                else f"There is already a global variable named {name}."
            ]
    try:
        validate_literal(value)
    except ValidationError as error:
        errors["value"] = error.messages
    if errors:
        raise ValidationError(errors)
    return name


def _save_variable(variable: Variable, *, name: str, value: str, sensitive: bool) -> Variable:
    variable.name = validate_variable(
        name=name,
        value=value,
        server=variable.server,
        environment=variable.environment,
        role=variable.role,
        variable=variable,
    )
    variable.sensitive = sensitive
    variable.set_literal(value)
    variable.full_clean()
    variable.save()
    return variable


@transaction.atomic
def add_variable(
    *,
    name: str,
    value: str,
    sensitive: bool = False,
    server: Server | None = None,
    environment: Environment | None = None,
    role: Role | None = None,
) -> Variable:
    """A new variable at one scope (global when none is given); a name already used there (in
    any case: variables are looked up regardless of case) is refused."""
    _scope(server, environment, role)
    variable = Variable(server=server, environment=environment, role=role)
    return _save_variable(variable, name=name, value=value, sensitive=sensitive)


UNMASK_NEEDS_VALUE = (
    "To make a sensitive variable ordinary, type its value again: the stored one is never shown."
)


@transaction.atomic
def change_variable(
    *,
    variable: Variable,
    name: str,
    value: str | None,
    sensitive: bool,
    scope: VariableScope | None = None,
) -> Variable:
    """Rename or change ``variable``. ``value=None`` keeps the stored value: a sensitive value
    is write-only, so a form that never showed it sends nothing. ``scope`` (server, environment,
    role: one at most) moves it; without it, it stays where it is."""
    stored = Variable.objects.select_for_update().get(pk=variable.pk)
    if value is None and stored.sensitive and not sensitive:
        raise ValidationError({"value": UNMASK_NEEDS_VALUE})
    if scope is not None:
        _scope(scope["server"], scope["environment"], scope["role"])
        stored.server = scope["server"]
        stored.environment = scope["environment"]
        stored.role = scope["role"]
    return _save_variable(
        stored, name=name, value=stored.literal() if value is None else value, sensitive=sensitive
    )


@transaction.atomic
def set_variable(
    *,
    name: str,
    value: str,
    sensitive: bool = False,
    server: Server | None = None,
    environment: Environment | None = None,
    role: Role | None = None,
) -> Variable:
    """Create or change the variable ``name`` at one scope (global when none is given)."""
    _scope(server, environment, role)
    existing = selectors.variable_at(name=name, server=server, environment=environment, role=role)
    if existing is not None:
        return change_variable(variable=existing, name=name, value=value, sensitive=sensitive)
    return add_variable(
        name=name,
        value=value,
        sensitive=sensitive,
        server=server,
        environment=environment,
        role=role,
    )


def delete_variable(*, variable: Variable) -> None:
    variable.delete()


# ---- environments, roles, servers


def _names(objects: Iterable[Model]) -> str:
    return ", ".join(sorted(str(o) for o in objects))


def _check_unique_name(model, name: str, instance: Model) -> None:
    others = model.objects.filter(name=name)
    if instance.pk:
        others = others.exclude(pk=instance.pk)
    if others.exists():
        kind = model._meta.verbose_name
        article = "an" if kind[0] in "aeiou" else "a"
        raise ValidationError({"name": f"There is already {article} {kind} named {name}."})


def validate_environment(
    *, environment: Environment, name: str, parent: Environment | None
) -> None:
    """What a save of ``environment`` would refuse, keyed by field: a name another one has, a
    parent that is the environment itself or one of its descendants (the tree has no
    cycles)."""
    if parent is not None and environment.pk:
        if parent.pk == environment.pk:
            raise ValidationError({"parent": "An environment cannot be its own parent."})
        if parent.pk in {e.pk for e in selectors.descendants(environment=environment)}:
            raise ValidationError(
                {"parent": f"{parent} is inside {environment}: it cannot also be its parent."}
            )
    _check_unique_name(Environment, name, environment)


@transaction.atomic
def save_environment(
    *,
    environment: Environment | None = None,
    name: str,
    description: str = "",
    parent: Environment | None = None,
) -> Environment:
    """Create an environment, or change ``environment`` (see ``validate_environment``)."""
    environment = environment if environment is not None else Environment()
    validate_environment(environment=environment, name=name, parent=parent)
    environment.name, environment.description, environment.parent = name, description, parent
    environment.full_clean()
    environment.save()
    return environment


def validate_role(*, role: Role, name: str, dependencies: Iterable[Role]) -> None:
    """What a save of ``role`` would refuse, keyed by field: a name another one has, a
    dependency on itself, directly or through the roles it needs (with the circle's path)."""
    if role.pk:
        for dependency in dependencies:
            if dependency.pk == role.pk:
                raise ValidationError({"dependencies": "A role cannot depend on itself."})
        graph = selectors.role_graph()
        graph[role.pk] = [dependency.pk for dependency in dependencies]
        names = dict(Role.objects.values_list("pk", "name")) | {role.pk: name}
        try:
            selectors.roles_in_order([role.pk], graph=graph, names=names)
        except selectors.RoleCycle as cycle:
            raise ValidationError({"dependencies": str(cycle)}) from None
    _check_unique_name(Role, name, role)


@transaction.atomic
def save_role(
    *,
    role: Role | None = None,
    name: str,
    description: str = "",
    dependencies: Iterable[Role] = (),
    configuration: RaftItem | None = None,
    remediation: str = Remediation.REPORT,
) -> Role:
    """Create a role, or change ``role`` (see ``validate_role``). ``configuration``: the
    OtterScript raft item that describes its servers' desired state."""
    role = role if role is not None else Role()
    dependencies = list(dependencies)
    validate_role(role=role, name=name, dependencies=dependencies)
    if configuration is not None and configuration.kind != RaftItem.Kind.SCRIPT:
        raise ValidationError(
            {
                "configuration": f"{configuration} is a {configuration.get_kind_display()}: "
                "a role's configuration is an OtterScript script."
            }
        )
    role.name, role.description = name, description
    role.configuration, role.remediation = configuration, remediation
    role.full_clean()
    role.save()
    role.dependencies.set(dependencies)
    return role


@transaction.atomic
def save_server(
    *,
    server: Server | None = None,
    name: str,
    host: str = "",
    port: int = 22,
    agent_type: str = Server.AgentType.LOCAL,
    active: bool = True,
    credential: Credential | None = None,
    user: str = "",
    sudo: bool = False,
    host_keys: str = "",
    roles: Iterable[Role] = (),
    environments: Iterable[Environment] = (),
    description: str = "",
    remediation: str = "",
) -> Server:
    """Create a server, or change ``server``. ``host_keys``: OpenSSH public key lines (as in
    known_hosts, with or without the host names in front), kept as ``type key`` lines."""
    server = server if server is not None else Server()
    server.name, server.host, server.port, server.agent_type = name, host, port, agent_type
    server.active, server.credential, server.description = active, credential, description
    server.user, server.sudo, server.host_keys = user, sudo, _host_keys(host_keys)
    server.remediation = remediation
    _check_unique_name(Server, name, server)
    server.full_clean()
    server.save()
    server.roles.set(list(roles))
    server.environments.set(list(environments))
    return server


# ---- the collected inventory


@transaction.atomic
def record_packages(
    *, server: Server, manager: Manager, packages: Iterable[Package], collected: datetime
) -> None:
    """Keep ``packages`` as the packages of ``manager`` installed on ``server``: the ones kept
    that are no longer there are deleted, the others changed or added (a server whose packages
    did not change costs one query)."""
    kept = {
        (p.name, p.architecture): p
        for p in InstalledPackage.objects.filter(server=server, manager=manager)
    }
    added: list[InstalledPackage] = []
    changed: list[InstalledPackage] = []
    for package in packages:
        found = kept.pop((package.name, package.architecture), None)
        if found is None:
            added.append(
                InstalledPackage(
                    server=server,
                    manager=manager,
                    name=package.name,
                    version=package.version,
                    architecture=package.architecture,
                )
            )
        elif found.version != package.version:
            found.version = package.version
            changed.append(found)
    if kept:
        InstalledPackage.objects.filter(pk__in=[p.pk for p in kept.values()]).delete()
    InstalledPackage.objects.bulk_update(changed, ["version"], batch_size=500)
    InstalledPackage.objects.bulk_create(added, batch_size=500)
    Server.objects.filter(pk=server.pk).update(packages_collected=collected)


@transaction.atomic
def record_inventory(*, server: Server, inventory: Inventory, collected: datetime) -> None:
    """Keep what a check found ``server`` to be and to have installed. A package manager the
    server does not have has no packages there."""
    Server.objects.filter(pk=server.pk).update(
        facts=inventory.facts(), system=inventory.system, facts_collected=collected
    )
    for manager in Manager:
        record_packages(
            server=server,
            manager=manager,
            packages=inventory.packages.get(manager, ()),
            collected=collected,
        )


def _host_keys(text: str) -> str:
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if not fields[0].startswith(("ssh-", "ecdsa-", "sk-")) and len(fields) > 2:
            fields = fields[1:]  # a known_hosts line: the host names first
        key = " ".join(fields[:2])
        try:
            fingerprint(key)
        except ValueError:
            raise ValidationError(
                {"host_keys": [f"Line {number} is not an OpenSSH public key: '{line[:60]}'."]}
            ) from None
        if key not in keys:
            keys.append(key)
    return "\n".join(keys)


@transaction.atomic
def save_credential(
    *,
    credential: Credential | None = None,
    name: str,
    kind: str = Credential.Kind.PASSWORD,
    username: str = "",
    secret: str | None = None,
    passphrase: str | None = None,
    environments: list[Environment] | None = None,
    description: str = "",
) -> Credential:
    """Create or change a credential: ``credential`` when given (it may be renamed), else the one
    called ``name``. ``secret=None`` keeps the stored secret and ``passphrase=None`` the stored
    passphrase (both are write-only; "" removes them)."""
    if credential is None:
        # one write for a new one (the audit trail shows one create, not a create and a change)
        credential = Credential.objects.filter(name=name).first() or Credential(name=name)
    else:
        credential.name = name
        _check_unique_name(Credential, name, credential)
    credential.kind = kind
    credential.username = username
    credential.description = description
    if secret is not None:
        credential.set_secret(secret)
    if passphrase is not None:
        credential.set_passphrase(passphrase)
    credential.full_clean(exclude=["encrypted_secret", "encrypted_passphrase"])
    credential.save()
    if environments is not None:
        credential.environments.set(environments)
    return credential


def delete_environment(*, environment: Environment) -> None:
    """Refused while it has child environments (they would lose their place in the tree)."""
    if blockers := selectors.deletion_blockers(obj=environment):
        raise ValidationError(blockers)
    environment.delete()


def delete_role(*, role: Role) -> None:
    role.delete()


def delete_server(*, server: Server) -> None:
    server.delete()


def delete_credential(*, credential: Credential) -> None:
    """Refused while servers use it (they would have nothing to log in with)."""
    if blockers := selectors.deletion_blockers(obj=credential):
        raise ValidationError(blockers)
    credential.delete()
