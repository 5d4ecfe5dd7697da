"""List functions. They return new lists; the arguments are never changed.

An index counts from 0; a negative index counts from the end (-1 is the last item)."""

from __future__ import annotations

import contextlib

from engine.functions.arguments import whole_number
from engine.registry import function
from engine.values import Value, copy_value

LONGEST_LIST = 1_000_000  # what @Range and $ListSet make at most


def _list(value: Value) -> list:
    if not isinstance(value, list):
        raise ValueError("the first argument must be a list")
    return value


def _position(value: Value, items: list, *, insert: bool = False) -> int:
    """The index ``value`` names in ``items`` (counting from the end when negative); an
    insert may also name the end. IndexError when it is outside."""
    index = whole_number(value, "the index")
    size = len(items) + (1 if insert else 0)
    if index < 0:
        index += size
    if not 0 <= index < size:
        raise IndexError(f"index {value} is outside the list (it has {len(items)} items)")
    return index


@function("ListCount", returns="$", params=("list",), description="The number of items in a list.")
def list_count(call, items):
    return str(len(_list(items)))


@function(
    "ListConcat",
    returns="@",
    variadic=True,
    description="One list holding the items of each list in turn (no lists: an empty list).",
)
def list_concat(call, *lists):
    result: list[Value] = []
    for items in lists:
        result.extend(copy_value(items) if isinstance(items, list) else [items])
    return result


@function(
    "ListIndexOf",
    returns="$",
    params=("list", "item"),
    description="The index of the first item equal to the given one (case-sensitive), or -1.",
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
    description="The list with an item inserted before an index (0: at the start; the list's "
    "length or -1: at the end, as without an index); an error outside the list.",
)
def list_insert(call, items, item, index=None):
    result = copy_value(_list(items))
    position = len(result) if index is None else _position(index, result, insert=True)
    result.insert(position, copy_value(item))
    return result


@function(
    "ListItem",
    returns=None,
    params=("list", "index"),
    description="The item at an index (0 is the first, -1 the last); an error outside the list.",
)
def list_item(call, items, index):
    items = _list(items)
    return copy_value(items[_position(index, items)])


@function(
    "ListRemove",
    returns="@",
    params=("list", "index"),
    description="The list without the item at an index; an index outside the list removes nothing.",
)
def list_remove(call, items, index):
    result = copy_value(_list(items))
    with contextlib.suppress(IndexError):
        del result[_position(index, result)]
    return result


@function(
    "ListSet",
    returns="@",
    params=("list", "index", "item"),
    description="The list with the item at an index replaced; an index past the end grows the "
    "list with empty items; a negative one counts from the end.",
)
def list_set(call, items, index, item):
    result = copy_value(_list(items))
    position = whole_number(index, "the index")
    if position >= LONGEST_LIST:
        raise ValueError(f"index {position} would make a list longer than {LONGEST_LIST:,} items")
    result.extend("" for _ in range(position + 1 - len(result)))
    result[_position(index, result)] = copy_value(item)
    return result


@function(
    "Range",
    returns="@",
    params=("start", "count"),
    description="count whole numbers from start: @Range(1, 3) is @(1, 2, 3); count 0 gives an "
    "empty list.",
)
def range_(call, start, count):
    first, number = whole_number(start, "start"), whole_number(count, "count")
    if number < 0:
        raise ValueError(f"count must not be negative, not {number}")
    if number > LONGEST_LIST:
        raise ValueError(f"count must be at most {LONGEST_LIST:,}")
    return [str(value) for value in range(first, first + number)]
