"""Requests refused before any view sees them."""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

from otterweb.api.error_body import error_response

NUL = "\x00"


class RefuseNulCharacters:
    """A NUL character in the address or the query string is answered with a 400.

    No name, id or filter value can hold one (PostgreSQL's text cannot store it, so a lookup
    with one raised a DataError there, a 500), and no browser sends one unless asked to.

    Sync and async alike: under daphne it runs on the event loop between the async middleware
    around it, so a request is not handed to a thread and back just for this check."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self.__acall__(request)
        return refusal(request) or self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return refusal(request) or await self.get_response(request)


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The 400 for a request with a NUL in its address or query string; None for any other."""
    if NUL in request.path or any(
        NUL in key or any(NUL in value for value in values) for key, values in request.GET.lists()
    ):
        detail = "the address or query string contains a NUL character (%00)"
        if request.path.startswith("/api/"):
            return error_response(400, detail, "invalid")
        return HttpResponseBadRequest(detail, content_type="text/plain; charset=utf-8")
    return None
