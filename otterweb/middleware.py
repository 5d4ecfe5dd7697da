"""Requests refused before any view sees them."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL = "\x00"


class RefuseNulCharacters:
    """A NUL character in the address or the query string is answered with a 400.

    No name, id or filter value can hold one (PostgreSQL's text cannot store it, so a lookup
    with one raised a DataError there, a 500), and no browser sends one unless asked to."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path or any(
            NUL in key or any(NUL in value for value in values)
            for key, values in request.GET.lists()
        ):
            detail = "the address or query string contains a NUL character (%00)"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": detail, "code": "invalid"}, status=400)
            return HttpResponseBadRequest(detail, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
