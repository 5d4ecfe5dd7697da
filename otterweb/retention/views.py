"""The database page: what the database holds by kind, and what the next purge removes."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.db import connection
from django.views.generic import TemplateView

from otterweb.retention import services


class DatabaseView(LoginRequiredMixin, UserPassesTestMixin, TemplateView):
    template_name = "retention/database.html"

    def test_func(self) -> bool:
        return self.request.user.is_staff  # it counts what every team holds

    def get_context_data(self, **kwargs):
        policy = services.Policy.from_settings()
        return super().get_context_data(
            policy=policy,
            rows=[
                {"kind": row.kind, "held": f"{row.held:,}", "purged": f"{row.purged:,}"}
                for row in services.summary(policy)
            ],
            database={"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(
                connection.vendor, connection.vendor
            ),
            size=services.database_bytes(),
            purge_minutes=settings.OTTERWEB_PURGE_SECONDS / 60,
            audit_days=settings.OTTERWEB_AUDIT_RETENTION_DAYS,
            **kwargs,
        )
