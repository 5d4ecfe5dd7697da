from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Signing in: API tokens (django-rest-knox) and login throttling (django-axes)."""

    name = "otterweb.accounts"
    verbose_name = "Accounts"
