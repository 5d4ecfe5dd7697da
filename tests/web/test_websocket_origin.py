"""The websocket handshake's origin check (otterweb/auth.py): a browser's Origin must be the
site's own, scheme, host and port alike, or a trusted origin; API clients send none."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from otterweb.accounts import tokens
from otterweb.asgi import application
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def viewer(django_user_model):
    Server.objects.create(name="here")
    return django_user_model.objects.create_superuser("viewer", password="pw-12345-x")


async def connects(user, *, host: str, origin: str | None, scheme: str = "ws", **extra) -> bool:
    execution = await sync_to_async(create_job)(script="Log-Information x;", servers=["here"])
    _token, text = await sync_to_async(tokens.create)(user=user)
    headers = [(b"authorization", f"Token {text}".encode()), (b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers += [(name.replace("_", "-").encode(), value.encode()) for name, value in extra.items()]
    connection = WebsocketCommunicator(
        application, f"/ws/executions/{execution.pk}/", headers=headers
    )
    connection.scope["scheme"] = scheme
    connected, _code = await connection.connect()
    await connection.disconnect()
    return connected


@pytest.mark.parametrize(
    "host, origin, scheme, expected",
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000", "ws", True),
        ("127.0.0.1:8000", None, "ws", True),  # an API client
        ("127.0.0.1:8000", "http://127.0.0.1:9000", "ws", False),  # another port
        ("127.0.0.1:8000", "https://127.0.0.1:8000", "ws", False),  # another scheme
        ("127.0.0.1", "https://127.0.0.1", "wss", True),
        ("127.0.0.1", "http://127.0.0.1", "wss", False),
        ("127.0.0.1:8000", "http://evil.example:8000", "ws", False),  # another host
        ("evil.example", "http://evil.example", "ws", False),  # not an allowed host
        ("127.0.0.1", "null", "ws", False),
    ],
)
async def test_websocket_origin_must_match_scheme_host_and_port(
    viewer, host, origin, scheme, expected
) -> None:
    assert await connects(viewer, host=host, origin=origin, scheme=scheme) is expected


async def test_websocket_origin_behind_a_tls_proxy_uses_its_scheme(viewer, settings) -> None:
    settings.OTTERWEB_BEHIND_PROXY = True
    assert await connects(
        viewer, host="127.0.0.1", origin="https://127.0.0.1", x_forwarded_proto="https"
    )
    settings.OTTERWEB_BEHIND_PROXY = False  # the header is not trusted without a proxy
    assert not await connects(
        viewer, host="127.0.0.1", origin="https://127.0.0.1", x_forwarded_proto="https"
    )


async def test_websocket_origin_in_csrf_trusted_origins_is_accepted(viewer, settings) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://ops.example.com"]
    assert await connects(viewer, host="127.0.0.1", origin="https://ops.example.com")
