"""One error body for the whole API:

    {"detail": "what went wrong", "code": "invalid", "errors": {"field": ["..."]}, "diagnostics": [...]}

``errors`` is there for invalid fields, ``diagnostics`` for a script that does not parse."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

from engine import OtterSyntaxError


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
        exc = ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    body: dict = {"code": getattr(exc, "default_code", "error")}
    if isinstance(exc, ValidationError):
        errors = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        first = next(iter(errors.values()), ["invalid"])
        body.update(
            detail=f"invalid request: {first[0] if isinstance(first, list) else first}",
            code="invalid",
            errors=errors,
        )
    else:
        body["detail"] = (
            str(response.data.get("detail", exc)) if isinstance(response.data, dict) else str(exc)
        )
    if isinstance(exc, ScriptError):
        body["diagnostics"] = exc.diagnostics
    return Response(
        body,
        status=response.status_code,
        headers=getattr(response, "headers", None) and dict(response.headers),
    )
