"""Static files on a real `manage.py serve` with the default settings: the admin's, the API
docs' and the pages' files answer 200, compressed, with far-future cache headers on their hashed
names, and errors are the product's own pages."""

from __future__ import annotations

import re
import urllib.error
import urllib.request

import pytest

from tests.e2e.serving import Site, stop


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = Site(tmp_path_factory.mktemp("static"))
    server = site.serve()
    yield site
    stop(server)


def fetch(url: str, **headers: str):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_serve_static_files_are_compressed_and_cached_for_long(site) -> None:
    status, _, login = fetch(site.base + "/accounts/login/")
    assert status == 200
    [css] = re.findall(r'href="(/static/otterweb/site\.[0-9a-f]{12}\.css)"', login.decode())
    for encoding in ("br", "gzip"):
        status, headers, _ = fetch(site.base + css, **{"Accept-Encoding": encoding})
        assert status == 200 and headers.get("Content-Encoding") == encoding
        assert (
            "max-age=315360000" in headers["Cache-Control"]
            and "immutable" in headers["Cache-Control"]
        )


def test_serve_static_files_of_the_admin_and_the_api_docs_answer(site) -> None:
    for name in (
        "admin/css/base.css",
        "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
    ):
        status, headers, body = fetch(f"{site.base}/static/{name}")
        assert status == 200 and len(body) > 1000, name
        assert headers["Content-Type"].startswith(
            ("text/css", "text/javascript", "application/javascript")
        )


def test_serve_answers_a_missing_page_with_the_products_404(site) -> None:
    status, _, body = fetch(site.base + "/no/such/page/")
    page = body.decode()
    assert status == 404 and "Page not found" in page and "/static/otterweb/site." in page
    assert "URLconf" not in page  # DEBUG is off: no list of the site's URL patterns
