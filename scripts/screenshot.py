"""The README's picture of an execution's live log: a deploy to two servers, on a fresh embedded
site, drawn by Debian's Chromium (headless, through Playwright).

Run: .venv/bin/python scripts/screenshot.py [docs/images/live-log.png]
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
    if $ServerName == web2
    {
        Log-Warning Response time 840 ms on $ServerName is above the 500 ms budget;
    }
    Log-Information $ServerName answers on port 8080;
}
"""


def main() -> int:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "images" / "live-log.png")
    site = Site(Path(tempfile.mkdtemp(prefix="otterweb-screenshot-")))
    server = site.serve(subprocess.DEVNULL)
    try:
        for name in ("web1", "web2"):
            site.api("POST", "/api/servers/", {"name": name, "host": "127.0.0.1"})
        with browser_page(width=1100, height=860) as page:
            log_in(page, site)
            execution = site.api("POST", "/api/executions/", {"script": SCRIPT, "servers": ["web1", "web2"]})  # fmt: skip
            page.goto(f"{site.base}/executions/{execution['id']}/")
            page.wait_for_function("document.getElementById('state').textContent === 'completed'")
            page.evaluate("window.scrollTo(0, 0)")
            target.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(target))
    finally:
        stop(server)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
