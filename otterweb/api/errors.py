"""One error body for the whole API:

    {"detail": "what went wrong", "code": "invalid", "errors": {"field": ["..."]}, "diagnostics": [...]}

``errors`` is there for invalid fields, ``diagnostics`` for a script that does not parse.
``otterweb.api.error_body`` builds it; ``handle`` is DRF's exception handler, which answers every
refusal of the API's views with it."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

from engine import OtterSyntaxError
from otterweb.api.error_body import error_body, first_message, validation_errors


class ScriptError(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "script"

    def __init__(self, error: OtterSyntaxError) -> None:
        first = next((d for d in error.diagnostics if d.is_error), error.diagnostics[0])
        super().__init__(
            f"the script does not parse: line {first.line}, column {first.column}: {first.explained}"
        )
        self.diagnostics = [d.to_dict() for d in error.diagnostics]


def handle(exc, context):
    if isinstance(exc, OtterSyntaxError):
        exc = ScriptError(exc)
    elif isinstance(exc, DjangoValidationError):
        exc = ValidationError(validation_errors(exc))
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        errors = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        body = error_body(f"invalid request: {first_message(errors)}", "invalid", errors=errors)
    else:
        detail = (
            str(response.data.get("detail", exc)) if isinstance(response.data, dict) else str(exc)
        )
        body = error_body(
            detail,
            getattr(exc, "default_code", "error"),
            diagnostics=exc.diagnostics if isinstance(exc, ScriptError) else None,
        )
    return Response(
        body,
        status=response.status_code,
        headers=getattr(response, "headers", None) and dict(response.headers),
    )
