"""Where an object is, for privileges: the environments it is in and the raft it belongs to.

A grant on an environment covers an object when every environment the object is in lies within
it (the environment or one inside it); a grant on a raft covers the raft's objects. An object in
no environment and no raft (a global variable, a credential for any environment) is covered only
by grants on everything; an inventory role is seen by whoever may see roles anywhere.

Each app says where its models' objects are (its ``places`` module, registered from its
AppConfig): privileges sit below every app and import none."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db.models import Model


@dataclass(frozen=True, slots=True)
class Place:
    environments: frozenset[int] = frozenset()
    raft: int | None = None
    # seen by whoever may see its kind anywhere (an inventory role: its name is on the pages of
    # the servers that have it); changed only under a grant on everything
    shared: bool = False


NOWHERE = Place()
SHARED = Place(shared=True)

M = TypeVar("M", bound=Model)

# each function is called with objects of the model it is registered for
_PLACES: dict[type[Model], Callable[[Any], Place]] = {}
# models whose lists are long: where they are, as lookups a query can filter on
_LOOKUPS: dict[type[Model], tuple[str, str]] = {}


def register(
    model: type[M], where: Callable[[M], Place], *, lookups: tuple[str, str] | None = None
) -> None:
    """``where(obj)`` says where ``model``'s objects are; ``lookups``, the same in the database
    (the lookups of its environments and of its raft, used when it is in no environment), for
    lists narrowed by a query rather than object by object."""
    _PLACES[model] = where
    if lookups is not None:
        _LOOKUPS[model] = lookups


def lookups_of(model: type[Model]) -> tuple[str, str] | None:
    return _LOOKUPS.get(model)


def place_of(obj) -> Place:
    """Where ``obj`` is (see the module's text)."""
    where = _PLACES.get(type(obj))
    if where is None:
        raise TypeError(f"privileges know no place for a {type(obj).__name__}")
    return where(obj)


def environments_of(manager) -> frozenset[int]:
    """The ids of a many-to-many of environments (prefetched or not)."""
    return frozenset(e.pk for e in manager.all())
