"""Run from the raft item page in a real browser on a real `manage.py serve`: Run starts the run
without leaving the page and its live log opens in a panel beside the editor (the execution's
state, a link to its page, Cancel while it runs, Close); what runs is the text on screen, from
the text mode and from the blocks; a run that is refused (no targets, a script that does not
parse) says why on the page. No console errors; the panel passes axe."""

from __future__ import annotations

import re

import pytest

from tests.e2e.browser import check_accessibility, watched_page
from tests.e2e.serving import Site, served_with_raft

# opens as text; logs a few lines on the server it runs on
SCRIPT = """\
##AH:UseTextMode

Log-Information "first line on $ServerName";
Log-Information "second line";
Log-Information "third line";
"""
BLOCKS = 'Log-Information "from the blocks on $ServerName";\n'  # opens as blocks
WAIT = "##AH:UseTextMode\n\nSHExec sleep 60;\n"
MODES = "document.querySelector('[data-text-editor]').otterModes"
PANEL = "section#otter-run"


@pytest.fixture(scope="module")
def site(tmp_path_factory, services):
    """One site for the module's tests (starting one is most of a test's time): each test runs
    items of its own."""
    items = {"deploy": SCRIPT, "blocky": BLOCKS, "wait": WAIT, "refused": SCRIPT}
    with served_with_raft(tmp_path_factory.mktemp("site"), "ops", items) as site:
        yield site


def open_item(page, site: Site, name: str, mode: str = "text") -> str:
    url = f"{site.base}/rafts/ops/{name}/"
    page.goto(url)
    page.wait_for_selector(f".otter-modes-switch button[data-mode={mode}][aria-pressed=true]")
    if mode == "visual":
        page.locator(".otter-blocks .blocklyBlockCanvas").last.wait_for()
    return url


def run_on(page, server: str) -> None:
    page.get_by_label("Servers").select_option([server])
    page.get_by_role("button", name="Run", exact=True).click()


def panel(page):
    return page.get_by_role("region", name=re.compile(r"^Execution \d+: ops::"))


def execution_id(page) -> int:
    return int(page.locator(PANEL).get_attribute("data-execution"))


def wait_for_state(page, state: str, seconds: float = 30) -> None:
    page.wait_for_selector(f"{PANEL} [data-run-state={state}]", timeout=seconds * 1000)


def test_run_beside_streams_the_log_of_the_text_on_screen_while_the_page_stays(site) -> None:
    with watched_page(site) as (page, watch):
        url = open_item(page, site, "deploy")
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type('Log-Information "edited on screen";')
        run_on(page, "localhost")

        shown = panel(page)
        shown.wait_for()
        assert page.url == url  # the page stays
        heading = shown.get_by_role("heading", level=2)
        assert heading.evaluate("e => document.activeElement === e")  # focus moved to it
        execution = execution_id(page)
        assert heading.text_content() == f"Execution {execution}: ops::deploy"

        log = shown.locator(".otter-run-log")
        for line in ["first line on localhost", "second line", "third line", "edited on screen"]:
            log.locator(".entry", has_text=line).wait_for()
        wait_for_state(page, "completed")
        detail = site.api("GET", f"/api/executions/{execution}/")
        assert shown.locator("[data-run-status]").text_content() == detail["outcome_label"]
        assert detail["outcome"] == "normal"
        assert shown.get_by_role("button", name="Cancel").count() == 0  # ended
        link = shown.get_by_role("link", name="Open the execution page")
        assert link.get_attribute("href") == f"/executions/{execution}/"
        assert page.url == url

        # what ran is the text on screen, saved as the next version, which the page now shows
        assert detail["job"]["script"] == SCRIPT + 'Log-Information "edited on screen";'
        page.get_by_role("link", name="Version 2").wait_for()
        assert "Saved ops::deploy as version 2 and ran it." in shown.text_content()
        check_accessibility(page)

        # side by side on a wide screen
        editor_box = page.locator(".run-beside-editor").bounding_box()
        panel_box = shown.bounding_box()
        assert panel_box["x"] >= editor_box["x"] + editor_box["width"]

        # Save after the run starts from the version it made: no conflict
        page.keyboard.press("Escape")
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.press("Enter")
        page.keyboard.type('Log-Information "after the run";')
        page.get_by_role("button", name="Save", exact=True).click()
        page.get_by_role("status").filter(has_text="Saved as version 3.").wait_for()

        # Close: the panel goes, focus back on Run
        shown.get_by_role("button", name="Close").click()
        assert panel(page).count() == 0
        assert page.evaluate("document.activeElement.name") == "run"
        watch.check("the item page")


def test_run_beside_from_the_blocks_runs_their_text_and_is_below_on_a_phone(site) -> None:
    with watched_page(site, viewport={"width": 390, "height": 844}) as (page, watch):
        url = open_item(page, site, "blocky", mode="visual")
        # an edit made as text, then shown as blocks: Run sends the blocks' text
        page.get_by_role("button", name="Text", exact=True).click()
        page.wait_for_selector(".otter-modes-switch button[data-mode=text][aria-pressed=true]")
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type('Log-Information "added as text";')
        page.get_by_role("button", name="Blocks", exact=True).click()
        page.wait_for_selector(".otter-modes-switch button[data-mode=visual][aria-pressed=true]")
        page.wait_for_function(f"{MODES}.blocks()?.workspace.getAllBlocks(false).length === 2")
        expected = page.evaluate(f"{MODES}.text()")
        run_on(page, "localhost")

        shown = panel(page)
        shown.wait_for()
        log = shown.locator(".otter-run-log")
        log.locator(".entry", has_text="from the blocks on localhost").wait_for()
        log.locator(".entry", has_text="added as text").wait_for()
        wait_for_state(page, "completed")
        detail = site.api("GET", f"/api/executions/{execution_id(page)}/")
        assert detail["job"]["script"] == expected and "added as text" in expected
        assert page.url == url
        # below the editor on a narrow screen
        editor_box = page.locator(".run-beside-editor").bounding_box()
        assert shown.bounding_box()["y"] >= editor_box["y"] + editor_box["height"]
        watch.check("the item page on a phone")


def test_run_beside_cancels_a_long_run(site) -> None:
    with watched_page(site) as (page, watch):
        open_item(page, site, "wait")
        run_on(page, "localhost")
        shown = panel(page)
        wait_for_state(page, "executing")
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        shown.get_by_role("button", name="Cancel").click()
        wait_for_state(page, "completed", seconds=20)
        assert shown.locator("[data-run-status]").text_content() == "Cancelled"
        assert asked and asked[0].startswith("Cancel this run?")  # asked before it stopped
        assert shown.get_by_role("button", name="Cancel").count() == 0
        watch.check("the item page")


def test_run_beside_refused_says_why_on_the_page(site) -> None:
    with watched_page(site) as (page, watch):
        url = open_item(page, site, "refused")
        # the 400s: the run refused (twice) at the item's run address, the lint of text that
        # does not parse
        watch.expect(f"{url}-/run/")
        watch.expect(f"{site.base}/api/scripts/check/")

        # no targets
        page.get_by_role("button", name="Run", exact=True).click()
        run = page.get_by_role("group", name="Run")
        run.locator(".errorlist", has_text="Choose servers or roles to run on").wait_for()
        status = page.locator(".otter-run-status")
        assert status.text_content().startswith("Not run: Choose servers or roles to run on")
        assert page.url == url and panel(page).count() == 0

        # a script that does not parse: its error marked in the editor
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type("set $x 1;")  # line 6
        run_on(page, "localhost")
        page.wait_for_function(
            "document.querySelector('.otter-run-status').textContent.startsWith('Not run: line 6')"
        )
        page.wait_for_selector(".cm-lintRange-error")
        assert run.locator(".errorlist").count() == 1  # the last refusal only
        assert "ops::refused:6:" in run.locator(".errorlist").text_content()
        assert panel(page).count() == 0
        executions = site.api("GET", "/api/executions/")["results"]
        assert [e for e in executions if e["job"]["name"] == "ops::refused"] == []
        check_accessibility(page)
        watch.check("the item page")
