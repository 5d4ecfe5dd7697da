from django.apps import AppConfig


class ConfigurationConfig(AppConfig):
    name = "otterweb.configuration"
    verbose_name = "Configuration"
