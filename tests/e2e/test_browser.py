"""The execution page in a real browser: the live log arrives over the websocket (session
authentication) and is drawn by the log viewer as a nested tree of scopes (headers with their
counts, lines indented under them) with levels and statuses."""

from __future__ import annotations

import subprocess

import pytest

from tests.e2e.browser import browser_page, log_in
from tests.e2e.serving import Site, stop

# The script targets the server itself (a job without servers is refused otherwise); a `for`
# without a description opens no log scope, so Deploy is the log's first scope.
SCRIPT = """\
for server localhost
{
    # Deploy
    {
        Log-Information starting;
        # Check
        {
            Log-Warning disk almost full;
            foreach $i in @Range(1, 300) { Log-Information step $i; }
        }
        try { Log-Error broken; } catch { Log-Information recovered; }
    }
}
"""


@pytest.fixture
def site(tmp_path, services):
    site = Site(tmp_path)
    server = site.serve(subprocess.DEVNULL)
    yield site
    stop(server)


def test_execution_page_draws_the_live_log_as_a_nested_tree(site) -> None:
    with browser_page() as page:
        log_in(page, site)
        execution = site.api("POST", "/api/executions/", {"script": SCRIPT})
        page.goto(f"{site.base}/executions/{execution['id']}/")
        page.wait_for_function("document.getElementById('state').dataset.runState === 'completed'")
        last_seq = site.api("GET", f"/api/executions/{execution['id']}/")["last_seq"]
        assert (
            last_seq == 303
        )  # starting, the warning, 300 steps, broken (Log-Error does not throw)
        page.wait_for_selector("#log[data-connection=complete][data-ready=true]")
        page.keyboard.press("Home")  # from the tail, followed while it ran, to the top
        assert page.locator("#status").text_content() == "Error"
        assert page.locator("#status").get_attribute("class") == "badge error"
        # scope headers count their lines with their descendants', nested one level a scope
        deploy = page.locator("#log .log-scope", has_text="Deploy")
        check = page.locator("#log .log-scope", has_text="Check")
        assert deploy.get_attribute("aria-level") == "1"
        assert check.get_attribute("aria-level") == "2"
        counts = ".log-scope-counts"
        assert deploy.locator(counts).text_content() == "303 lines · 1 warning · 1 error"
        assert check.locator(counts).text_content() == "301 lines · 1 warning"
        warning = page.locator("#log .log-line.level-warning")
        assert warning.locator(".log-text").text_content() == "disk almost full"
        assert warning.get_attribute("aria-level") == "3"
        # in the order they happened: the line before the nested scope is drawn above it, the
        # one after below its lines (Check collapsed to see both)
        check.locator(".log-toggle").click()
        page.wait_for_selector("#log .log-scope[aria-expanded=false]")
        rows = page.locator("#log .log-rows > *")
        texts = [
            rows.nth(i).locator(".log-text, .log-scope-name").first.text_content()
            for i in range(rows.count())
        ]
        assert texts == ["Deploy", "starting", "Check", "broken"]
        assert page.locator("#log .log-line.level-error .log-text").text_content() == "broken"
        # levels have their colours; a scope's status colours its header, not its lines
        colour = "e => getComputedStyle(e).color"
        check.locator(".log-toggle").click()
        page.wait_for_selector("#log .log-line.level-warning")
        assert warning.evaluate(colour) == "rgb(125, 82, 0)"  # --warn
        step = page.locator("#log .log-line", has_text="step 1").first
        assert step.evaluate(colour) == "rgb(31, 35, 40)"
