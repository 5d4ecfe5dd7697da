from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "otterweb.schedules"
    verbose_name = "Schedules and triggers"

    def ready(self) -> None:
        # they import the models: loaded only now
        from otterweb.housekeeping import Round, also_keep_house
        from otterweb.schedules import scheduler
        from otterweb.schedules.places import register_places

        register_places()

        # every process that keeps house (`manage.py serve`, each Celery worker) fires the due
        # schedules; each is claimed by one of them
        also_keep_house(
            Round(name="otterweb-scheduler", seconds=scheduler.interval, run=scheduler.fire_due)
        )
