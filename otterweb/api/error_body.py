"""The API's one error body, built here for every answer that refuses:

    {"detail": "what went wrong", "code": "invalid", "errors": {"field": ["..."]}, "diagnostics": [...]}

DRF's views answer with it through their exception handler (``otterweb.api.errors.handle``); the
few views and middleware outside DRF that answer the API or the pages' scripts, through
``error_response``. It imports nothing of DRF, so that the code DRF's settings load (the
authentication, the login lockout) can use it."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import JsonResponse


def error_body(
    detail: str,
    code: str,
    *,
    errors: dict[str, Any] | None = None,
    diagnostics: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The API's error body: what went wrong in a sentence, the kind of refusal, and for invalid
    fields their messages by name, for a script that does not parse its diagnostics."""
    body: dict[str, Any] = {"detail": detail, "code": code}
    if errors is not None:
        body["errors"] = errors
    if diagnostics is not None:
        body["diagnostics"] = diagnostics
    return body


def error_response(
    status: int,
    detail: str,
    code: str,
    *,
    errors: dict[str, Any] | None = None,
    diagnostics: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    """The error body answered by a view or middleware outside DRF."""
    body = error_body(detail, code, errors=errors, diagnostics=diagnostics)
    return JsonResponse(body, status=status, headers=headers)


def first_message(errors: dict[str, Any]) -> str:
    """The first message of ``errors`` (by field, most often a list of messages)."""
    first = next(iter(errors.values()), ["invalid"])
    return str(first[0] if isinstance(first, list) else first)


def validation_errors(error: ValidationError) -> dict[str, list[str]]:
    """A Django ValidationError's messages by field (``non_field_errors`` for the rest)."""
    if hasattr(error, "error_dict"):
        return error.message_dict
    return {"non_field_errors": error.messages}
