from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "otterweb.schedules"
    verbose_name = "Schedules and triggers"
