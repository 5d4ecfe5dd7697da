"""Reading function arguments: text, whole numbers and numbers, each with a message that names
the argument and what it was given."""

from __future__ import annotations

import re
from decimal import Decimal

from engine.values import KIND_NAMES, Value, kind, to_text

WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
LARGEST_EXPONENT = 308  # a double's range, as Inedo's math functions read their arguments


def text(value: Value, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, not a {KIND_NAMES[kind(value)]}")
    return value


def whole_number(value: Value, what: str) -> int:
    written = text(value, what).strip()
    if not WHOLE_NUMBER.fullmatch(written) or len(written) > 20:
        raise ValueError(f"{what} must be a whole number, not '{to_text(value)}'")
    return int(written)


def number(value: Value, what: str) -> Decimal:
    """A decimal number as written (1, -2.5, 1e3); not NaN, infinity or 1_000."""
    written = to_text(value).strip()
    if not NUMBER.fullmatch(written):
        raise ValueError(f"{what} must be a number, not '{to_text(value)}'")
    parsed = Decimal(written)
    if parsed and abs(parsed.adjusted()) > LARGEST_EXPONENT:
        raise ValueError(f"{what} is out of range (at most 1e{LARGEST_EXPONENT}): '{written}'")
    return parsed
