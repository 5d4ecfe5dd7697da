"""The `vite_entry` template tag: the tags of one page's bundle, from Vite's manifest, through
`{% static %}`."""

from __future__ import annotations

import json
import os

import pytest
from django.contrib.staticfiles.storage import StaticFilesStorage
from django.template import Context, Template

from otterweb.templatetags.vite import ViteError

MANIFEST = {
    "src/pages/item.ts": {
        "file": "assets/item-AbC123.js",
        "name": "item",
        "src": "src/pages/item.ts",
        "isEntry": True,
        "imports": ["_codemirror-XyZ789.js"],
        "css": ["assets/item-Def456.css"],
    },
    "_codemirror-XyZ789.js": {
        "file": "assets/codemirror-XyZ789.js",
        "name": "codemirror",
        "imports": ["_shared-Q1.js"],
    },
    "_shared-Q1.js": {"file": "assets/shared-Q1.js", "name": "shared"},
    "src/text/lint.ts": {"file": "assets/lint-L1.js", "src": "src/text/lint.ts"},
}


class HashingStorage(StaticFilesStorage):
    """Names as the production storage makes them: the file's hash before the extension."""

    def url(self, name):
        stem, dot, extension = name.rpartition(".")
        return super().url(f"{stem}.0123456789ab{dot}{extension}")


@pytest.fixture
def manifest(tmp_path, settings):
    path = tmp_path / ".vite" / "manifest.json"
    path.parent.mkdir()
    path.write_text(json.dumps(MANIFEST))
    settings.OTTERWEB_VITE_MANIFEST = path
    settings.STATIC_URL = "/static/"
    return path


def render(entry: str = "src/pages/item.ts") -> str:
    return Template('{% load vite %}{% vite_entry "' + entry + '" %}').render(Context())


def test_vite_entry_emits_the_module_script_its_css_and_modulepreload_links(manifest) -> None:
    assert render().splitlines() == [
        '<link rel="stylesheet" href="/static/frontend/assets/item-Def456.css">',
        '<link rel="modulepreload" href="/static/frontend/assets/codemirror-XyZ789.js">',
        '<link rel="modulepreload" href="/static/frontend/assets/shared-Q1.js">',
        '<script type="module" src="/static/frontend/assets/item-AbC123.js"></script>',
    ]


def test_vite_entry_maps_the_chunks_imports_to_the_storages_hashed_names(
    manifest, settings
) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": f"{__name__}.HashingStorage"},
    }
    html = render()
    importmap = json.loads(html.split('<script type="importmap">')[1].split("</script>")[0])
    assert importmap == {
        "imports": {
            "/static/frontend/assets/item-AbC123.js": "/static/frontend/assets/item-AbC123.0123456789ab.js",
            "/static/frontend/assets/codemirror-XyZ789.js": "/static/frontend/assets/codemirror-XyZ789.0123456789ab.js",
            "/static/frontend/assets/shared-Q1.js": "/static/frontend/assets/shared-Q1.0123456789ab.js",
        }
    }
    assert html.index("importmap") < html.index("modulepreload")  # the map comes first
    assert (
        '<link rel="stylesheet" href="/static/frontend/assets/item-Def456.0123456789ab.css">'
        in html
    )
    assert (
        '<link rel="modulepreload" href="/static/frontend/assets/codemirror-XyZ789.0123456789ab.js">'
        in html
    )
    assert html.endswith(
        '<script type="module" src="/static/frontend/assets/item-AbC123.0123456789ab.js"></script>'
    )


def test_vite_entry_refuses_an_unknown_entry_with_the_known_ones(manifest) -> None:
    with pytest.raises(ViteError, match=r"'src/pages/nope.ts' is not an entry .*src/pages/item.ts"):
        render("src/pages/nope.ts")


def test_vite_entry_refuses_a_module_that_is_not_an_entry(manifest) -> None:
    with pytest.raises(ViteError, match="is not an entry"):
        render("src/text/lint.ts")


def test_vite_entry_says_how_to_build_when_the_manifest_is_missing(manifest) -> None:
    manifest.unlink()
    with pytest.raises(ViteError, match=r"the frontend is not built: .* Run `make setup`"):
        render()


def test_vite_entry_reads_a_rebuilt_manifest(manifest) -> None:
    render()
    item = {**MANIFEST["src/pages/item.ts"], "file": "assets/item-New.js", "imports": [], "css": []}
    rebuilt = {**MANIFEST, "src/pages/item.ts": item}
    manifest.write_text(json.dumps(rebuilt))
    later = manifest.stat().st_mtime + 5
    os.utime(manifest, (later, later))
    assert render() == '<script type="module" src="/static/frontend/assets/item-New.js"></script>'
