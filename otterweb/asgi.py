"""ASGI entry point: `daphne otterweb.asgi:application`."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "otterweb.settings.dev")

application = get_asgi_application()
