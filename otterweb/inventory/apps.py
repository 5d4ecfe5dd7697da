from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "otterweb.inventory"
    verbose_name = "Inventory"

    def ready(self) -> None:
        # they import the models: loaded only now
        from otterweb.audit.registry import TIMESTAMPS, track
        from otterweb.housekeeping import Round, also_keep_house
        from otterweb.inventory import checks
        from otterweb.inventory.models import SERVER_CHECK_FIELDS
        from otterweb.inventory.places import register_places

        register_places()
        # the audit trail keeps what people change of a server, not what its checks find nor
        # the host key it offered until someone trusts it
        track(
            "inventory.Server",
            exclude=[*TIMESTAMPS, *SERVER_CHECK_FIELDS, "pending_host_key"],
            m2m=["roles", "environments"],
        )

        # every process that keeps house checks the servers due for their periodic check (a
        # round waits for servers that do not answer: on a thread of its own); each server is
        # claimed by one of them
        also_keep_house(
            Round(
                name="otterweb-server-checks",
                seconds=checks.due_interval,
                run=lambda: checks.check_due_servers(),
            )
        )
