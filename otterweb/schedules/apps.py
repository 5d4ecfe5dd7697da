from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "otterweb.schedules"
    verbose_name = "Schedules and triggers"

    def ready(self) -> None:
        # they import the models: loaded only now
        from otterweb.executions import services as executions
        from otterweb.housekeeping import Round, also_keep_house
        from otterweb.rafts import services as rafts
        from otterweb.schedules import owners, scheduler
        from otterweb.schedules.places import register_places

        register_places()
        # what its schedules and triggers run is changed only by who has the rights their
        # runs need
        executions.TEMPLATE_CHANGE_CHECKS.append(owners.check_template_change)
        rafts.ITEM_CHANGE_CHECKS.append(owners.check_item_change)

        # every process that keeps house (`manage.py serve`, each Celery worker) fires the due
        # schedules; each is claimed by one of them
        also_keep_house(
            Round(name="otterweb-scheduler", seconds=scheduler.interval, run=scheduler.fire_due)
        )
