"""Text that does not parse, refused the same way by every service, form and endpoint."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from engine import OtterSyntaxError


def parse_failure(
    error: OtterSyntaxError, *, name: str, field: str | None = None
) -> ValidationError:
    """The refusal of text that does not parse: each of its errors as ``name:line:column:
    error: message``, keyed by ``field`` when given. The API answers it with a 400."""
    messages = [d.format(name) for d in error.diagnostics if d.is_error]
    return ValidationError({field: messages} if field else messages)
