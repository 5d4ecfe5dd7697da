"""The query string of API requests: pages of lists, and numbers that name something. A value
that is not what a parameter takes is a 400 that says what it takes, never a 500."""

from __future__ import annotations

import re

from drf_spectacular.utils import OpenApiParameter
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


def number_parameter(
    name: str, description: str, *, minimum: int = 0, maximum: int = LARGEST
) -> OpenApiParameter:
    """A query parameter read with ``whole_number``, for the schema: a whole number from
    ``minimum`` up to ``maximum`` (2**63 - 1)."""
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": minimum, "maximum": maximum},
        description=description,
    )


class Pagination(LimitOffsetPagination):
    """Lists in pages of 100 (``?limit=`` up to 1,000, ``?offset=``). A limit or offset that is
    not a whole number (``2.5``, ``false``, ``-1``) is a 400, not a page of another size."""

    max_limit = 1000

    def get_limit(self, request) -> int | None:
        limit = whole_number(
            request.query_params,
            self.limit_query_param,
            what="a whole number of rows from 1",
            minimum=1,
        )
        return self.default_limit if limit is None else min(limit, self.max_limit)

    def get_offset(self, request) -> int:
        offset = whole_number(
            request.query_params, self.offset_query_param, what="a whole number of rows to skip"
        )
        return offset or 0

    def get_schema_operation_parameters(self, view) -> list[dict]:
        limit, offset = super().get_schema_operation_parameters(view)
        limit["schema"].update(minimum=1, maximum=LARGEST)
        limit["description"] = f"Rows per page (at most {self.max_limit:,}; more is that many)."
        offset["schema"].update(minimum=0, maximum=LARGEST)
        return [limit, offset]
