from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "otterweb.inventory"
    verbose_name = "Inventory"

    def ready(self) -> None:
        # they import the models: loaded only now
        from otterweb.housekeeping import Round, also_keep_house
        from otterweb.inventory import checks
        from otterweb.inventory.places import register_places

        register_places()

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
