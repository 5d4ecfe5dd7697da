"""Who and where a write comes from: the request being answered (set by ``audit_context``, a
middleware) and, for runs that no person starts, the schedule or trigger that starts them
(``origin``). Entries read them when they are saved (otterweb.audit.services)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware

from otterweb.accounts.lockout import client_ip

_request: ContextVar[HttpRequest | None] = ContextVar("otterweb_audit_request", default=None)
_origin: ContextVar[str] = ContextVar("otterweb_audit_origin", default="")


@sync_and_async_middleware
def audit_context(get_response: Callable) -> Callable:
    """Makes the request the one audit entries written while answering it come from: its
    user (read only when an entry is written, so the API's token user counts) and its address
    (the one logins are throttled by: behind the TLS proxy, the address the proxy saw).

    Sync and async alike: under daphne no thread hop for it; the view's thread gets a copy of
    the context, and with it the request."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            with answering(request):
                return await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        with answering(request):
            return get_response(request)

    return middleware


@contextlib.contextmanager
def answering(request: HttpRequest) -> Iterator[None]:
    """Entries written inside come from ``request``: its user, its address."""
    token = _request.set(request)
    try:
        yield
    finally:
        _request.reset(token)


def current_request() -> HttpRequest | None:
    return _request.get()


def request_user(request: HttpRequest | None):
    """The signed-in user of ``request``, or None."""
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def request_address(request: HttpRequest | None) -> str | None:
    return client_ip(request) if request is not None and hasattr(request, "META") else None


@contextlib.contextmanager
def origin(label: str) -> Iterator[None]:
    """Runs started inside say they were started by ``label`` ("schedule nightly"), on their
    principal's behalf."""
    token = _origin.set(label)
    try:
        yield
    finally:
        _origin.reset(token)


def current_origin() -> str:
    return _origin.get()
