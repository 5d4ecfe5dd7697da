from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Signing in: API tokens (django-rest-knox), login throttling (django-axes) and the first
    administrator's password."""

    name = "otterweb.accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save

        from otterweb.accounts import first_admin

        post_save.connect(
            first_admin.forget_when_changed,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="otterweb.accounts.first_admin",
        )
