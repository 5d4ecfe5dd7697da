"""Where the inventory's objects are, for privileges (otterweb.privileges.places)."""

from __future__ import annotations

from otterweb.inventory.models import Credential, Environment, Role, Server, Variable
from otterweb.privileges.places import NOWHERE, SHARED, Place, environments_of, register


def variable_place(variable: Variable) -> Place:
    if variable.environment_id:
        return Place(frozenset({variable.environment_id}))
    if variable.server is not None:
        return Place(environments_of(variable.server.environments))
    return NOWHERE


def register_places() -> None:
    register(Environment, lambda environment: Place(frozenset({environment.pk})))
    register(Server, lambda server: Place(environments_of(server.environments)))
    register(Credential, lambda credential: Place(environments_of(credential.environments)))
    register(Variable, variable_place)
    register(Role, lambda _role: SHARED)
