"""ASGI entry point: `daphne otterweb.asgi:application` (HTTP and websockets)."""

from django.core.asgi import get_asgi_application

from otterweb.settings import use_default_settings

use_default_settings()
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from otterweb.auth import authenticated, same_origin  # noqa: E402
from otterweb.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_application,
        # the stubs' URLRouter takes only a pattern type of theirs that no function makes
        "websocket": same_origin(authenticated(URLRouter(websocket_urlpatterns))),  # type: ignore[arg-type]
    }
)
