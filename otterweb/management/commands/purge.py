"""`python manage.py purge [--dry-run]`: purge now what the retention policies no longer keep
(the housekeeper does every OTTERWEB_PURGE_SECONDS), to the end; with --dry-run, only say what
the database holds and what a purge would remove."""

from django.core.management.base import BaseCommand

from otterweb.retention import services


class Command(BaseCommand):
    help = "Purge the executions and logs the retention policies no longer keep."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would go, and delete nothing"
        )

    def handle(self, *args, dry_run: bool = False, **options) -> None:
        policy = services.Policy.from_settings()
        self.stdout.write(
            f"Policies: executions {_days(policy.days)}, failed ones {_days(policy.failed_days)}, "
            f"configuration checks {_days(policy.checks_days)}, and always the last "
            f"{policy.last_per_template} of each job template."
        )
        self.stdout.write(f"{'':<16}{'held':>12}{'to purge':>12}")
        for held in services.summary(policy):
            self.stdout.write(f"{held.kind:<16}{held.held:>12,}{held.purged:>12,}")
        if dry_run:
            self.stdout.write("Dry run: nothing was deleted.")
            return
        purged = 0
        while going := services.purge(policy):
            purged += going
        self.stdout.write(f"Purged {purged:,} executions with their logs.")


def _days(days: float) -> str:
    return f"kept {days:g} days" if days else "kept for ever"
