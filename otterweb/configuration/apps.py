from django.apps import AppConfig


class ConfigurationConfig(AppConfig):
    name = "otterweb.configuration"
    verbose_name = "Configuration"

    def ready(self) -> None:
        from otterweb.configuration import services  # noqa: F401  (its signal receiver)
