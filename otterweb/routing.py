from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path

from otterweb.execution_logs.consumers import NOT_FOUND, ExecutionLogConsumer


class UnknownPath(AsyncWebsocketConsumer):
    """Any other websocket path is refused (closed with 4404 before it is accepted): a wrong
    address, not an error of the server."""

    async def connect(self) -> None:
        await self.close(code=NOT_FOUND)


# Channels routes ASGI applications with Django's path(), whose stubs take views only
websocket_urlpatterns = [
    path("ws/executions/<int:execution_id>/", ExecutionLogConsumer.as_asgi()),  # type: ignore[arg-type]
    re_path(r"", UnknownPath.as_asgi()),  # type: ignore[arg-type]
]
