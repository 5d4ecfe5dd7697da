"""Request rates: the script endpoints (/api/scripts/check, format, blocks, unblocks) parse up
to a megabyte of script each; one user may send ``OTTERWEB_SCRIPTS_THROTTLE_RATE`` of them (per
server process, counted in Django's cache), then gets a 429 that says when to try again."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import UserRateThrottle


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
