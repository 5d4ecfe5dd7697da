"""Login throttling (django-axes): after OTTERWEB_LOGIN_FAILURE_LIMIT wrong passwords for one
username from one address, logins of that username from that address are refused for
OTTERWEB_LOGIN_LOCKOUT_MINUTES, on the login page, the admin's and /api/auth/token/ alike.
An administrator lifts a lockout sooner with `manage.py axes_reset_username USERNAME` (or by
deleting its access attempt in the admin)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from otterweb.api.error_body import error_response


def client_ip(request: HttpRequest) -> str | None:
    """The address a login comes from. Behind the TLS proxy (OTTERWEB_BEHIND_PROXY=1, the proxy
    being the only way in), the one the proxy added last to X-Forwarded-For: what a client writes
    into that header itself comes before it."""
    if settings.OTTERWEB_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if forwarded[-1].strip():
            return forwarded[-1].strip()
    return request.META.get("REMOTE_ADDR")


def message() -> str:
    minutes = settings.OTTERWEB_LOGIN_LOCKOUT_MINUTES
    if not minutes:
        return (
            "Too many failed logins for this username from your address: logging in is locked "
            "until an administrator unlocks it."
        )
    return (
        f"Too many failed logins for this username from your address: try again in "
        f"{minutes:g} minutes (a try before then starts the wait again), or ask an "
        f"administrator to unlock it."
    )


def response(request: HttpRequest, *args) -> HttpResponse:
    """What a locked-out login gets (AXES_LOCKOUT_CALLABLE): 429 with the API's error body under
    /api/, the lockout page elsewhere."""
    minutes = settings.OTTERWEB_LOGIN_LOCKOUT_MINUTES
    headers = {"Retry-After": str(round(minutes * 60))} if minutes else {}
    if request.path.startswith("/api/"):
        return error_response(429, message(), "locked_out", headers=headers)
    answer = render(request, "registration/locked_out.html", {"message": message()}, status=429)
    for name, value in headers.items():
        answer[name] = value
    return answer
