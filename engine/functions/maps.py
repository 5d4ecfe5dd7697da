"""Map functions. They return new maps; the arguments are never changed."""

from __future__ import annotations

from engine.registry import function
from engine.values import Value, copy_value, to_text


def _map(value: Value) -> dict:
    if not isinstance(value, dict):
        raise ValueError("the first argument must be a map")
    return value


@function(
    "MapAdd",
    returns=None,
    params=("map", "key", "value"),
    description="The map with a new key; an error if the key is there already.",
)
def map_add(call, mapping, key, value):
    result = copy_value(_map(mapping))
    name = to_text(key)
    if name in result:
        raise ValueError(f"the map already has the key '{name}' (use MapSet to change it)")
    result[name] = copy_value(value)
    return result


@function(
    "MapSet",
    returns=None,
    params=("map", "key", "value"),
    description="The map with a key set, added when missing; the key must not be empty.",
)
def map_set(call, mapping, key, value):
    result = copy_value(_map(mapping))
    name = to_text(key)
    if not name.strip():
        raise ValueError("the key must not be empty")
    result[name] = copy_value(value)
    return result


@function(
    "MapRemove",
    returns=None,
    params=("map", "key"),
    description="The map without a key (the same map when it has no such key).",
)
def map_remove(call, mapping, key):
    result = copy_value(_map(mapping))
    result.pop(to_text(key), None)
    return result


@function(
    "MapItem",
    returns=None,
    params=("map", "key"),
    description="The value of a key (case-sensitive); an error when the map has no such key.",
)
def map_item(call, mapping, key):
    values = _map(mapping)
    name = to_text(key)
    if name not in values:
        raise ValueError(f"the map has no key '{name}'")
    return copy_value(values[name])


@function("MapKeys", returns="@", params=("map",), description="The keys of a map.")
def map_keys(call, mapping):
    return list(_map(mapping))
