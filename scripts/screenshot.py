"""The pictures in docs/images: the README's live log of a deploy to two servers, its script
editor in both modes (blocks and text) and with a run's live log beside it, and the pages
docs/pages.md shows, on a fresh embedded site with an operations team's sample data, drawn by
Debian's Chromium (headless, through Playwright). Pages are 1280x800, the whole page only where
what matters is further down.

Run: .venv/bin/python scripts/screenshot.py [folder, docs/images by default]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.browser import browser_page, log_in  # noqa: E402
from tests.e2e.serving import Site, stop  # noqa: E402
from tests.e2e.test_pages import api, populate  # noqa: E402

SCRIPT = """\
set $Build = 2026.11.3;
set $Root = /tmp/otterweb-demo/$ServerName;

# Stop the service
{
    Log-Information Draining $ServerName before build $Build;
    SHExec echo "stopping otter-web on $ServerName";
}

# Install the release
{
    Ensure-Directory $Root/releases/$Build;
    Ensure-File $Root/releases/$Build/VERSION
    (
        Text: $Build
    );
    foreach $part in @(app, static, migrations)
    {
        Log-Information Copied $part to $Root/releases/$Build;
    }
}

# Health check
{
    Sleep 1;
    if $ServerName == web-us-1
    {
        Log-Warning Response time 840 ms on $ServerName is above the 500 ms budget;
    }
    Log-Information $ServerName answers on port 8080;
}
"""
# More history for the lists: what a week of an operations team looks like.
HISTORY = [
    ('Log-Information "rotated the nginx logs on $ServerName";', ["web-eu-1", "web-us-1"]),
    ('Log-Warning "certificate for $ServerName expires in 12 days";', ["web-eu-1"]),
    ('Log-Error "backup of $ServerName failed: disk full";', ["db-eu-1"]),
]
# Two weeks of configuration checks for the dashboard's chart (`manage.py shell`): each server
# drifted on some days, one server unreachable.
CHECKS = """
import random
from datetime import timedelta
from django.utils import timezone
from otterweb.configuration.models import Check, ConfigurationRun, ServerState, State
from otterweb.executions.models import Execution, Job
from otterweb.inventory.models import Server
random.seed(7)
job = Job.objects.create(name="routine configuration check", script="")
run = ConfigurationRun.objects.create(
    execution=Execution.objects.create(job=job, run_state="completed", ended=timezone.now()),
    purpose="check",
)
for n, server in enumerate(Server.objects.order_by("name")):
    drifts = n % 3 == 0
    for days in range(14):
        if random.random() < (0.6 if drifts else 0.15):
            Check.objects.create(
                server=server, run=run, state=State.DRIFTED, finished=True,
                checked=timezone.now() - timedelta(days=days),
            )
    ServerState.objects.update_or_create(
        server=server,
        defaults={"state": State.DRIFTED if drifts else State.CURRENT, "drift_count": 2 * drifts},
    )
Server.objects.filter(name__startswith="web-us").update(
    reachable=False, check_error="cannot connect to web-us-1:22: timed out after 10 s"
)
"""
# name, path (made from the sample data), the whole page or the window only
PAGES = [
    ("dashboard", "/", True),
    ("database", "/database/", False),
    ("execution-drift", "/executions/{drift}/", True),
    ("raft", "/rafts/ops/", False),
    ("raft-item", "/rafts/ops/deploy-web/", True),
    ("raft-diff", "/rafts/ops/deploy-web/-/diff/?old=1&new=2", False),
    ("server", "/inventory/servers/db-eu-1/", True),
    ("environments", "/inventory/environments/", False),
    ("job-template-form", "/templates/{template}/edit/", True),
    ("run-form", "/templates/{template}/", False),
    ("api-docs", "/api/docs/", False),
]


def shoot(page, target: Path) -> None:
    page.screenshot(path=str(target))
    print(target)


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "images")
    folder.mkdir(parents=True, exist_ok=True)
    site = Site(Path(tempfile.mkdtemp(prefix="otterweb-screenshot-")))
    server = site.serve(subprocess.DEVNULL)
    try:
        data = populate(site)
        # the server page's collected inventory: db-eu-1 is this machine (a local server)
        api(site, "POST", "/api/servers/db-eu-1/check/", {})
        for script, servers in HISTORY:
            execution = api(
                site, "POST", "/api/executions/", {"script": script, "servers": servers}
            )
            site.wait_for(execution["id"], lambda detail: detail["run_state"] == "completed")
        site.manage("shell", "-c", CHECKS)
        with browser_page(width=1100, height=860) as page:
            log_in(page, site)
            execution = api(
                site,
                "POST",
                "/api/executions/",
                {"script": SCRIPT, "servers": ["web-eu-1", "web-us-1"]},
            )
            page.goto(f"{site.base}/executions/{execution['id']}/")
            page.wait_for_function(
                "document.getElementById('state').dataset.runState === 'completed'"
            )
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(folder / "live-log.png"))
            print(folder / "live-log.png")
        ids = {"drift": data["drift"]["id"], "template": data["template"]["id"]}
        with browser_page(width=1280, height=800) as page:
            log_in(page, site)
            for name, path, full_page in PAGES:
                page.goto(site.base + path.format(**ids), wait_until="networkidle")
                if name == "api-docs":
                    page.wait_for_selector(".swagger-ui .opblock")
                target = folder / f"{name}.png"
                page.screenshot(path=str(target), full_page=full_page)
                print(target)
            # the script editor in both modes: the deploy as blocks, then as text
            api(
                site,
                "POST",
                "/api/raft-items/",
                {"raft": "ops", "name": "deploy-release", "kind": "script", "content": SCRIPT},
            )
            page.goto(site.base + "/rafts/ops/deploy-release/", wait_until="networkidle")
            page.get_by_role("button", name="Blocks", pressed=True).wait_for()
            page.locator(".otter-blocks .blocklyBlockCanvas").last.wait_for()
            page.locator(".otter-modes").scroll_into_view_if_needed()
            shoot(page, folder / "editor-blocks.png")
            page.get_by_role("button", name="Text", exact=True).click()
            page.get_by_role("button", name="Text", pressed=True).wait_for()
            page.locator(".otter-modes").scroll_into_view_if_needed()
            shoot(page, folder / "editor-text.png")
            # Run from the editor: the live log beside it
            page.get_by_label("Servers").select_option(["web-eu-1", "web-us-1"])
            page.get_by_role("button", name="Run", exact=True).click()
            page.wait_for_selector("#otter-run [data-run-state=completed]", timeout=60_000)
            page.locator(".otter-modes").scroll_into_view_if_needed()
            shoot(page, folder / "editor-run.png")
    finally:
        stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
