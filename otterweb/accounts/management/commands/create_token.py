"""`python manage.py create_token USERNAME [--days N]`: make an API token and print it, alone on
standard output (so `TOKEN=$(python manage.py create_token admin)` works). It is shown only this
once: the database keeps its digest."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from otterweb.accounts import tokens


class Command(BaseCommand):
    help = (
        "Make an API token for USERNAME and print it (only this once). Send it as "
        "'Authorization: Token <token>'."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--days",
            type=float,
            default=None,
            help="how long it is valid (default: OTTERWEB_TOKEN_TTL_DAYS; 0: until revoked)",
        )

    def handle(self, *args, username: str, days: float | None, **options) -> None:
        if days is not None and days < 0:
            raise CommandError("--days must be 0 (no expiry) or more")
        users = get_user_model()
        try:
            user = users.objects.get_by_natural_key(username)
        except users.DoesNotExist:
            raise CommandError(f"no user named '{username}'") from None
        if not user.is_active:
            raise CommandError(f"the user '{username}' is not active")
        token, text = tokens.create(user=user, days=days)
        self.stdout.write(text)
        until = f"until {token.expiry:%Y-%m-%d %H:%M} UTC" if token.expiry else "until revoked"
        self.stderr.write(
            f"API token for '{username}', valid {until}. It is not shown again.",
            style_func=str,
        )
