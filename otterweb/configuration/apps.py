from django.apps import AppConfig


class ConfigurationConfig(AppConfig):
    name = "otterweb.configuration"
    verbose_name = "Configuration"

    def ready(self) -> None:
        from otterweb.configuration import services  # its signal receiver, and:
        from otterweb.configuration.places import register_places
        from otterweb.schedules import scheduler
        from otterweb.schedules.models import Schedule

        register_places()
        # a configuration schedule starts a routine check
        scheduler.starts(Schedule.Kind.CONFIGURATION, services.start_scheduled_check)
