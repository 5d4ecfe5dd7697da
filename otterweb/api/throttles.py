"""Request rates. Every API request is counted per user (``OTTERWEB_API_THROTTLE_USER_RATE``)
or, without a login, per address (``OTTERWEB_API_THROTTLE_ANON_RATE``); past the rate it gets a
429 and a Retry-After header. The script endpoints (/api/scripts/check, format, blocks, unblocks) parse up
to a megabyte of script each; one user may send ``OTTERWEB_SCRIPTS_THROTTLE_RATE`` of them (per
server process, counted in Django's cache), then gets a 429 that says when to try again."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from otterweb.accounts.lockout import client_ip


class ApiUserThrottle(UserRateThrottle):
    """Each signed-in user's requests, wherever they come from (anonymous ones: ApiAddressThrottle)."""

    scope = "api_user"

    def get_rate(self) -> str | None:
        return settings.OTTERWEB_API_THROTTLE_USER_RATE or None

    def get_cache_key(self, request, view) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class ApiAddressThrottle(AnonRateThrottle):
    """Requests without a login, per address: the connection's, or behind the proxy
    (OTTERWEB_BEHIND_PROXY=1) the one it adds, never one the client wrote itself."""

    scope = "api_anon"

    def get_rate(self) -> str | None:
        return settings.OTTERWEB_API_THROTTLE_ANON_RATE or None

    def get_ident(self, request) -> str:
        return client_ip(request) or ""


class ScriptsThrottle(UserRateThrottle):
    scope = "scripts"

    def get_rate(self) -> str | None:
        """The setting as it is now (DRF reads its own rates once, at import)."""
        return settings.OTTERWEB_SCRIPTS_THROTTLE_RATE or None


def throttled_message(wait: float | None) -> str:
    rate = settings.OTTERWEB_SCRIPTS_THROTTLE_RATE
    again = f"; try again in {max(1, round(wait))} seconds" if wait is not None else ""
    return (
        f"too many script requests: at most {rate} for each user "
        f"(OTTERWEB_SCRIPTS_THROTTLE_RATE){again}"
    )
