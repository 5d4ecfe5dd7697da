from django.apps import AppConfig


class PrivilegesConfig(AppConfig):
    name = "otterweb.privileges"
    verbose_name = "Privileges"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group
        from django.db.models.signals import post_migrate

        from otterweb.privileges import checks, roles
        from otterweb.privileges.models import Grant, Role
        from otterweb.privileges.places import NOWHERE, SHARED, Place, register

        register(
            Grant,
            lambda grant: Place(
                frozenset({grant.environment_id}) if grant.environment_id else frozenset(),
                raft=grant.raft_id,
            ),
        )
        register(Role, lambda _role: SHARED)  # names anyone may choose (an API key's role)
        register(Group, lambda _group: NOWHERE)
        register(get_user_model(), lambda _user: NOWHERE)
        checks.register_rules()
        post_migrate.connect(roles.make_built_in_roles, sender=self)
