"""The API's token authentication: knox's header, for the named API keys built on its tokens. A
key's use is recorded (when and from where, written at most once a minute) and a narrower key's
limit is put on the user it authenticates (otterweb.accounts.services.authenticate, which the
websockets' token middleware calls too)."""

from __future__ import annotations

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication

from otterweb.accounts.lockout import client_ip


class KeyAuthentication(TokenAuthentication):
    """DRF makes one of these for each request."""

    address: str | None = None

    def authenticate(self, request):
        self.address = client_ip(request._request)
        return super().authenticate(request)

    def authenticate_credentials(self, token: bytes):
        from otterweb.accounts import services

        return services.authenticate(token.decode(), address=self.address)


class KeyAuthenticationScheme(KnoxTokenScheme):
    """The OpenAPI security scheme: knox's."""

    target_class = "otterweb.accounts.authentication.KeyAuthentication"
