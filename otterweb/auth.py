"""Websocket authentication: the browser's session, or an `Authorization: Token <token>` header
(an API token, otterweb.accounts.tokens: unexpired, of an active user)."""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings


@database_sync_to_async
def _user_for_token(key: str):
    from otterweb.accounts import tokens

    return tokens.user_for(key)


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        value = headers.get(b"authorization", b"").decode("latin-1")
        if value.lower().startswith("token "):
            user = await _user_for_token(value[6:].strip())
            if user is not None:
                scope = {**scope, "user": user}
        return await super().__call__(scope, receive, send)


def authenticated(inner):
    """Session first (AuthMiddlewareStack), then a token header can supply the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class _BrowserOriginValidator(OriginValidator):
    """Browsers send an Origin with every websocket handshake, and it must be one of our hosts
    (a page elsewhere must not use the user's session). API clients send none: they are let
    through, and must authenticate with a token."""

    def valid_origin(self, parsed_origin) -> bool:
        if parsed_origin is None:
            return True
        return super().valid_origin(parsed_origin)


def same_origin(inner):
    return _BrowserOriginValidator(inner, list(settings.ALLOWED_HOSTS))
