"""The middleware under ASGI (daphne): every one of them runs in async mode, so a request goes
from the event loop to a thread once, for its view, not to a thread and back for a middleware
that could only run synchronously; and a NUL in the address is still a 400 there. Under a
synchronous handler (the test client, WSGI) every one runs in sync mode, and the static files
are served there as under daphne."""

from __future__ import annotations

import pytest
from asgiref.sync import AsyncToSync, SyncToAsync
from django.contrib.staticfiles import finders
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.test import AsyncClient, Client

from otterweb.middleware import RefuseNulCharacters, StaticFiles


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


@pytest.mark.parametrize(("handler", "is_async"), [(ASGIHandler, True), (WSGIHandler, False)])
def test_middleware_chain_holds_no_sync_async_adapter(handler, is_async) -> None:
    links = chain(handler())
    adapters = [
        type(link).__name__ for link in links if isinstance(link, SyncToAsync | AsyncToSync)
    ]
    assert adapters == []
    for kind in (RefuseNulCharacters, StaticFiles):
        [middleware] = [link for link in links if isinstance(link, kind)]
        assert middleware.is_async is is_async


def test_static_files_table_is_built_once_for_each_settings(settings, tmp_path) -> None:
    """Django's test client builds a handler for each client: they share the table of files,
    until other settings are in force."""

    def static_of(handler) -> StaticFiles:
        [middleware] = [link for link in chain(handler) if isinstance(link, StaticFiles)]
        return middleware

    first, second = static_of(WSGIHandler()), static_of(WSGIHandler())
    assert first.static is second.static
    assert "/static/extra.css" not in first.static.files
    (tmp_path / "extra.css").write_text("body {}")
    settings.STATIC_ROOT = tmp_path
    other = static_of(WSGIHandler())
    assert other.static is not first.static
    assert "/static/extra.css" in other.static.files
    assert Client().get("/static/extra.css").status_code == 200


async def test_static_files_are_served_alike_sync_and_async() -> None:
    url = "/static/otterweb/site.css"
    with open(finders.find("otterweb/site.css"), "rb") as source:
        expected = source.read()
    headers = {"Accept-Encoding": "identity"}
    synchronous = Client(headers=headers).get(url)
    asynchronous = await AsyncClient(headers=headers).get(url)
    assert synchronous.status_code == asynchronous.status_code == 200
    assert b"".join(synchronous.streaming_content) == expected
    assert b"".join([chunk async for chunk in asynchronous.streaming_content]) == expected
    shown = ("Content-Type", "Content-Length", "Cache-Control", "Last-Modified", "ETag")
    assert {name: synchronous.get(name) for name in shown} == {
        name: asynchronous.get(name) for name in shown
    }
    assert synchronous["Content-Type"].startswith("text/css")
    etag = synchronous["ETag"]
    assert Client().get(url, headers={"If-None-Match": etag}).status_code == 304
    assert Client().post(url).status_code == 405


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
