from django.apps import AppConfig

# how often the housekeeper deletes expired API tokens (one that is sent is deleted at once)
EXPIRED_TOKENS_EVERY = 3600.0


class AccountsConfig(AppConfig):
    """Signing in: API keys (on django-rest-knox's tokens) and service accounts, login
    throttling (django-axes) and the first administrator's password."""

    name = "otterweb.accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_delete, post_save

        from otterweb.accounts import first_admin, services
        from otterweb.accounts.models import ApiKey
        from otterweb.housekeeping import Round, also_keep_house

        post_save.connect(
            first_admin.forget_when_changed,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="otterweb.accounts.first_admin",
        )
        # a key deleted with its environment, raft or owner takes its token along: a token
        # without its key would be as wide as its owner
        post_delete.connect(
            _delete_token, sender=ApiKey, dispatch_uid="otterweb.accounts.api_key_token"
        )
        also_keep_house(
            Round(
                name="otterweb-expired-tokens",
                seconds=lambda: EXPIRED_TOKENS_EVERY,
                run=services.delete_expired_tokens,
            )
        )


def _delete_token(sender, instance, **kwargs) -> None:
    from knox.models import AuthToken

    if instance.token_id is not None:
        AuthToken.objects.filter(pk=instance.token_id).delete()
