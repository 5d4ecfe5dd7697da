"""Websocket authentication: the browser's session, or an `Authorization: Token <token>` header
(an API key, otterweb.accounts.tokens: unexpired, of an active user; a narrower key's limit
on the user)."""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _token_user(key: str, address: str | None):
    from otterweb.accounts import services

    # the key's use recorded, a narrower key's limit on the user: as for the API
    return services.user_for(key, address=address)


# Off the one thread Django's sync code shares: API clients who connect together (a job just
# started, bench/logs.py's late viewers) are looked up side by side, not one after another.
_user_for_token = database_sync_to_async(_token_user, thread_sensitive=False)


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        value = headers.get(b"authorization", b"").decode("latin-1")
        if value.lower().startswith("token "):
            user = await _user_for_token(value[6:].strip(), _address(scope, headers))
            if user is not None:
                scope = {**scope, "user": user}
        return await super().__call__(scope, receive, send)


def _address(scope, headers: dict[bytes, bytes]) -> str | None:
    """Where a websocket comes from: as otterweb.accounts.lockout.client_ip says for requests."""
    if settings.OTTERWEB_BEHIND_PROXY:
        forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1").split(",")
        if forwarded[-1].strip():
            return forwarded[-1].strip()
    client = scope.get("client")
    return client[0] if client else None


def authenticated(inner):
    """Session first (AuthMiddlewareStack), then a token header can supply the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class SameOriginMiddleware:
    """Browsers send an Origin with every websocket handshake: it must be the site's own, the
    same scheme, host and port as the handshake (the scheme the TLS proxy says with
    OTTERWEB_BEHIND_PROXY), on a host in ALLOWED_HOSTS, or one of CSRF_TRUSTED_ORIGINS; a page
    elsewhere must not use the user's session. API clients send none: they are let through, and
    must authenticate with a token."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            headers = dict(scope.get("headers") or [])
            origin = headers.get(b"origin")
            if origin is not None and not _own_origin(origin.decode("latin-1"), scope, headers):
                return await WebsocketDenier()(scope, receive, send)
        return await self.inner(scope, receive, send)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _parts(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin or URL, the port filled in; None when unreadable."""
    try:
        parsed = urlsplit(origin.strip().lower())
        port = parsed.port
    except ValueError:
        return None
    if parsed.scheme not in _DEFAULT_PORTS or not parsed.hostname:
        return None
    return parsed.scheme, parsed.hostname, port or _DEFAULT_PORTS[parsed.scheme]


def _own_origin(origin: str, scope, headers: dict[bytes, bytes]) -> bool:
    given = _parts(origin)
    if given is None:
        return False
    if given in {_parts(trusted) for trusted in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])}:
        return True
    host = headers.get(b"host", b"").decode("latin-1")
    if not host or not validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS):
        return False
    secure = scope.get("scheme") in ("wss", "https") or (
        settings.OTTERWEB_BEHIND_PROXY
        and headers.get(b"x-forwarded-proto", b"").decode("latin-1").lower() == "https"
    )
    return given == _parts(f"{'https' if secure else 'http'}://{host}")


def same_origin(inner):
    return SameOriginMiddleware(inner)
