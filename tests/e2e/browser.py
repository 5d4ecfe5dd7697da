"""Debian's Chromium (/usr/bin/chromium, installed by scripts/services), driven by Playwright.
Playwright never downloads a browser of its own here."""

from __future__ import annotations

from contextlib import contextmanager

from tests.e2e.serving import Site

CHROMIUM = "/usr/bin/chromium"
# The network outside this machine is closed: no background connections, no lookups of Google.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
         "--disable-background-networking", "--disable-component-update"]  # fmt: skip


@contextmanager
def browser_page(width: int = 1280, height: int = 800):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


def log_in(page, site: Site, username: str = "ops", password: str = "e2e-password-123") -> None:
    page.goto(site.base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(site.base + "/")
