"""Debian's Chromium (installed by scripts/services), driven by Playwright. Playwright never
downloads a browser of its own here.

Beside opening a page: `check_accessibility` runs axe-core (bundled by axe-playwright-python)
on the page as it is and fails with a readable list of violations, and `Watch` records what went
wrong while pages loaded (console errors, uncaught exceptions, failed requests)."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from tests.e2e.serving import Site

# Debian's Chromium, as people browse with it: the benchmarks measure in it.
CHROMIUM = "/usr/bin/chromium"
# Its headless shell, the tests' browser: the same version's Blink and V8 without the browser's
# own UI layer (Debian's chromium-headless-shell; Playwright's default for headless tests). The
# same pages cost a quarter less CPU in it (the admin walk: 24 s of Chromium's CPU instead of
# 32), and the tests are CPU-bound.
TEST_CHROMIUM = "/usr/bin/chromium-headless-shell"
# The network outside this machine is closed: no background connections, no lookups of Google.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
]
PHONE = {"width": 390, "height": 844}  # an iPhone 12 to 15, in CSS pixels

# The rules axe-core runs: WCAG 2.0, 2.1 and 2.2 A and AA, and its best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@contextmanager
def browser(**context):
    """A browser context (its own cookies, storage and cache) in Debian's Chromium; ``context``
    as Playwright takes it. The Chromium of the module's tests when they share one (see
    `shared_chromium`), else one of its own."""
    with _chromium() as chromium:
        browsing = chromium.new_context(**{"viewport": {"width": 1280, "height": 800}, **context})
        Traffic.follow(browsing)
        try:
            yield browsing
        finally:
            browsing.close()


# The Chromium that `browser()` opens its contexts in while a `shared_chromium` block runs.
_shared: list = []


@contextmanager
def shared_chromium():
    """One Chromium for every `browser()` until the block ends: a launch costs about 0.8 s of
    CPU, a context 0.2 s of time. Only around tests that use no asyncio in this thread (the
    modules that drive the browser): while Playwright's sync API is started, the thread's event
    loop counts as running, and asyncio.run() refuses to start another."""
    with _launched() as chromium:
        _shared.append(chromium)
        try:
            yield
        finally:
            _shared.pop()


@contextmanager
def _chromium():
    if _shared:
        yield _shared[-1]
        return
    with _launched() as chromium:
        yield chromium


@contextmanager
def _launched():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=TEST_CHROMIUM, headless=True, args=FLAGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


class Traffic:
    """The requests of a browser context still waiting for their answer, and when that number
    last changed: what `settle` waits on."""

    def __init__(self) -> None:
        self.waiting = 0
        self.changed = time.monotonic()

    @classmethod
    def follow(cls, context) -> Traffic:
        traffic = cls()
        context.on("request", lambda request: traffic.count(+1))
        context.on("requestfinished", lambda request: traffic.count(-1))
        context.on("requestfailed", lambda request: traffic.count(-1))
        TRAFFIC[context] = traffic
        return traffic

    def count(self, change: int) -> None:
        self.waiting = max(0, self.waiting + change)
        self.changed = time.monotonic()


TRAFFIC: WeakKeyDictionary = WeakKeyDictionary()


def settle(page, *, quiet: float = 0.15, timeout: float = 30) -> None:
    """Wait until the page has loaded and no request of its browser context has been waiting
    for ``quiet`` seconds: Playwright's "networkidle" with a shorter quiet time (it waits
    500 ms), which the tests that walk every page pay once a page. A request started after
    the page's load (its script's first fetch) is waited for; a websocket is not a request."""
    page.wait_for_load_state("load")
    traffic = TRAFFIC[page.context]
    deadline = time.monotonic() + timeout
    while traffic.waiting or time.monotonic() - traffic.changed < quiet:
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"{page.url}: {traffic.waiting} requests still waiting after {timeout}s"
            )
        page.wait_for_timeout(20)


def open_settled(page, url: str, **settling):
    """Go to ``url`` and `settle`; the navigation's response."""
    response = page.goto(url, wait_until="load")
    settle(page, **settling)
    return response


@contextmanager
def browser_page(width: int = 1280, height: int = 800):
    with browser(viewport={"width": width, "height": height}) as context:
        yield context.new_page()


def log_in(page, site: Site, username: str = "ops", password: str = "e2e-password-123") -> None:
    page.goto(site.base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(site.base + "/")


def axe_violations(page, *, disable: tuple[str, ...] = ()) -> list[dict]:
    """axe-core's violations on the page as it is now (WCAG 2.x A/AA and best practices)."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]}
    if disable:
        options["rules"] = {rule: {"enabled": False} for rule in disable}
    return Axe().run(page, options=options).response["violations"]


def describe_violations(violations: list[dict]) -> str:
    """One line per violation and one per element it was found on: rule, impact, what to do."""
    lines = []
    for violation in violations:
        lines.append(
            f"- {violation['id']} ({violation['impact']}): {violation['help']} <{violation['helpUrl']}>"
        )
        for node in violation["nodes"][:8]:
            target = " ".join(str(part) for part in node["target"])
            summary = (node.get("failureSummary") or "").replace("\n", " ").strip()
            lines.append(f"    at {target}: {node['html'][:160]}")
            if summary:
                lines.append(f"       {summary[:300]}")
        if len(violation["nodes"]) > 8:
            lines.append(f"    … and {len(violation['nodes']) - 8} more elements")
    return "\n".join(lines)


def check_accessibility(page, *, disable: tuple[str, ...] = ()) -> None:
    """Fail with every axe-core violation on the page: rule id, impact, target, help."""
    violations = axe_violations(page, disable=disable)
    assert not violations, f"accessibility violations on {page.url}:\n" + describe_violations(
        violations
    )


def check_fits(page) -> None:
    """Nothing on the page is wider than the window (no horizontal scrolling)."""
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
        " > window.innerWidth + 1 && getComputedStyle(e).position !== 'absolute')"
        ".slice(0, 5).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')"
        " + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/ +/).join('.') : ''))]"
    )
    scroll_width, inner_width, wide = widths
    assert scroll_width <= inner_width, (
        f"{page.url} is {scroll_width}px wide in a {inner_width}px window; too wide: {wide}"
    )


@dataclass
class Watch:
    """What went wrong in a page while it was watched: console errors, uncaught exceptions,
    requests that failed or answered with a status of 400 or more. `expect(url)` excuses one
    address (a page that is meant to answer 404)."""

    problems: list[str] = field(default_factory=list)
    expected: set[str] = field(default_factory=set)
    statuses: dict[str, int] = field(default_factory=dict)

    def attach(self, page) -> Watch:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        return self

    def expect(self, url: str) -> None:
        self.expected.add(url)

    def _console(self, message) -> None:
        if message.type not in ("error", "assert"):
            return
        where = (message.location or {}).get("url", "")
        if where in self.expected:
            return
        self.problems.append(f"console {message.type}: {message.text} ({where})")

    def _failed(self, request) -> None:
        # ERR_ABORTED: the page was left before it finished (a favicon, a following navigation)
        if request.url in self.expected or request.failure == "net::ERR_ABORTED":
            return
        self.problems.append(f"request failed: {request.method} {request.url}: {request.failure}")

    def _response(self, response) -> None:
        self.statuses[response.url] = response.status
        if response.status >= 400 and response.url not in self.expected:
            self.problems.append(f"{response.status} for {response.request.method} {response.url}")

    def check(self, where: str = "") -> None:
        """Fail with what went wrong since the last check, and start again."""
        problems, self.problems = self.problems, []
        self.expected.clear()
        assert not problems, f"problems in the browser{' on ' + where if where else ''}:\n" + (
            "\n".join(f"- {problem}" for problem in problems)
        )


@contextmanager
def watched_page(site: Site | None = None, **context):
    """A page (logged in when ``site`` is given) and its `Watch`."""
    with browser(**context) as browsing:
        page = browsing.new_page()
        watch = Watch().attach(page)
        if site is not None:
            log_in(page, site)
            watch.check("the login page")
        yield page, watch
