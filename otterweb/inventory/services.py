"""Writing the inventory. Views, the admin and the API call these, never the models directly."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from engine.errors import OtterSyntaxError
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable, literal_value


def validate_literal(value: str) -> None:
    try:
        literal_value(value)
    except OtterSyntaxError as error:
        first = error.diagnostics[0]
        raise ValidationError(
            f"not an OtterScript value: {first.message} (column {first.column})"
        ) from None


@transaction.atomic
def set_variable(
    *, name: str, value: str, sensitive: bool = False, server: Server | None = None,
    environment: Environment | None = None, role: Role | None = None,
) -> Variable:  # fmt: skip
    """Create or change the variable ``name`` at one scope (global when none is given)."""
    if sum(x is not None for x in (server, environment, role)) > 1:
        raise ValidationError(
            "a variable belongs to one scope: a server, an environment, a role, or none (global)"
        )
    name = name.strip().lstrip("$@%")
    if not name:
        raise ValidationError("a variable needs a name")
    validate_literal(value)
    variable, _created = Variable.objects.update_or_create(
        name=name,
        server=server,
        environment=environment,
        role=role,
        defaults={"value": value, "sensitive": sensitive},
    )
    return variable


@transaction.atomic
def save_credential(
    *, name: str, kind: str = Credential.Kind.PASSWORD, username: str = "", secret: str | None = None,
    environments: list[Environment] | None = None, description: str = "",
) -> Credential:  # fmt: skip
    """Create or change a credential. ``secret=None`` keeps the stored secret (it is write-only)."""
    credential, _created = Credential.objects.get_or_create(name=name)
    credential.kind = kind
    credential.username = username
    credential.description = description
    if secret is not None:
        credential.set_secret(secret)
    credential.full_clean(exclude=["encrypted_secret"])
    credential.save()
    if environments is not None:
        credential.environments.set(environments)
    return credential
