"""The execution log websocket, connected in tests without a server."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

from otterweb.execution_logs.consumers import ExecutionLogConsumer


def communicator(execution_id: int, user, after: int | None = None) -> WebsocketCommunicator:
    """A connection of ``user`` to the log of ``execution_id``, after the seq ``after`` if given."""
    path = f"/ws/executions/{execution_id}/" + (f"?after={after}" if after is not None else "")
    connection = WebsocketCommunicator(ExecutionLogConsumer.as_asgi(), path)
    connection.scope["user"] = user
    connection.scope["url_route"] = {"kwargs": {"execution_id": execution_id}}
    connection.scope["query_string"] = path.partition("?")[2].encode()
    return connection
