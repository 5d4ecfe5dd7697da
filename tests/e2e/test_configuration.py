"""Configuration management in Debian's Chromium, in both modes (`manage.py serve`; daphne and
a Celery worker): a role's desired state checked on three servers (the local agent), the matrix
with its rollups, a drift's detail with its collection log, and the remediate flow: the plan,
the typed count the guard asks for, the approval, and the states current again. Each page has
no console error, no failed request, and passes axe-core."""

from __future__ import annotations

import os
import time

import pytest

from tests.e2e.browser import Watch, browser, check_accessibility, log_in, settle
from tests.e2e.serving import Site, make_site, stop

SCREENSHOTS = os.environ.get("OTTERWEB_SCREENSHOTS")  # a folder for the pages, to look at


@pytest.fixture(params=["embedded", "distributed"])
def site(request, tmp_path, services):
    # the guard asks for the count over 1 server: the flow below remediates 2
    site = make_site(request.param, tmp_path / "data", OTTERWEB_REMEDIATION_CONFIRM_OVER="1")
    processes = site.up()
    try:
        yield site
    finally:
        for process in processes:
            stop(process)
        site.close()


def states(site: Site) -> dict[str, str]:
    return {row["name"]: row["state"] for row in site.api("GET", "/api/configuration/")["servers"]}


def wait_for_states(site: Site, expected: dict[str, str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while (found := states(site)) != expected:
        assert time.monotonic() < deadline, found
        time.sleep(0.2)


def test_configuration_matrix_drift_and_remediation_in_a_browser(site, run_user_folder) -> None:
    folder = run_user_folder
    site.add_raft(
        "config",
        {
            "base-config": "Log-Information base checked;\n",
            "web-config": f"Ensure-File {folder}/$ServerName.txt\n(\n    Text: hello\n);\n",
        },
    )
    items = {i["name"]: i["id"] for i in site.api("GET", "/api/raft-items/")["results"]}
    site.api("POST", "/api/roles/", {"name": "base", "configuration": items["base-config"]})
    site.api(
        "POST",
        "/api/roles/",
        {
            "name": "web",
            "dependencies": ["base"],
            "configuration": items["web-config"],
            "remediation": "on-demand",
        },
    )
    site.api("POST", "/api/environments/", {"name": "production"})
    site.api("PATCH", "/api/servers/localhost/", {"roles": ["web"]})
    for name in ("web1", "web2"):
        site.api(
            "POST",
            "/api/servers/",
            {"name": name, "roles": ["web"], "environments": ["production"]},
        )
    (folder / "web2.txt").write_text("hello")  # as desired already

    with browser() as context:
        page = context.new_page()
        page.set_default_timeout(15_000)
        watch = Watch().attach(page)
        log_in(page, site)

        def look(name: str) -> None:
            settle(page)
            watch.check(name)
            check_accessibility(page)
            if SCREENSHOTS:
                page.screenshot(path=f"{SCREENSHOTS}/{name}.png", full_page=True)

        page.get_by_role("navigation", name="Main").get_by_role(
            "link", name="Configuration"
        ).click()
        look("configuration-empty")
        assert "unknown" in page.locator("table.matrix").inner_text()
        page.get_by_role("button", name="Check role web now").click()
        assert "Checking 3 servers of role web in 1 execution" in page.locator("body").inner_text()
        wait_for_states(site, {"localhost": "drifted", "web1": "drifted", "web2": "current"})

        page.reload()
        look("configuration-matrix")
        matrix = page.locator("table.matrix")
        assert matrix.locator("th", has_text="base").count() == 1
        row = matrix.locator("tr", has=page.get_by_role("link", name="web1", exact=True))
        assert "drifted (1)" in row.inner_text() and "current" in row.inner_text()
        # filters: the drifted ones, in production
        page.get_by_label("State", exact=True).select_option("drifted")
        page.get_by_label("Environment", exact=True).select_option("production")
        page.get_by_role("button", name="Filter").click()
        look("configuration-filtered")
        names = page.locator("table.matrix tbody th").all_inner_texts()
        assert names == ["web1"]

        # the drift's detail, and its collection log
        page.get_by_role("link", name="drifted (1)").click()
        look("configuration-drift")
        body = page.locator("main").inner_text()
        assert f"Ensure-File {folder}/web1.txt" in body and "role web" in body
        assert "config::web-config line 1" in body
        page.get_by_role("link", name="the collection log").click()
        page.wait_for_url("**/executions/*/")
        watch.check("the collection log")

        # remediate the role: the plan first, then the count typed to confirm
        page.goto(site.base + "/configuration/")
        page.get_by_role("button", name="Remediate role web").click()
        page.wait_for_url("**/configuration/plans/*/")
        look("configuration-plan")
        plan = page.locator("main").inner_text()
        assert "Remediate role web" in plan and "web2: not drifted (current)" in plan
        assert "2 to remediate" in plan
        # over the guard: the number of servers, typed; a wrong one runs nothing
        page.get_by_label("Type their number to confirm").fill("3")
        page.get_by_role("button", name="Approve and remediate 2 servers").click()
        look("configuration-plan-refused")
        assert "type their number to confirm" in page.locator("main").inner_text()
        page.get_by_label("Type their number to confirm").fill("2")
        page.get_by_role("button", name="Approve and remediate 2 servers").click()
        page.wait_for_url("**/executions/*/")
        watch.check("the remediation's log")
        wait_for_states(site, {"localhost": "current", "web1": "current", "web2": "current"})
    assert (folder / "web1.txt").read_text() == "hello"
    assert (folder / "localhost.txt").read_text() == "hello"
