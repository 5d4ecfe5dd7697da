"""Websocket authentication: the browser's session, or an `Authorization: Token <key>` header."""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware


@database_sync_to_async
def _user_for_token(key: str):
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token is not None and token.user.is_active else None


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        value = headers.get(b"authorization", b"").decode()
        if value.lower().startswith("token "):
            user = await _user_for_token(value[6:].strip())
            if user is not None:
                scope = {**scope, "user": user}
        return await super().__call__(scope, receive, send)


def authenticated(inner):
    """Session first (AuthMiddlewareStack), then a token header can supply the user."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
