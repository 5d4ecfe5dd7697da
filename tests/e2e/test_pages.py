"""Every page of the site, in Debian's Chromium, on a real server with a small inventory: each URL
the URL resolver knows (parameters filled from the objects made here) answers a signed-in user
with a page that has no console error, no failed request and no axe-core violation, and fits a
phone's width; a signed-out visitor is sent to the login page. The admin, the API docs (Swagger
UI) and the 404 page are checked the same way."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.browser import (
    PHONE,
    Watch,
    browser,
    check_accessibility,
    check_fits,
    log_in,
    open_settled,
)
from tests.e2e.serving import Site, stop

DEPLOY = """\
# Deploy the web release
{
    Log-Information Deploying release $Version to $ServerName;
    SHExec echo "release $Version unpacked";
}
"""
DRIFT_PATH = "/tmp/otterweb-e2e-drift-motd"


# What an operations team would describe first, in the order the API needs it.
INVENTORY = [
    ("environments", {"name": "production", "description": "Customer-facing servers"}),
    ("environments", {"name": "production-eu", "parent": "production", "description": "Frankfurt"}),
    ("environments", {"name": "production-us", "parent": "production", "description": "Virginia"}),
    ("environments", {"name": "staging", "description": "Release candidates, reset weekly"}),
    ("roles", {"name": "base", "description": "Hardening, NTP and the monitoring agent"}),
    ("roles", {"name": "web", "description": "nginx and the app", "dependencies": ["base"]}),
    ("roles", {"name": "database", "description": "PostgreSQL 16", "dependencies": ["base"]}),
    (
        "credentials",
        {
            "name": "deploy-ssh",
            "kind": "password",
            "username": "deploy",
            "secret": "s3cret-deploy-pass",
            "description": "The deploy user on every server",
        },
    ),
    (
        "servers",
        {
            "name": "web-eu-1",
            "host": "127.0.0.1",
            "roles": ["web"],
            "environments": ["production-eu"],
        },
    ),
    (
        "servers",
        {
            "name": "web-us-1",
            "host": "127.0.0.1",
            "roles": ["web"],
            "environments": ["production-us"],
        },
    ),
    (
        "servers",
        {
            "name": "db-eu-1",
            "host": "127.0.0.1",
            "roles": ["database"],
            "environments": ["production-eu"],
        },
    ),
    (
        "servers",
        {
            "name": "web-staging-1",
            "host": "127.0.0.1",
            "roles": ["web"],
            "environments": ["staging"],
        },
    ),
    ("variables", {"name": "NtpServer", "value": "pool.ntp.org"}),
    ("variables", {"name": "HttpPort", "value": "8080", "role": "web"}),
    ("variables", {"name": "LogLevel", "value": "warning", "environment": "production"}),
    (
        "variables",
        {
            "name": "DbPassword",
            "value": "correct-horse-battery",
            "sensitive": True,
            "server": "db-eu-1",
        },
    ),
    ("rafts", {"name": "ops", "description": "Scripts of the operations team"}),
]
PROMPTS = [
    {
        "name": "Version",
        "type": "text",
        "default": "2026.11.3",
        "required": True,
        "description": "The release to install",
    },
    {
        "name": "Ticket",
        "type": "text",
        "default": "",
        "required": False,
        "description": "The change ticket, for the log",
    },
]


def api(site: Site, method: str, path: str, body: dict | None = None):
    """site.api, failing with what the API answered."""
    try:
        return site.api(method, path, body)
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read()[:2000]!r}") from None


LONG_NAME = "a-name-as-long-as-an-item-name-may-be-" + "x" * 162


def populate(site: Site) -> dict:
    """Through the API: environments in a tree, roles with a dependency, servers, variables (one
    sensitive), a credential, a raft with a script saved twice, a job template with two prompts,
    an execution that completed and a collect that found drift. Returns the objects by kind."""
    made = {kind: api(site, "POST", f"/api/{kind}/", body) for kind, body in INVENTORY}
    item = api(
        site,
        "POST",
        "/api/raft-items/",
        {
            "raft": "ops",
            "name": "deploy-web",
            "kind": "script",
            "content": DEPLOY,
            "message": "First deploy script",
        },
    )
    item = api(
        site,
        "PATCH",
        f"/api/raft-items/{item['id']}/",
        {"content": DEPLOY.replace("unpacked", "installed"), "message": "Say installed"},
    )
    versions = api(site, "GET", f"/api/raft-item-versions/?item={item['id']}")
    # as long as a name may be, in one word: pages wrap it, never scroll sideways for it
    long = {"raft": "ops", "name": LONG_NAME, "kind": "script", "content": "Log-Information x;"}
    api(site, "POST", "/api/raft-items/", long)
    template = api(
        site,
        "POST",
        "/api/job-templates/",
        {
            "name": "Deploy web",
            "description": "Roll a release out to the web servers",
            "raft_item": item["id"],
            "targeting": "roles",
            "roles": ["web"],
            "environments": ["production"],
            "mode": "execute",
            "prompts": PROMPTS,
        },
    )
    completed = api(
        site,
        "POST",
        "/api/executions/",
        {
            "script": 'Log-Information "disk check on $ServerName";',
            "servers": ["web-eu-1", "db-eu-1"],
        },
    )
    Path(DRIFT_PATH).write_text("Welcome, stranger\n")
    drift = api(
        site,
        "POST",
        "/api/executions/",
        {
            "script": f"Ensure-File {DRIFT_PATH} (Text: Authorised use only);",
            "mode": "collect",
            "servers": ["db-eu-1"],
        },
    )
    for execution in (completed, drift):
        site.wait_for(execution["id"], lambda detail: detail["run_state"] == "completed")
    check, plan = configure(site)
    trigger = api(
        site,
        "POST",
        f"/api/job-templates/{template['id']}/triggers/",
        {"name": "From the release pipeline", "kind": "token"},
    )
    schedules = api(site, "GET", "/api/schedules/")
    return {
        "execution": completed,
        "drift": drift,
        "template": template,
        "raft": made["rafts"],
        "item": item,
        "versions": versions.get("results", versions),
        "server": {"name": "db-eu-1"},
        "role": {"name": "web"},
        "environment": {"name": "production"},
        "credential": {"name": "deploy-ssh"},
        "variable": made["variables"]["id"],
        "check": check,
        "plan": plan,
        "trigger": trigger["id"],
        "schedule": schedules.get("results", schedules)[0]["id"],
    }


def configure(site: Site) -> tuple[int, int]:
    """The database role's desired state (the file the collect above found drifted), checked on
    db-eu-1, and a plan to remediate it: the check's id and the plan's."""
    item = api(
        site,
        "POST",
        "/api/raft-items/",
        {
            "raft": "ops",
            "name": "database-config",
            "kind": "script",
            "content": f"Ensure-File {DRIFT_PATH} (Text: Authorised use only);",
        },
    )
    api(
        site,
        "PATCH",
        "/api/roles/database/",
        {"configuration": item["id"], "remediation": "on-demand"},
    )
    (execution,) = api(site, "POST", "/api/configuration/check/", {"server": "db-eu-1"})[
        "executions"
    ]
    site.wait_for(execution["id"], lambda detail: detail["run_state"] == "completed")
    (check,) = api(site, "GET", "/api/configuration/servers/db-eu-1/")["checks"]
    plan = api(site, "POST", "/api/configuration/plans/", {"server": "db-eu-1"})
    return check["id"], plan["id"]


# Run inside the site (`manage.py shell -c`): every URL pattern, with the methods its view answers,
# and the admin's pages for every registered model (the list, the add form, one object's form).
WALK = """
import json
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import URLResolver, get_resolver, reverse

def walk(patterns, prefix='', namespace=''):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace)
            continue
        view = getattr(pattern.callback, 'view_class', None)
        methods = [m for m in view.http_method_names if hasattr(view, m)] if view else ['get']
        actions = getattr(pattern.callback, 'actions', None)
        if actions:
            methods = list(actions)
        yield {'route': prefix + str(pattern.pattern), 'name': pattern.name, 'namespace': namespace,
               'methods': methods}

request = RequestFactory().get('/admin/')
request.user = get_user_model().objects.filter(is_superuser=True).first()
admin_pages = [reverse('admin:index')]
for model, model_admin in admin.site._registry.items():
    meta = model._meta
    admin_pages.append(reverse(f'admin:{meta.app_label}_{meta.model_name}_changelist'))
    if model_admin.has_add_permission(request):
        admin_pages.append(reverse(f'admin:{meta.app_label}_{meta.model_name}_add'))
    first = model._default_manager.order_by('pk').first()
    if first is not None:
        admin_pages.append(reverse(f'admin:{meta.app_label}_{meta.model_name}_change', args=[first.pk]))
print(json.dumps({'patterns': list(walk(get_resolver().url_patterns)), 'admin': sorted(set(admin_pages))}))
"""
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
# Pages anyone may open; every other page sends a signed-out visitor to the login page.
PUBLIC = {"login"}


def parameter_values(data: dict) -> dict[tuple[str, str], str]:
    """(the fixed word before a parameter, the parameter) -> a value from the objects made."""
    first, second = data["versions"][-1], data["versions"][0]
    by_collection = {
        "executions": data["execution"]["id"],
        "templates": data["template"]["id"],
        "job-templates": data["template"]["id"],
        "rafts": data["raft"]["name"],
        "items": data["item"]["name"],
        "versions": second["number"],
        "servers": data["server"]["name"],
        "roles": data["role"]["name"],
        "environments": data["environment"]["name"],
        "credentials": data["credential"]["name"],
        "variables": data["variable"],
        "checks": data["check"],
        "plans": data["plan"],
        "schedules": data["schedule"],
    }
    values = {}
    for collection, value in by_collection.items():
        for parameter in ("pk", "id", "name", "slug", collection.rstrip("s"), collection):
            values[(collection, parameter)] = str(value)
    values.update(
        {
            ("rafts", "raft"): data["raft"]["name"],
            ("rafts", "item"): data["item"]["name"],
            ("rafts", "name"): data["item"]["name"],
            ("rafts", "path"): data["item"]["name"],
            ("rafts", "number"): str(second["number"]),
            ("rafts", "version"): str(second["number"]),
            ("rafts", "old"): str(first["number"]),
            ("rafts", "new"): str(second["number"]),
            ("rafts", "a"): str(first["number"]),
            ("rafts", "b"): str(second["number"]),
            ("templates", "template"): str(data["template"]["id"]),
            ("triggers", "pk"): data["trigger"],
        }
    )
    return values


def fill(route: str, values: dict[tuple[str, str], str]) -> str:
    """The path of a route with its parameters filled in."""
    path, position = "", 0
    for match in PARAMETER.finditer(route):
        words = [word for word in PARAMETER.sub("", route[: match.start()]).split("/") if word]
        for word in reversed(words):
            if (word, match.group(2)) in values:
                value = values[(word, match.group(2))]
                break
        else:
            raise AssertionError(
                f"no value for <{match.group(2)}> in {route!r}: add one to parameter_values()"
            )
        path += route[position : match.start()] + value
        position = match.end()
    return "/" + path + route[position:]


def page_urls(site: Site, data: dict) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, path) of every page the resolver knows, and the admin's pages. Left out: the API
    (but its docs), views that only take POST, the admin's own patterns (listed apart), and
    /favicon.ico (a redirect to the icon, for anyone)."""
    found = json.loads(site.manage("shell", "--no-imports", "-c", WALK).splitlines()[-1])
    values = parameter_values(data)
    pages = []
    for pattern in found["patterns"]:
        route, name = pattern["route"], pattern["name"]
        if pattern["namespace"] == "admin" or "get" not in pattern["methods"]:
            continue
        if (route.startswith("api/") and route != "api/docs/") or route == "favicon.ico":
            continue
        pages.append((name or route, fill(route, values)))
    return pages, found["admin"]


def is_page(content_type: str) -> bool:
    return content_type.startswith("text/html")


def fetch(site: Site, path: str) -> tuple[int, str, str]:
    """Status and Location of a GET without a session, redirects not followed."""

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None

    try:
        with urllib.request.build_opener(Keep).open(site.base + path, timeout=10) as response:
            return (
                response.status,
                response.headers.get("Location", ""),
                response.headers.get("Content-Type", ""),
            )
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location", ""), error.headers.get("Content-Type", "")


@pytest.fixture(scope="module")
def site(tmp_path_factory, services):
    site = Site(tmp_path_factory.mktemp("pages"))
    server = site.serve(subprocess.DEVNULL)
    try:
        data = populate(site)
        yield site, data
    finally:
        stop(server)


@pytest.fixture(scope="module")
def urls(site):
    return page_urls(*site)


# axe rules that fail on markup the product does not write, and why:
# Swagger UI (the API docs) nests a link in each operation's button, puts a <main> of its own
# inside the page and starts its headings at h3.
SWAGGER_UI_RULES = (
    "nested-interactive",
    "landmark-main-is-top-level",
    "landmark-no-duplicate-main",
    "landmark-unique",
    "heading-order",
)
# Django's admin: the filter boxes of a many-to-many field have an aria-label on a <span>, a
# date-and-time field's two inputs have no label of their own, a tabular inline's first column
# has an empty header, and its fields are labelled by the column's header, which axe does not
# count (a title only, or nothing for a <select>).
ADMIN_RULES = (
    "aria-prohibited-attr",
    "label",
    "empty-table-header",
    "label-title-only",
    "select-name",
)


def visit(
    page,
    watch: Watch,
    url: str,
    *,
    ready: str | None = None,
    disable: tuple[str, ...] = (),
    phone: bool = True,
    axe: bool = True,
) -> list[str]:
    """Open a page as a signed-in user and check it: 200, no console error or failed request, no
    axe violation (when ``axe``), no horizontal scrolling at a phone's width. Returns what is
    wrong."""
    problems = []
    try:
        response = open_settled(page, url)
        if ready:
            page.wait_for_selector(ready, timeout=10_000)
    except PlaywrightError as error:
        return [f"did not load: {error}"]
    if response is None or response.status != 200:
        problems.append(f"answered {response.status if response else 'nothing'} at {page.url}")
    if response is not None and not is_page(response.headers.get("content-type", "")):
        watch.problems.clear()  # data for a page's script (JSON), not a page: nothing to look at
        return problems
    if "/login/" in urlsplit(page.url).path and "/login/" not in urlsplit(url).path:
        problems.append(f"sent a signed-in user to {page.url}")
    checks = [lambda: watch.check(url)]
    if axe:
        checks.append(lambda: check_accessibility(page, disable=disable))
    if phone:
        checks.append(lambda: (page.set_viewport_size(PHONE), check_fits(page)))
    for check in checks:
        try:
            check()
        except AssertionError as error:
            problems.append(str(error))
    page.set_viewport_size({"width": 1280, "height": 800})
    return problems


def visit_all(
    site: Site, paths: list[tuple[str, str]], *, markup=lambda path: path, **options
) -> tuple[list[str], list[str], dict[str, int]]:
    """Visit each (name, path) signed in; the report lines, the failures, and the status of
    every response. axe runs once for each ``markup(path)``: pages whose markup is made the same
    way are checked by it once (the first), and every page for the rest."""
    checked = set()
    failures, lines = [], []
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        watch.check("the login page")
        for name, path in paths:
            started = time.monotonic()
            extra = (
                {"ready": ".swagger-ui .opblock", "disable": SWAGGER_UI_RULES}
                if name == "api-docs"
                else {}
            )
            axe = markup(path) not in checked
            checked.add(markup(path))
            problems = visit(page, watch, site.base + path, axe=axe, **extra, **options)
            mark = ("FAIL" if problems else "ok") + ("" if axe else " (no axe)")
            lines.append(f"  {mark:13} {path}  ({name}, {time.monotonic() - started:.1f}s)")
            failures += [f"{path}: {problem}" for problem in problems]
    return lines, failures, watch.statuses


# files to save (Content-Disposition: attachment), not pages to show: the browser downloads them
DOWNLOADS = {"execution-log-text", "execution-log-jsonl"}


def test_pages_answer_a_signed_in_user_with_no_console_error_failed_request_or_axe_violation(
    site, urls, capsys
) -> None:
    pages, _ = urls
    assert {"home", "execution-list", "raft-list", "api-docs"} <= {name for name, _ in pages}
    pages = [(name, path) for name, path in pages if name not in DOWNLOADS]
    lines, failures, _ = visit_all(site[0], pages)
    with capsys.disabled():
        print(f"\n{len(pages)} pages, signed in:\n" + "\n".join(lines))
    assert not failures, "\n\n".join(failures)


def admin_markup(path: str) -> str:
    """What makes an admin page's markup: a change form is its model's own (its fields, inlines
    and widgets); every list, and every add form, is Django's template around columns, filters
    and fields of the same kinds (axe's rules on labels are off for the admin, ADMIN_RULES)."""
    if path.endswith("/change/"):
        return path
    if path.endswith("/add/"):
        return "add"
    return "index" if path == "/admin/" else "list"


def test_pages_of_the_admin_load_every_static_file_and_pass_axe(site, urls, capsys) -> None:
    _, admin_pages = urls
    assert "/admin/" in admin_pages and any(p.endswith("/change/") for p in admin_pages)
    lines, failures, statuses = visit_all(
        site[0],
        [("admin", path) for path in admin_pages],
        markup=admin_markup,
        disable=ADMIN_RULES,
        phone=False,
    )
    with capsys.disabled():
        print(f"\n{len(admin_pages)} admin pages, signed in:\n" + "\n".join(lines))
    assert not failures, "\n\n".join(failures)
    static = {url: status for url, status in statuses.items() if "/static/" in url}
    assert any(url.endswith(".css") for url in static) and any(
        url.endswith(".js") for url in static
    )
    assert {url: status for url, status in static.items() if status != 200} == {}


def test_pages_send_a_signed_out_visitor_to_the_login_page(site, urls, capsys) -> None:
    site, _ = site
    pages, admin_pages = urls
    lines, wrong = [], []
    walked = {path for _, path in pages}
    for name, path in [*pages, *[("admin", path) for path in admin_pages]]:
        status, location, content_type = fetch(site, path)
        if name in PUBLIC:
            expected = status == 200
        elif status == 301:
            expected = location in walked  # an earlier version's address, sent on to its page
        elif status in (401, 403) and not is_page(content_type):
            expected = True  # data for a page's script: refused, not redirected
        else:
            login = "/admin/login/" if path.startswith("/admin/") else "/accounts/login/"
            expected = status == 302 and location.startswith(f"{login}?next=")
        lines.append(f"  {'ok' if expected else 'FAIL':4} {path} -> {status} {location}")
        if not expected:
            wrong.append(f"{path} ({name}): {status} {location}")
    with capsys.disabled():
        print("\nsigned out:\n" + "\n".join(lines))
    assert not wrong, "\n".join(wrong)


def test_pages_missing_one_is_the_products_own_404(site) -> None:
    site, _ = site
    url = site.base + "/rafts/no-such-raft/no-such-item/"
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        for missing in (url, site.base + "/no/such/page/"):
            watch.expect(missing)
            response = page.goto(missing)
            assert response.status == 404
            assert page.get_by_role("heading", level=1).text_content() == "Page not found"
            assert (
                page.locator(".site-header").evaluate("e => getComputedStyle(e).backgroundColor")
                == "rgb(11, 61, 92)"
            )
            assert page.get_by_role("navigation", name="Main").is_visible()
            watch.check(missing)
            check_accessibility(page)


def test_header_keyboard_reaches_the_content_by_the_skip_link_and_shows_focus(site) -> None:
    site, _ = site
    with browser() as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        page.goto(site.base + "/rafts/")
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Skip to content")
        assert skip.evaluate("e => e === document.activeElement")
        box = skip.bounding_box()
        assert box and box["x"] >= 0 and box["y"] >= 0, "the skip link is off screen when focused"
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "content"
        # every link of the header shows where the focus is
        page.goto(site.base + "/rafts/")
        for _ in range(3):
            page.keyboard.press("Tab")
            outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
            assert outline != "none", page.evaluate("document.activeElement.outerHTML")
        watch.check()


def test_header_on_a_phone_opens_every_section_from_the_menu_button(site) -> None:
    site, _ = site
    with browser(viewport=PHONE, is_mobile=True, has_touch=True) as context:
        page = context.new_page()
        watch = Watch().attach(page)
        log_in(page, site)
        navigation = page.get_by_role("navigation", name="Main")
        menu = page.get_by_role("button", name="Menu")
        assert menu.get_attribute("aria-expanded") == "false" and not navigation.is_visible()
        check_fits(page)
        menu.click()
        assert menu.get_attribute("aria-expanded") == "true"
        links = navigation.get_by_role("link")
        assert links.count() >= 3
        for index in range(links.count()):
            link = links.nth(index)
            box = link.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (
                link.text_content()
            )
            assert box["height"] >= 24, f"{link.text_content()} is {box['height']}px high"
        assert page.get_by_role("button", name="Log out").is_visible()
        check_fits(page)
        check_accessibility(page)
        page.keyboard.press("Escape")
        assert not navigation.is_visible()
        assert page.evaluate("document.activeElement.textContent") == "Menu"
        menu.click()
        navigation.get_by_role("link", name="Rafts").click()
        page.wait_for_url(site.base + "/rafts/")
        watch.check()
    with browser() as context:  # a wide window: no Menu button, the sections in one row
        page = context.new_page()
        log_in(page, site)
        assert not page.get_by_role("button", name="Menu").is_visible()
        assert page.get_by_role("navigation", name="Main").is_visible()
