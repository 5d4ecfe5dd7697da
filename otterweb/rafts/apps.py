from django.apps import AppConfig


class RaftsConfig(AppConfig):
    name = "otterweb.rafts"
    verbose_name = "Rafts"

    def ready(self) -> None:
        from otterweb.rafts.places import register_places

        register_places()
