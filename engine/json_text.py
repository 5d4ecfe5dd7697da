"""JSON text read and written without recursion, for Blockly workspaces.

A workspace nests two levels for each statement in a row (``"next": {"block": ...}``), so a
long script's JSON nests deeper than Python's ``json`` can go: its reader and writer recurse
once per level and stop at the recursion limit. These walk with a stack of their own, so a
workspace of any length goes both ways. ``json_loads`` tries ``json.loads`` first (fast, in C) and
reads on its own only what that cannot.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from json.decoder import JSONDecodeError, scanstring  # type: ignore[attr-defined]  # not in typeshed
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

WHITESPACE = re.compile(r"[ \t\n\r]*")
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LITERALS = {"true": True, "false": False, "null": None}
_END = object()


def json_loads(
    text: str,
    *,
    max_depth: int | None = None,
    surrogates: bool = True,
    integer_bits: int | None = None,
) -> Any:
    """The value of a JSON text, however deep it nests. JSONDecodeError (a ValueError, with
    the position) for text that is not JSON, nests deeper than ``max_depth``, holds a number
    out of range (a float past 1e308, an integer past ``integer_bits`` signed bits) or, unless
    ``surrogates``, a lone surrogate (``"\\ud800"``: not a character)."""
    integer = partial(_integer, bits=integer_bits)
    try:
        value = json.loads(text, parse_int=integer, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        return _read(text, max_depth, surrogates, integer)
    except (OverflowError, ValueError) as error:
        if isinstance(error, JSONDecodeError):
            raise
        raise JSONDecodeError(str(error), text, 0) from None
    if max_depth is not None or not surrogates:
        _inspect(value, text, max_depth, surrogates)
    return value


def _integer(text: str, *, bits: int | None) -> int:
    value = int(text)
    if bits is not None and not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise ValueError(f"the number {text[:30]} is out of range (at most {bits} bits)")
    return value


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:30]} is out of range")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _read(text: str, max_depth: int | None, surrogates: bool, integer: Callable) -> Any:
    stack: list[list | dict] = []
    keys: list[str | None] = []
    position = _skip(text, 0)
    while True:
        character = text[position : position + 1]
        if character in ("{", "["):
            if max_depth is not None and len(stack) >= max_depth:
                raise JSONDecodeError(f"nested more than {max_depth} deep", text, position)
            position = _skip(text, position + 1)
            closing = "}" if character == "{" else "]"
            if text[position : position + 1] == closing:
                value: Any = {} if character == "{" else []
                position += 1
            else:
                stack.append({} if character == "{" else [])
                keys.append(None)
                if character == "{":
                    keys[-1], position = _key(text, position, surrogates)
                continue
        elif character == '"':
            value, position = scanstring(text, position + 1)
            _check_text(value, text, position, surrogates)
        elif match := NUMBER.match(text, position):
            number = match.group()
            try:
                value = _float(number) if match.group(1) or match.group(2) else integer(number)
            except ValueError as error:  # out of range, or more digits than Python converts
                raise JSONDecodeError(str(error), text, position) from None
            position = match.end()
        else:
            word = next((word for word in LITERALS if text.startswith(word, position)), None)
            if word is None:
                raise JSONDecodeError("Expecting value", text, position)
            value, position = LITERALS[word], position + len(word)
        # the value is complete: add it to its container, closing those that end here
        while True:
            if not stack:
                position = _skip(text, position)
                if position != len(text):
                    raise JSONDecodeError("Extra data", text, position)
                return value
            container = stack[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[keys[-1]] = value
            position = _skip(text, position)
            character = text[position : position + 1]
            if character == ",":
                position = _skip(text, position + 1)
                if isinstance(container, dict):
                    keys[-1], position = _key(text, position, surrogates)
                break
            if character == ("]" if isinstance(container, list) else "}"):
                value = stack.pop()
                keys.pop()
                position += 1
                continue
            raise JSONDecodeError("Expecting ',' delimiter", text, position)


def _skip(text: str, position: int) -> int:
    return WHITESPACE.match(text, position).end()  # type: ignore[union-attr]  # * always matches


def _key(text: str, position: int, surrogates: bool) -> tuple[str, int]:
    """An object's key and the position of its value."""
    if text[position : position + 1] != '"':
        raise JSONDecodeError("Expecting property name enclosed in double quotes", text, position)
    key, position = scanstring(text, position + 1)
    _check_text(key, text, position, surrogates)
    position = _skip(text, position)
    if text[position : position + 1] != ":":
        raise JSONDecodeError("Expecting ':' delimiter", text, position)
    return key, _skip(text, position + 1)


def _check_text(value: str, text: str, position: int, surrogates: bool) -> None:
    if not surrogates and LONE_SURROGATE.search(value):
        raise JSONDecodeError("a lone surrogate (\\ud800-\\udfff) is not text", text, position)


def _inspect(value: Any, text: str, max_depth: int | None, surrogates: bool) -> None:
    """What ``_read`` checks as it goes, for a value ``json.loads`` read."""
    pending = [(value, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            _check_text(value, text, 0, surrogates)
            continue
        if not isinstance(value, dict | list):
            continue
        if max_depth is not None and depth >= max_depth:
            raise JSONDecodeError(f"nested more than {max_depth} deep", text, 0)
        if isinstance(value, dict):
            pending.extend((key, depth) for key in value)
            value = value.values()
        pending.extend((item, depth + 1) for item in value)


def json_dumps(value: Any, *, indent: int | None = None, ensure_ascii: bool = False) -> str:
    """The JSON text of ``value`` (dicts, lists, tuples, text, numbers, booleans, None), however
    deep it nests; compact unless ``indent`` is given."""
    quote = encode_basestring_ascii if ensure_ascii else encode_basestring
    separator, colon = (",", ": ") if indent is not None else (",", ":")
    out: list[str] = []
    stack: list[tuple[Any, bool]] = []  # (iterator of items, whether it is of a dict)
    firsts: list[bool] = []
    pending = value
    while True:
        if isinstance(pending, dict) and pending:
            out.append("{")
            stack.append((iter(pending.items()), True))
            firsts.append(True)
        elif isinstance(pending, list | tuple) and pending:
            out.append("[")
            stack.append((iter(pending), False))
            firsts.append(True)
        else:
            out.append(_scalar(pending, quote))
        while stack:
            items, of_dict = stack[-1]
            item: Any = next(items, _END)
            if item is _END:
                stack.pop()
                firsts.pop()
                if indent is not None:
                    out.append("\n" + " " * (indent * len(stack)))
                out.append("}" if of_dict else "]")
                continue
            if not firsts[-1]:
                out.append(separator)
            firsts[-1] = False
            if indent is not None:
                out.append("\n" + " " * (indent * len(stack)))
            if of_dict:
                key, pending = item
                out.append(quote(key if isinstance(key, str) else _scalar(key, str)) + colon)
            else:
                pending = item
            break
        else:
            return "".join(out)


def _scalar(value: Any, quote) -> str:
    if isinstance(value, str):
        return quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{value!r} is not a JSON number")
        return float.__repr__(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    raise TypeError(f"{type(value).__name__} is not JSON")
