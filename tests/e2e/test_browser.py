"""The execution page in a real browser: the live log arrives over the websocket (session
authentication) and is drawn as a nested tree with levels and statuses."""

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
        page.wait_for_function(
            "n => document.querySelectorAll('#log .entry').length >= n", arg=last_seq
        )
        assert page.locator("#log .entry").count() == last_seq
        assert page.locator("#status").text_content() == "Error"
        assert page.locator("#status").get_attribute("class") == "badge error"
        deploy = page.locator("#log > details.scope")
        assert deploy.locator("> summary").text_content().startswith("Deploy · ")
        check = deploy.locator("> .scope-body > details.scope")
        assert check.locator("> summary").text_content().startswith("Check · ")
        assert check.locator(".entry.level-warning").text_content() == "disk almost full"
        assert page.locator(".entry.level-error").first.text_content() == "broken"
        assert check.locator(".entry").count() == 301
        # in the order they happened: the line before the nested scope is drawn above it
        children = deploy.locator("> .scope-body > *")
        assert children.nth(0).text_content() == "starting"
        assert children.nth(1).evaluate("e => e.tagName") == "DETAILS"
        assert children.nth(2).text_content() == "broken"
        # levels have their colours; a scope's status colours its title, not its lines
        colour = "e => getComputedStyle(e).color"
        assert check.locator(".entry.level-warning").evaluate(colour) == "rgb(125, 82, 0)"  # --warn
        assert check.locator(".entry").nth(1).evaluate(colour) == "rgb(31, 35, 40)"
