from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "otterweb.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self) -> None:
        from otterweb.housekeeping import Round, also_keep_house
        from otterweb.retention import services

        # every process that keeps house purges what the policies no longer keep, a little at a
        # time (two processes purging at once delete different rows or nothing)
        also_keep_house(
            Round(name="otterweb-retention", seconds=services.purge_interval, run=services.purge)
        )
