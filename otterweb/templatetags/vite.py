"""``{% vite_entry "src/pages/item.ts" %}``: the tags that load one page's bundle from the
frontend build (frontend/vite.config.ts writes it, with Vite's manifest, into
otterweb/static/frontend/).

Every URL goes through ``{% static %}``, so the hashed names of the production storage are used.
The bundle's chunks import each other by their plain names (``./codemirror-….js``); an import map
sends those imports to the same hashed URLs that the modulepreload links fetch, so nothing is
loaded twice. With a storage that does not rename files there is nothing to map and no map."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote, urljoin

from django import template
from django.conf import settings
from django.templatetags.static import PrefixNode, static
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

BUILD = "frontend/"  # the build's folder among the static files
DEFAULT_MANIFEST = (
    Path(__file__).resolve().parent.parent / "static" / "frontend" / ".vite" / "manifest.json"
)


class ViteError(Exception):
    """The page asks for a bundle that the frontend build does not have."""


_cache: dict[Path, tuple[float, dict]] = {}


def manifest_path() -> Path:
    return Path(getattr(settings, "OTTERWEB_VITE_MANIFEST", DEFAULT_MANIFEST))


def load_manifest() -> dict:
    """Vite's manifest, read again only when the build has written a new one."""
    path = manifest_path()
    try:
        modified = path.stat().st_mtime
    except FileNotFoundError:
        raise ViteError(
            f"the frontend is not built: {path} is missing. Run `make setup` (it runs npm ci and "
            "vite build in frontend/)."
        ) from None
    cached = _cache.get(path)
    if cached is None or cached[0] != modified:
        cached = _cache[path] = (modified, json.loads(path.read_text(encoding="utf-8")))
    return cached[1]


def _chunks(manifest: dict, entry: str) -> list[str]:
    """The entry and every chunk it imports (not the dynamic ones), each once, entry first."""
    order: list[str] = []

    def visit(key: str) -> None:
        if key in order:
            return
        order.append(key)
        for imported in manifest[key].get("imports", ()):
            visit(imported)

    visit(entry)
    return order


def _plain_url(file: str) -> str:
    """Where the build's own imports point: the static URL without the storage's hash."""
    return urljoin(PrefixNode.handle_simple("STATIC_URL"), quote(BUILD + file))


@register.simple_tag
def vite_entry(entry: str) -> SafeString:
    """An import map (when the storage renames files), the stylesheets, the modulepreload links
    and the module script of ``entry``, a source path as vite.config.ts names it."""
    manifest = load_manifest()
    chunk = manifest.get(entry)
    if chunk is None or not chunk.get("isEntry"):
        known = ", ".join(sorted(k for k, v in manifest.items() if v.get("isEntry"))) or "none"
        raise ViteError(
            f"{entry!r} is not an entry of the frontend build (its entries: {known}). Add it to "
            "build.rolldownOptions.input in frontend/vite.config.ts and run `make setup`."
        )
    keys = _chunks(manifest, entry)
    files = [manifest[key]["file"] for key in keys]
    styles = [css for key in keys for css in manifest[key].get("css", ())]
    urls = {file: static(BUILD + file) for file in files}
    mapped = {_plain_url(file): url for file, url in urls.items() if _plain_url(file) != url}
    lines = []
    if mapped:
        # JSON inside <script>: "<" escaped, so no text in it can close the element
        body = json.dumps({"imports": mapped}, sort_keys=True).replace("<", "\\u003c")
        lines.append(mark_safe(f'<script type="importmap">{body}</script>'))
    lines += [
        format_html('<link rel="stylesheet" href="{}">', static(BUILD + css))
        for css in dict.fromkeys(styles)
    ]
    lines += [format_html('<link rel="modulepreload" href="{}">', urls[file]) for file in files[1:]]
    lines.append(format_html('<script type="module" src="{}"></script>', urls[files[0]]))
    return mark_safe("\n".join(lines))
