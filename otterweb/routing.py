from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path

from otterweb.execution_logs.consumers import NOT_FOUND, ExecutionLogConsumer


class UnknownPath(AsyncWebsocketConsumer):
    """Any other websocket path is refused (closed with 4404 before it is accepted): a wrong
    address, not an error of the server."""

    async def connect(self) -> None:
        await self.close(code=NOT_FOUND)


websocket_urlpatterns = [
    path("ws/executions/<int:execution_id>/", ExecutionLogConsumer.as_asgi()),
    re_path(r"", UnknownPath.as_asgi()),
]
