"""The raft item page's text editor in a real browser on a real `manage.py serve`: the server's
diagnostics on the line they concern, completion, Format, and Save storing what is on screen."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.e2e.browser import check_accessibility, settle, watched_page
from tests.e2e.serving import Site, served_with_raft

# text mode by its header (OtterScript opens as blocks otherwise: tests/e2e/test_block_editor.py)
SCRIPT = "##AH:UseTextMode\n\nLog-Information starting;\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory, services):
    """One site for the module's tests (starting one is most of a test's time): each test edits
    an item of its own."""
    items = {"deploy": SCRIPT, "completing": SCRIPT, "bundled": SCRIPT}
    with served_with_raft(tmp_path_factory.mktemp("site"), "ops", items) as site:
        yield site


def editor_text(page) -> str:
    """The text on screen, line by line (a short script: every line is drawn)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.cm-content .cm-line')]"
        ".map(line => line.textContent).join('\\n')"
    )


def accept(page, label: str) -> None:
    """Accept the completion `label` once it is the selected one. CodeMirror ignores keys for
    75 ms after the list opens (its interactionDelay), so a quicker Enter would be a new line."""
    page.locator(".cm-tooltip-autocomplete li[aria-selected]", has_text=label).wait_for()
    page.wait_for_timeout(150)
    page.keyboard.press("Enter")


def stored(site: Site, name: str = "deploy") -> dict:
    items = site.api("GET", "/api/raft-items/?" + urllib.parse.urlencode({"raft": "ops"}))
    items = items["results"] if isinstance(items, dict) else items
    return next(item for item in items if item["name"] == name)


def test_text_editor_lints_completes_formats_and_saves_what_is_on_screen(site) -> None:
    with watched_page(site) as (page, watch):
        # the lint of half-typed text (a pause while typing, as on a busy machine) is answered
        # 400 with its diagnostics: the check endpoint refuses text that does not parse
        watch.expect(f"{site.base}/api/scripts/check/")
        page.goto(f"{site.base}/rafts/ops/deploy/")
        page.wait_for_selector(".cm-editor .cm-content")
        assert page.locator("#id_content").is_hidden()  # the form's field, behind the editor
        assert editor_text(page) == SCRIPT
        page.wait_for_function(
            "document.querySelector('.otter-editor-status').textContent === 'No problems found'"
        )

        # an unknown operation on line 2: the server's error is marked on that line
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type("Frobnicate /tmp;")
        error = page.locator(".cm-lintRange-error")
        error.wait_for()
        assert error.text_content() == "Frobnicate /tmp;"  # the statement, as the server says
        line = error.evaluate(
            "e => [...document.querySelectorAll('.cm-content .cm-line')].indexOf(e.closest('.cm-line'))"
        )
        assert line == 3
        assert page.locator(".cm-gutter-lint .cm-lint-marker-error").count() == 1
        assert page.locator(".otter-editor-status").text_content() == "1 error"
        error.hover()
        page.locator(".cm-tooltip-lint").wait_for()
        assert "unknown operation 'Frobnicate'" in page.locator(".cm-tooltip-lint").text_content()

        # take the line back out and write an operation with completion
        page.keyboard.press("Control+End")
        page.keyboard.press("Shift+Home")
        page.keyboard.type("Ensure-Fi")
        accept(page, "Ensure-File")
        page.keyboard.type(" /tmp/otterweb-e2e.txt (")  # closes the parenthesis itself
        page.keyboard.type("Exi")
        accept(page, "Exists")
        page.keyboard.type("true")
        page.keyboard.press("End")
        page.keyboard.type(";")
        typed = editor_text(page)
        assert typed == SCRIPT + "Ensure-File /tmp/otterweb-e2e.txt (Exists: true);"
        page.wait_for_function(
            "document.querySelector('.otter-editor-status').textContent === 'No problems found'"
        )

        # Format: the server's canonical text replaces it
        page.get_by_role("button", name="Format").click()
        page.wait_for_function(
            "document.querySelector('.otter-editor-status').textContent === 'Formatted'"
        )
        formatted = editor_text(page)
        canonical = site.api("POST", "/api/scripts/format/", {"script": typed})["script"]
        assert formatted == canonical
        assert "(\n    Exists: true\n);" in formatted

        # Save: the stored version is what was on screen
        page.fill("#id_message", "an ensured file")
        page.get_by_role("button", name="Save").click()  # commits through the API, in place
        page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
        item = stored(site)
        assert item["content"] == formatted
        assert item["version"] == 2
        assert editor_text(page) == formatted
        watch.check("the item page")


def test_text_editor_completes_the_inventorys_variables_and_the_rafts_modules(site) -> None:
    site.api("POST", "/api/variables/", {"name": "ReleasePort", "value": "8443"})
    site.api(
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": "Backup", "kind": "module", "content": "module Backup { }\n"},
    )
    with watched_page(site) as (page, watch):
        asked: list[str] = []
        page.on(
            "request", lambda r: asked.append(r.url) if "/api/scripts/names/" in r.url else None
        )
        page.goto(f"{site.base}/rafts/ops/completing/")
        page.wait_for_selector(".cm-editor .cm-content")
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type("Log-Information $Relea")
        accept(page, "$ReleasePort")
        page.keyboard.press("End")
        page.keyboard.type(";\ncall Back")
        option = page.locator(".cm-tooltip-autocomplete li[aria-selected]")
        option.filter(has_text="Backup").wait_for()
        assert "module in ops" in option.text_content()
        accept(page, "Backup")
        page.keyboard.type(";")
        assert editor_text(page) == SCRIPT + "Log-Information $ReleasePort;\ncall Backup;"
        page.wait_for_function(
            "document.querySelector('.otter-editor-status').textContent === 'No problems found'"
        )
        assert asked == [f"{site.base}/api/scripts/names/?raft=ops"]  # once, when first needed
        watch.check("the item page")


def test_text_editor_page_loads_each_bundle_file_once_and_is_accessible(site) -> None:
    with watched_page(site) as (page, watch):
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{site.base}/rafts/ops/bundled/")
        page.wait_for_selector(".cm-editor .cm-content")
        page.wait_for_function(
            "document.querySelector('.otter-editor-status').textContent === 'No problems found'"
        )
        names = [url.rsplit("/", 1)[1] for url in requested if "/static/frontend/" in url]
        # the storage's hashed names only (item-<vite hash>.<storage hash>.js): the chunks' own
        # imports go to the URLs the modulepreload links fetched, through the import map
        assert names and all(name.count(".") == 2 for name in names), names
        files = [name.split(".")[0] + "." + name.rsplit(".", 1)[1] for name in names]
        assert len(files) == len(set(files)), f"fetched twice: {names}"
        # the page, the editor, the run panel's log viewer; not Blockly (the script is text)
        chunks = {file.split("-")[0] for file in files}
        # the page's own entry with CodeMirror and the log viewer, and the small modules every
        # page shares (the API client, the header menu, the target preview); never Blockly
        assert chunks == {"item", "codemirror", "viewer", "http", "menu", "preview"}
        check_accessibility(page)
        watch.check("the item page")


def test_text_editor_is_not_loaded_by_pages_without_it(site) -> None:
    with watched_page(site) as (page, watch):
        page.goto(f"{site.base}/rafts/ops/")
        settle(page)
        loaded = [url for url in watch.statuses if "/static/frontend/" in url]
        assert loaded  # the page's own small entry (the header menu)
        assert not [url for url in loaded if "codemirror" in url or "/item-" in url]
        watch.check("the raft page")
