from django.apps import AppConfig


class PrivilegesConfig(AppConfig):
    name = "otterweb.privileges"
    verbose_name = "Privileges"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from otterweb.privileges import checks, roles

        checks.register_rules()
        post_migrate.connect(roles.make_built_in_roles, sender=self)
