"""The project's own middleware: requests refused before any view sees them, and the static
files, each in the mode of the handler it runs in."""

from __future__ import annotations

import weakref
from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from servestatic.middleware import AsyncServeStaticFileResponse, ServeStaticMiddleware

from otterweb.api.error_body import error_response

NUL = "\x00"


class SyncAndAsync:
    """A middleware that runs in the mode of the handler it is in: under daphne on the event loop
    between the async middleware around it, in a synchronous handler (Django's test client)
    synchronously, so a request is never handed to another thread and back just for it."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        """The response, or in async mode an awaitable of it."""
        raise NotImplementedError


class RefuseNulCharacters(SyncAndAsync):
    """A NUL character in the address or the query string is answered with a 400.

    No name, id or filter value can hold one (PostgreSQL's text cannot store it, so a lookup
    with one raised a DataError there, a 500), and no browser sends one unless asked to."""

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


class StaticFiles(SyncAndAsync):
    """ServeStatic's middleware (the static files, compressed, with their cache headers), sync
    and async alike.

    Under daphne it is ServeStatic's own. ServeStatic's is async only, so in a synchronous
    handler (Django's test client, a WSGI server) Django ran the whole chain in an event loop on
    a thread of its own and handed every request back to this one: 1.8 ms a request, more than
    twice what the rest of a small page costs. In sync mode the same files are found in the
    same table (file_table) and served synchronously."""

    def __init__(self, get_response: Callable) -> None:
        super().__init__(get_response)
        self.static = ServeStaticMiddleware(get_response) if self.is_async else file_table()

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self.static(request)
        static = self.static
        found = (
            static.find_file(request.path_info)
            if static.autorefresh
            else static.files.get(request.path_info)
        )
        if found is None:
            return self.get_response(request)
        served = found.get_response(request.method or "GET", request.META)
        response = AsyncServeStaticFileResponse(served.file or (), status=int(served.status))
        del response["Content-Type"]
        for header, value in served.headers:
            if value is not None:
                response[header] = value
        return response


# ServeStatic's middleware for each settings object in force, by the object (override_settings
# puts another in force for a while): only its table of files is used
_tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def file_table() -> ServeStaticMiddleware:
    """ServeStatic's table of the static files under the settings in force. Building it stats
    every file (0.1 s or more), and Django's test client builds a handler, and so its middleware,
    for each client: in sync mode, it is built once a process and settings."""
    current = vars(settings)["_wrapped"]  # the object behind the lazy one, set up by now
    table = _tables.get(current)
    if table is None:
        # ServeStatic refuses a sync get_response; never_called is never called
        table = _tables[current] = ServeStaticMiddleware(never_called)
    return table


async def never_called(request: HttpRequest) -> HttpResponseBase:
    raise AssertionError("a StaticFiles in sync mode passes requests on itself")
