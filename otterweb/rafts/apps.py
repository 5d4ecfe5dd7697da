from django.apps import AppConfig


class RaftsConfig(AppConfig):
    name = "otterweb.rafts"
    verbose_name = "Rafts"
