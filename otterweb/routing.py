from django.urls import path

from otterweb.executions.consumers import ExecutionLogConsumer

websocket_urlpatterns = [
    path("ws/executions/<int:execution_id>/", ExecutionLogConsumer.as_asgi()),
]
