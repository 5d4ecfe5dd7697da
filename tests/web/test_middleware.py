"""The middleware under ASGI (daphne): every one of them runs in async mode, so a request goes
from the event loop to a thread once, for its view, not to a thread and back for a middleware
that could only run synchronously; and a NUL in the address is still a 400 there."""

from __future__ import annotations

import pytest
from asgiref.sync import AsyncToSync, SyncToAsync
from django.core.handlers.asgi import ASGIHandler
from django.test import AsyncClient

from otterweb.middleware import RefuseNulCharacters


def chain(handler) -> list:
    """The middleware chain from the top down to the view's handler: each middleware, the
    function around it that turns exceptions into answers, and any adapter."""
    links, link = [], handler._middleware_chain
    while link is not None and len(links) < 100:
        links.append(link)
        link = next(
            (
                getattr(link, name)
                for name in ("__wrapped__", "get_response", "awaitable")
                if getattr(link, name, None) is not None
            ),
            None,
        )
    return links


def test_middleware_chain_under_asgi_holds_no_sync_async_adapter() -> None:
    links = chain(ASGIHandler())
    adapters = [
        type(link).__name__ for link in links if isinstance(link, SyncToAsync | AsyncToSync)
    ]
    assert adapters == []
    [refuse] = [link for link in links if isinstance(link, RefuseNulCharacters)]
    assert refuse.is_async


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "kind"),
    [("/api/servers/web%00/", "application/json"), ("/inventory/servers/x%00/", "text/plain")],
)
async def test_refuse_nul_characters_under_asgi_answers_400_naming_it(url, kind) -> None:
    answer = await AsyncClient().get(url)
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith(kind)
    assert b"NUL character" in answer.content
    assert (await AsyncClient().get("/api/servers/web/")).status_code in (401, 403)
