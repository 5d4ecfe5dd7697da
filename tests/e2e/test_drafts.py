"""Drafts, commit and conflicts on the raft item page in a real browser on a real `manage.py
serve`: typing is kept as a draft that a reload offers back, Save commits through the API, and
a commit from a version someone else has moved on from shows the conflict panel with the diffs
until the user chooses ("Save mine anyway" or "Load their version"). No console errors."""

from __future__ import annotations

import urllib.error
import urllib.parse
from contextlib import contextmanager

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility, log_in, settle, watched_page
from tests.e2e.serving import Site, served_with_raft

# opens in the text mode whatever the item page's default mode is
SCRIPT = "##AH:UseTextMode\n\nLog-Information starting;\n"
PAGE = "/rafts/ops/deploy/"


@pytest.fixture(scope="module")
def served(tmp_path_factory, services):
    with served_with_raft(tmp_path_factory.mktemp("site"), "ops", {}) as site:
        yield site


@pytest.fixture
def site(served):
    """The module's site (starting one is most of a test's time) with the item made afresh: its
    versions, drafts and conflicts are the test's own."""
    old = stored(served)
    if old:
        served.api("DELETE", f"/api/raft-items/{old['id']}/")
    served.api(
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": "deploy", "kind": "script", "content": SCRIPT},
    )
    return served


def stored(site: Site) -> dict | None:
    items = site.api("GET", "/api/raft-items/?" + urllib.parse.urlencode({"raft": "ops"}))
    items = items["results"] if isinstance(items, dict) else items
    return next((item for item in items if item["name"] == "deploy"), None)


def has_draft(site: Site) -> bool:
    try:
        site.api("GET", f"/api/raft-items/{stored(site)['id']}/draft/")
    except urllib.error.HTTPError as error:
        assert error.code == 404
        return False
    return True


def editor_text(page) -> str:
    return page.evaluate(
        "() => [...document.querySelectorAll('.cm-content .cm-line')]"
        ".map(line => line.textContent).join('\\n')"
    )


def open_item(page, site: Site) -> None:
    page.goto(site.base + PAGE)
    page.wait_for_selector(".cm-editor .cm-content")
    page.wait_for_function(
        "document.querySelector('.otter-editor-status').textContent === 'No problems found'"
    )


def type_line(page, text: str) -> None:
    page.click(".cm-content")
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def wait_for_status(page, text: str) -> None:
    page.wait_for_function(
        "text => document.querySelector('.otter-commit-status').textContent === text",
        arg=text,
    )


def save(page, message: str) -> None:
    page.get_by_label("Why it changed").fill(message)
    page.get_by_role("button", name="Save", exact=True).click()


def test_drafts_are_kept_while_typing_and_offered_back_after_a_reload(site) -> None:
    with watched_page(site) as (page, watch):
        open_item(page, site)
        assert page.locator(".otter-draft-notice").count() == 0
        type_line(page, "Log-Information drafted;")
        typed = editor_text(page)
        page.wait_for_function(
            "document.querySelector('.otter-draft-saved').textContent.startsWith('Draft saved ')"
        )
        # quiet: not a live region (the polite status is a separate element)
        assert page.locator(".otter-draft-saved").get_attribute("aria-live") is None
        assert has_draft(site)
        assert stored(site)["version"] == 1  # a draft is never a version

        page.reload()
        page.wait_for_selector(".cm-editor .cm-content")
        notice = page.get_by_role("region", name="You have an unsaved draft", exact=False)
        notice.wait_for()
        assert "You have an unsaved draft from " in notice.text_content()
        assert editor_text(page) == SCRIPT  # the saved text, until Restore
        check_accessibility(page)
        notice.get_by_role("button", name="Restore draft").click()
        wait_for_status(page, "Draft restored.")
        assert page.locator(".otter-draft-notice").count() == 0
        assert editor_text(page) == typed

        # the changes since the saved version, from the server's diff of the text on screen
        page.get_by_role("button", name="Changes since the newest version").click()
        changes = page.get_by_role("region", name="Changes from version 1 to the text on screen")
        changes.wait_for()
        assert changes.locator(".line.added").all_text_contents() == ["+Log-Information drafted;"]
        assert (
            page.get_by_role("button", name="Changes since the newest version").get_attribute(
                "aria-expanded"
            )
            == "true"
        )

        # Save commits through the API: a version, the page updated in place, the draft gone
        save(page, "drafted a line")
        wait_for_status(page, "Saved as version 2.")
        item = stored(site)
        assert item["version"] == 2
        assert item["content"] == typed
        assert not has_draft(site)
        assert page.url == site.base + PAGE  # no navigation
        assert "version 2" in page.locator(".page-header p").text_content()
        row = page.get_by_role("row").filter(has_text="drafted a line")
        assert row.get_by_role("link", name="Version 2").count() == 1
        assert page.get_by_label("Why it changed").input_value() == ""
        assert page.locator("#otter-changes").is_hidden()
        watch.check("the item page")

        # the next reload offers nothing: the commit forgot the draft
        page.reload()
        open_item(page, site)
        settle(page)
        assert page.locator(".otter-draft-notice").count() == 0
        watch.check("the item page after the commit")


def test_discarding_a_draft_forgets_it(site) -> None:
    with watched_page(site) as (page, watch):
        open_item(page, site)
        type_line(page, "Log-Information throwaway;")
        page.wait_for_function(
            "document.querySelector('.otter-draft-saved').textContent.startsWith('Draft saved ')"
        )
        page.reload()
        page.get_by_role("button", name="Discard draft").click()
        wait_for_status(page, "Draft discarded.")
        assert not has_draft(site)
        assert "throwaway" not in editor_text(page)
        watch.check("the item page")


@contextmanager
def two_people(site: Site):
    """Two logged-in pages, each in a browser context of its own (its own session)."""
    with browser() as first, browser() as second:
        pages = []
        for context in (first, second):
            page = context.new_page()
            watch = Watch().attach(page)
            log_in(page, site)
            watch.check("the login page")
            pages.append((page, watch))
        yield pages


def test_a_commit_from_an_older_version_shows_the_conflict_until_the_user_chooses(site) -> None:
    with two_people(site) as [(mine, my_watch), (theirs, their_watch)]:
        open_item(mine, site)
        open_item(theirs, site)

        # they save first, from version 1
        type_line(theirs, "Log-Information theirs;")
        save(theirs, "their line")
        wait_for_status(theirs, "Saved as version 2.")
        their_text = editor_text(theirs)
        their_watch.check("their item page")

        # my commit, also from version 1, is refused: the panel says who, when, why, and how
        item_id = stored(site)["id"]
        my_watch.expect(f"{site.base}/api/raft-items/{item_id}/commit/")  # the 409, expected
        type_line(mine, "Log-Information mine;")
        my_text = editor_text(mine)
        save(mine, "my line")
        panel = mine.get_by_role("region", name="Not saved: ops saved version 2 meanwhile")
        panel.wait_for()
        assert stored(site)["version"] == 2  # nothing overwritten
        assert "their line" in panel.text_content()
        assert mine.evaluate("document.activeElement.textContent") == (
            "Not saved: ops saved version 2 meanwhile"
        )
        theirs_diff = panel.get_by_role("region", name="Changes from version 1 to version 2")
        assert theirs_diff.locator(".line.added").all_text_contents() == [
            "+Log-Information theirs;"
        ]
        mine_diff = panel.get_by_role("region", name="Changes from version 2 to your text")
        assert mine_diff.locator(".line.removed").all_text_contents() == [
            "-Log-Information theirs;"
        ]
        assert mine_diff.locator(".line.added").all_text_contents() == ["+Log-Information mine;"]
        assert mine_diff.locator(".line.hunk").count() == 1
        check_accessibility(mine)
        my_watch.check("the conflict")

        # Save mine anyway: committed from version 2, knowingly
        panel.get_by_role("button", name="Save mine anyway").click()
        wait_for_status(mine, "Saved as version 3.")
        item = stored(site)
        assert (item["version"], item["content"]) == (3, my_text)
        assert mine.locator(".otter-conflict").count() == 0
        my_watch.check("after Save mine anyway")

        # now they are behind: Load their version takes the newest text (mine) into the editor
        their_watch.expect(f"{site.base}/api/raft-items/{item_id}/commit/")
        type_line(theirs, "\nLog-Information again;")
        save(theirs, "again")
        panel = theirs.get_by_role("region", name="Not saved: ops saved version 3 meanwhile")
        panel.wait_for()
        panel.get_by_role("button", name="Load their version").click()
        wait_for_status(
            theirs, "Loaded version 3. Undo (Ctrl+Z) in the editor brings your text back."
        )
        assert editor_text(theirs) == my_text
        assert their_text != my_text
        # and a commit from there is not a conflict
        type_line(theirs, "\nLog-Information merged;")
        save(theirs, "merged")
        wait_for_status(theirs, "Saved as version 4.")
        assert stored(site)["content"] == my_text + "\nLog-Information merged;"
        their_watch.check("their item page")


def test_a_script_that_does_not_parse_is_not_committed_and_its_errors_are_marked(site) -> None:
    with watched_page(site) as (page, watch):
        open_item(page, site)
        item_id = stored(site)["id"]
        watch.expect(f"{site.base}/api/raft-items/{item_id}/commit/")  # the 400, expected
        watch.expect(site.base + "/api/scripts/check/")  # the lint's 400 of the same text
        type_line(page, "Log-Information (;")
        save(page, "broken")
        page.wait_for_function(
            "document.querySelector('.otter-commit-status').textContent.startsWith('Not saved: line 4')"
        )
        page.locator(".cm-lintRange-error").first.wait_for()
        assert stored(site)["version"] == 1
        watch.check("the item page")
