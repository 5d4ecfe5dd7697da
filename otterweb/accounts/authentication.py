"""The API's token authentication: knox's, for the named API keys built on its tokens. A key's
use is recorded (when and from where, written at most once a minute) and a narrower key's limit
is put on the user it authenticates (otterweb.accounts.services.key_used, which the websockets'
token middleware calls too)."""

from __future__ import annotations

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication

from otterweb.accounts.lockout import client_ip


class KeyAuthentication(TokenAuthentication):
    def authenticate(self, request):
        found = super().authenticate(request)
        if found is None:
            return None
        from otterweb.accounts import services

        user, token = found
        return services.key_used(user=user, token=token, address=client_ip(request._request)), token


class KeyAuthenticationScheme(KnoxTokenScheme):
    """The OpenAPI security scheme: knox's."""

    target_class = "otterweb.accounts.authentication.KeyAuthentication"
