"""List functions. They return new lists; the arguments are never changed."""

from __future__ import annotations

from engine.registry import function
from engine.values import Value, copy_value, to_text


def _list(value: Value) -> list:
    if not isinstance(value, list):
        raise ValueError("the first argument must be a list")
    return value


def _index(value: Value, items: list, *, insert: bool = False) -> int:
    try:
        index = int(to_text(value).strip())
    except ValueError:
        raise ValueError(f"the index must be a whole number, not '{to_text(value)}'") from None
    if index < 0:
        index += len(items) + (1 if insert else 0)
    limit = len(items) + (1 if insert else 0)
    if not 0 <= index < limit:
        raise ValueError(f"index {to_text(value)} is outside the list (it has {len(items)} items)")
    return index


@function("ListCount", returns="$", params=("list",), description="The number of items in a list.")
def list_count(call, items):
    return str(len(_list(items)))


@function(
    "ListConcat",
    returns="@",
    variadic=True,
    description="One list holding the items of each list in turn.",
)
def list_concat(call, *lists):
    result = []
    for items in lists:
        result.extend(copy_value(items) if isinstance(items, list) else [items])
    return result


@function(
    "ListIndexOf",
    returns="$",
    params=("list", "item"),
    description="The index of the first item equal to the given one, or -1.",
)
def list_index_of(call, items, item):
    for index, candidate in enumerate(_list(items)):
        if candidate == item:
            return str(index)
    return "-1"


@function(
    "ListInsert",
    returns="@",
    params=("list", "item", "index"),
    optional=1,
    description="The list with an item inserted (at the end by default).",
)
def list_insert(call, items, item, index=None):
    result = copy_value(_list(items))
    position = len(result) if index is None else _index(index, result, insert=True)
    result.insert(position, copy_value(item))
    return result


@function(
    "ListItem",
    returns=None,
    params=("list", "index"),
    description="The item at an index (0 is the first; negative counts from the end).",
)
def list_item(call, items, index):
    items = _list(items)
    return copy_value(items[_index(index, items)])


@function(
    "ListRemove",
    returns="@",
    params=("list", "index"),
    description="The list without the item at an index.",
)
def list_remove(call, items, index):
    result = copy_value(_list(items))
    del result[_index(index, result)]
    return result


@function(
    "ListSet",
    returns="@",
    params=("list", "index", "item"),
    description="The list with the item at an index replaced.",
)
def list_set(call, items, index, item):
    result = copy_value(_list(items))
    result[_index(index, result)] = copy_value(item)
    return result


@function(
    "Range",
    returns="@",
    params=("start", "count"),
    description="count whole numbers from start: @Range(1, 3) is @(1, 2, 3).",
)
def range_(call, start, count):
    try:
        first, number = int(to_text(start)), int(to_text(count))
    except ValueError:
        raise ValueError("start and count must be whole numbers") from None
    if number < 0:
        raise ValueError("count must not be negative")
    if number > 1_000_000:
        raise ValueError("count must be at most 1,000,000")
    return [str(value) for value in range(first, first + number)]
