from django.apps import AppConfig


class ExecutionsConfig(AppConfig):
    name = "otterweb.executions"
    verbose_name = "Jobs and executions"
