"""Run again in Chromium: from an execution that failed on one of its three servers, "Run again
on the servers that failed" opens the form with that server chosen, and its Run starts a new
execution there alone; "Run again" runs the job on the servers it ran on."""

from __future__ import annotations

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility, check_fits, log_in
from tests.e2e.serving import running_site

SERVERS = ["web1", "broken", "web2"]
SCRIPT = (
    'if $ServerName == broken { Log-Error "it broke"; }\nLog-Information "done on $ServerName";'
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with running_site("embedded", tmp_path_factory.mktemp("again")) as running:
        for name in SERVERS:
            running.api("POST", "/api/servers/", {"name": name, "agent_type": "local"})
        yield running


def test_run_again_on_the_failed_servers_then_on_all_of_them(site, shots) -> None:
    first = site.api("POST", "/api/executions/", {"script": SCRIPT, "servers": SERVERS})
    assert site.wait_for(first["id"], lambda d: d["run_state"] == "completed")["status"] == "error"
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        page.goto(f"{site.base}/executions/{first['id']}/")
        page.get_by_role("link", name="Run again on the 1 server that failed").click()
        page.wait_for_url(f"{site.base}/executions/{first['id']}/run-again/?failed=1")
        assert page.locator("#id_servers").evaluate(
            "select => [...select.selectedOptions].map(option => option.value)"
        ) == ["broken"]
        check_accessibility(page)
        check_fits(page)
        page.screenshot(path=shots / "run-again-failed.png", full_page=True)
        page.get_by_role("button", name="Run").click()
        page.wait_for_url(f"{site.base}/executions/*/")
        again = int(page.url.rstrip("/").rsplit("/", 1)[1])
        assert again != first["id"]
        page.wait_for_function("document.getElementById('state').dataset.runState === 'completed'")
        assert site.api("GET", f"/api/executions/{again}/")["job"]["targets"] == ["broken"]
        assert page.locator("#status").text_content() == "Error"  # it still breaks there

        page.get_by_role("link", name="Run again", exact=True).click()
        page.get_by_role("button", name="Run").click()
        page.wait_for_url(f"{site.base}/executions/*/")
        third = int(page.url.rstrip("/").rsplit("/", 1)[1])
        assert third not in (first["id"], again)
        assert "Running execution" in page.locator(".messages").inner_text()
        check_accessibility(page)
        page.screenshot(path=shots / "run-again-started.png", full_page=True)
        watch.check("the run again pages")
