from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "otterweb.inventory"
    verbose_name = "Inventory"
