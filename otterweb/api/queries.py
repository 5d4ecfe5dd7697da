"""The query string of API requests: pages of lists, and numbers that name something. A value
that is not what a parameter takes is a 400 that says what it takes, never a 500."""

from __future__ import annotations

import re

from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination

# ids and sequence numbers are 64-bit integers in every database OtterWeb runs on
LARGEST = 2**63 - 1
DIGITS = re.compile(r"[0-9]{1,19}")


def whole_number(params, name: str, *, what: str, minimum: int = 0) -> int | None:
    """``params[name]`` as a whole number from ``minimum`` up to 2**63 - 1; None when absent or
    empty; a 400 naming ``what`` it should be otherwise."""
    value = params.get(name)
    if value is None or value == "":
        return None
    if not DIGITS.fullmatch(value) or not minimum <= int(value) <= LARGEST:
        raise serializers.ValidationError({name: [f"{what}, not {value[:40]!r}"]})
    return int(value)


class Pagination(LimitOffsetPagination):
    """Lists in pages of 100 (``?limit=`` up to 1,000, ``?offset=``)."""

    max_limit = 1000
