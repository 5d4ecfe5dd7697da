"""The API's OpenAPI schema says what each operation answers when it refuses: every refusal is
the one error body of ``otterweb.api.errors`` with the status codes DRF gives it.

- 400: the request's body, query or path holds something the operation does not take;
- 401: a token that is wrong or expired, or none where one is needed;
- 403: the user may not do this (or a session's request without its CSRF token);
- 404: the path names nothing (or nothing the user may see), or ``?format=`` a format the
  operation does not answer in;
- 415: a body in a format the operation does not read;
- 429: too many requests (``otterweb.api.throttles``); a Retry-After header says when to retry.

An operation that also refuses with 409 (the object is in use, or changed since) says so in its
own ``extend_schema``; those it declares itself are kept as they are.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ErrorSerializer(serializers.Serializer):
    """The API's one error body."""

    detail = serializers.CharField(help_text="What went wrong, in a sentence.")
    code = serializers.CharField(
        help_text='What kind of refusal: "invalid" (a field), "script" (a script that does '
        'not parse), "not_found", "permission_denied", "conflict", "throttled" ...'
    )
    # a declared field leaves the class (SerializerMetaclass): it hides no Serializer.errors
    errors = serializers.JSONField(  # type: ignore[assignment]
        required=False,
        help_text="For invalid fields: each field's messages, by name (nested as the body is).",
    )
    diagnostics = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="For a script that does not parse: its diagnostics (line, column, message ...).",
    )


ERRORS = {
    "400": "The request holds something this operation does not take; `errors` says what.",
    "401": "No valid token: send `Authorization: Token <token>`.",
    "403": "The user may not do this.",
    "404": "The path names nothing the user may see.",
    "409": "The object is in use, or changed since it was read.",
    "415": "The body is in a format this operation does not read (send JSON).",
    "429": "Too many requests: try again after the Retry-After header's seconds.",
}
WITH_BODY = {"POST", "PUT", "PATCH"}


def error_response(code: str, description: str | None = None) -> OpenApiResponse:
    """The one error body under ``code``, for an operation's own ``extend_schema``."""
    return OpenApiResponse(ErrorSerializer, description=description or ERRORS[code])


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's, with the refusals each operation can answer."""

    def refusals(self) -> list[str]:
        view = self.view
        codes = []
        takes_input = self.method in WITH_BODY or "{" in self.path or self._get_parameters()
        if takes_input:
            codes.append("400")
        if view.get_authenticators():
            codes.append("401")
        if not all(isinstance(permission, AllowAny) for permission in view.get_permissions()):
            codes.append("403")
        if "{" in self.path or "format" in self.query_parameter_names():
            codes.append("404")  # DRF's answer to a ?format= it has no renderer for, too
        if self.method in WITH_BODY:
            codes.append("415")
        if view.get_throttles():
            codes.append("429")
        return codes

    def query_parameter_names(self) -> set[str]:
        return {p["name"] for p in self._get_parameters() if p.get("in") == "query"}

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self.refusals():
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    error_response(code), code, direction=direction
                )
        return dict(sorted(responses.items()))
