from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "otterweb.audit"
    label = "audit"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        # they import the models: loaded only now
        from django.contrib.auth import signals as auth_signals
        from django.db.models.signals import pre_save

        from otterweb.audit import registry, services
        from otterweb.audit.models import Entry
        from otterweb.housekeeping import Round, also_keep_house

        registry.register_all()
        pre_save.connect(services.fill_in, sender=Entry, dispatch_uid="otterweb-audit-fill-in")
        auth_signals.user_logged_in.connect(services.logged_in, dispatch_uid="otterweb-audit-in")
        auth_signals.user_logged_out.connect(services.logged_out, dispatch_uid="otterweb-audit-out")
        auth_signals.user_login_failed.connect(
            services.login_failed, dispatch_uid="otterweb-audit-failed"
        )
        # every process that keeps house deletes the entries older than the retention
        also_keep_house(
            Round(
                name="otterweb-audit-retention",
                seconds=services.retention_interval,
                run=services.delete_expired,
            )
        )
