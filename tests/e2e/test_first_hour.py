"""A new user's first hour, in Debian's Chromium, through the product's pages only (the admin
where it says so), found by their labels and roles as a person finds them: log in; describe
environments (nested), roles (one needing another), a server with variables (one sensitive) and a
credential; make a raft and a script, change it, compare and restore versions; run it on a role
(the log opens beside the editor) and watch the log arrive on the execution's page; cancel a long run; find drift with a collect; make a job template with
two prompts and run it; and in the admin, save an environment with a variable inline. Every page
visited has no console error and no failed request."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.e2e.browser import Watch, browser, settle
from tests.e2e.serving import Site, stop


@pytest.fixture
def site(tmp_path, services):
    site = Site(tmp_path)
    server = site.serve(subprocess.DEVNULL)
    yield site
    stop(server)


def label(text: str) -> re.Pattern:
    """A field's label as Django writes it ("Name:"), and not a longer one ("Username:")."""
    return re.compile(rf"^{re.escape(text)}:?$")


class Walk:
    """The page, what went wrong in it, and the steps a user takes."""

    def __init__(self, page, site: Site) -> None:
        self.page, self.site = page, site
        page.set_default_timeout(10_000)
        self.watch = Watch().attach(page)

    def check(self, where: str) -> None:
        settle(self.page)
        self.watch.check(where)

    def section(self, name: str) -> None:
        """Open a section from the main navigation."""
        self.page.get_by_role("navigation", name="Main").get_by_role("link", name=name).click()
        self.page.wait_for_load_state()
        self.check(f"the {name} page")

    def fill(self, fields: dict[str, str]) -> None:
        for name, value in fields.items():
            self.page.get_by_label(label(name)).fill(value)

    def choose(self, field: str, *options: str) -> None:
        self.page.get_by_label(label(field)).select_option(list(options))

    def run(self) -> None:
        """Run from a raft item's page: the log opens beside the editor, the page stays; then
        the panel's link to the execution's page."""
        url = self.page.url
        self.page.get_by_role("button", name="Run", exact=True).click()
        panel = self.page.get_by_role("region", name=re.compile(r"^Execution \d+: "))
        panel.wait_for()
        assert self.page.url == url
        with self.page.expect_navigation(timeout=30_000):  # 3 test processes share 2 cores
            panel.get_by_role("link", name="Open the execution page").click()
        self.check("the execution, from the run panel")

    def follow(self, link: str) -> None:
        with self.page.expect_navigation():
            self.page.get_by_role("link", name=link, exact=True).click()
        self.check(f"after {link}")

    def submit(self, button: str) -> None:
        with self.page.expect_navigation():
            self.page.get_by_role("button", name=button, exact=True).click()
        self.check(f"after {button}")

    def heading(self) -> str:
        return self.page.get_by_role("heading", level=1).text_content().strip()

    def status(self) -> str:
        return self.page.locator("#status").text_content().strip()

    def wait_for_state(self, state: str, seconds: float = 30) -> None:
        self.page.wait_for_function(
            "state => document.getElementById('state').dataset.runState === state",
            arg=state,
            timeout=seconds * 1000,
        )


def test_first_hour_from_login_to_a_job_template_run(site, run_user_folder) -> None:
    motd = run_user_folder / "motd"
    motd.write_text("Welcome, stranger\n")
    motd.chmod(0o644)
    with browser() as context:
        walk = Walk(context.new_page(), site)
        page = walk.page

        # log in
        page.goto(site.base + "/")
        assert "/accounts/login/" in page.url
        walk.fill({"Username": "ops", "Password": "e2e-password-123"})
        walk.submit("Log in")
        assert page.url == site.base + "/"

        # environments, one inside the other
        for name, parent in [("production", None), ("production-eu", "production")]:
            walk.section("Environments")
            page.get_by_role("link", name="New environment").click()
            walk.fill({"Name": name, "Description": f"The {name} servers"})
            if parent:
                walk.choose("Parent", parent)
            walk.submit("Create environment")
            assert name in walk.heading()
        walk.section("Environments")
        tree = page.locator("main ul.tree")
        assert (
            tree.locator("> li", has_text="production")
            .locator("ul li", has_text="production-eu")
            .count()
            == 1
        )

        # roles: web needs base
        for name, needs in [("base", None), ("web", "base")]:
            walk.section("Roles")
            page.get_by_role("link", name="New role").click()
            walk.fill({"Name": name})
            if needs:
                walk.choose("Dependencies", needs)
            walk.submit("Create role")
        walk.section("Roles")
        assert page.get_by_role("row", name=re.compile(r"^web\b")).get_by_text("base").count() == 1

        # a credential, whose secret is never shown again
        walk.section("Credentials")
        page.get_by_role("link", name="New credential").click()
        walk.fill(
            {"Name": "deploy-ssh", "Username": "deploy", "Password or token": "s3cret-deploy-pass"}
        )
        walk.submit("Create credential")
        assert "s3cret-deploy-pass" not in page.content()

        # a server on this machine, in production-eu with the web role, and its variables
        walk.section("Servers")
        page.get_by_role("link", name="New server").click()
        walk.fill({"Name": "web-eu-1", "Address": "localhost"})
        walk.choose("Roles", "web")
        walk.choose("Environments", "production-eu")
        walk.submit("Create server")
        assert "web-eu-1" in walk.heading()
        for name, value, sensitive in [
            ("HttpPort", "8080", False),
            ("DbPassword", "correct-horse-battery", True),
        ]:
            form = page.locator("#add-variable")
            form.get_by_label(label("Name")).fill(name)
            form.get_by_label(label("Value")).fill(value)
            if sensitive:
                form.get_by_label(label("Sensitive")).check()
            walk.submit("Add variable")
        variables = page.locator("#variables")
        assert variables.get_by_text("8080").count() >= 1
        assert "correct-horse-battery" not in page.content()

        # a raft and a script in it
        walk.section("Rafts")
        page.get_by_role("link", name="New raft").click()
        walk.fill({"Name": "ops"})
        walk.submit("Create raft")
        page.get_by_role("link", name="New item").click()
        walk.fill({"Name": "deploy", "Text": 'Log-Information "deploying to $ServerName";'})
        walk.submit("Create item")
        assert walk.heading() == "deploy"

        # it opens as blocks; change it as text, save, see the versions and their diff (the
        # chosen mode written in the header), restore the first
        page.get_by_role("button", name="Blocks", pressed=True).wait_for()
        page.locator(".otter-blocks .blocklyBlockCanvas").last.wait_for()
        page.get_by_role("button", name="Text", exact=True).click()
        editor = page.locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+End")
        page.keyboard.press("Enter")
        page.keyboard.type('Log-Information "port $HttpPort";')
        walk.fill({"Why it changed": "Say which port"})
        page.get_by_role("button", name="Save", exact=True).click()  # commits through the API
        page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
        walk.check("after Save")
        versions = page.get_by_role("table").filter(has_text="Version 2")
        assert versions.get_by_role("row").filter(has_text="Say which port").count() == 1
        versions.get_by_role("link", name="from version 1").click()
        walk.check("the diff")
        assert page.locator(".diff .added").filter(has_text="port $HttpPort").count() == 1
        assert page.locator(".diff .added").filter(has_text="##AH:UseTextMode").count() == 1
        page.go_back()
        walk.submit("Restore version 1")
        assert page.get_by_role("link", name="Version 3").count() == 1
        assert "port $HttpPort" not in page.locator(".cm-content").text_content()

        # run it on the web role and watch the log arrive in the tree
        walk.choose("Roles", "web")
        walk.run()
        assert re.search(r"/executions/\d+/$", page.url)
        walk.wait_for_state("completed")
        page.locator("#log .entry", has_text="deploying to web-eu-1").wait_for()
        assert page.locator("#log .log-scope", has_text="web-eu-1").count() >= 1
        assert walk.status() == "Normal"
        walk.check("the execution")

        # a long run, cancelled
        walk.section("Rafts")
        page.get_by_role("link", name="ops").click()
        page.get_by_role("link", name="New item").click()
        walk.fill({"Name": "wait-a-minute", "Text": "SHExec sleep 60;"})
        walk.submit("Create item")
        walk.choose("Servers", "web-eu-1")
        walk.run()
        walk.wait_for_state("executing")
        walk.follow("Cancel")  # asks first
        assert walk.heading().startswith("Cancel execution")
        walk.submit("Cancel the execution")
        walk.wait_for_state("completed", seconds=20)
        assert walk.status() == "Cancelled"

        # a collect that finds drift
        walk.section("Rafts")
        page.get_by_role("link", name="ops").click()
        page.get_by_role("link", name="New item").click()
        walk.fill({"Name": "motd", "Text": f"Ensure-File {motd} (Text: Authorised use only);"})
        walk.submit("Create item")
        walk.choose("Servers", "web-eu-1")
        walk.choose("Mode", "collect")
        walk.run()
        walk.wait_for_state("completed")
        assert walk.status().startswith("Drifted")
        assert page.get_by_role("table").filter(has_text="Authorised use only").count() == 1
        assert motd.read_text() == "Welcome, stranger\n"  # a collect changes nothing

        # a job template with two prompts, run
        walk.section("Rafts")
        page.get_by_role("link", name="ops").click()
        page.get_by_role("link", name="New item").click()
        release = 'Log-Information "release $Version for ticket $Ticket on $ServerName";'
        walk.fill({"Name": "release", "Text": release})
        walk.submit("Create item")
        walk.section("Job templates")
        page.get_by_role("link", name="New job template").click()
        page.get_by_role("group", name="Template").get_by_label(label("Name")).fill("Release web")
        page.get_by_label(label("Script")).select_option(label="ops::release")
        page.get_by_role("radio", name=re.compile("Servers with the roles")).check()
        walk.choose("Roles", "web")
        page.get_by_role("button", name="Add a prompt").click()
        prompts = page.get_by_role("group", name="New prompt")
        for index, (name, default) in enumerate([("Version", "2026.11.3"), ("Ticket", "")]):
            prompts.nth(index).get_by_label(label("Name")).fill(name)
            prompts.nth(index).get_by_label(label("Default")).fill(default)
        walk.submit("Save")
        assert page.url == site.base + "/templates/"  # back to the list
        page.get_by_role("link", name="Run Release web").click()
        assert page.get_by_label(label("Version")).input_value() == "2026.11.3"
        walk.fill({"Version": "2026.11.4", "Ticket": "CHG-1042"})
        walk.submit("Run")
        walk.wait_for_state("completed")
        page.locator(
            "#log .entry", has_text="release 2026.11.4 for ticket CHG-1042 on web-eu-1"
        ).wait_for()
        walk.check("the template's execution")

        # the admin: every static file answers, and an environment saved with a variable inline
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Admin").click()
        walk.check("the admin")
        static = {
            url: status for url, status in walk.watch.statuses.items() if "/static/admin/" in url
        }
        assert static and set(static.values()) == {200}, static
        page.goto(site.base + "/admin/inventory/environment/add/")
        page.get_by_label(label("Name")).first.fill("staging")
        inline = page.locator("#variables-group")
        inline.get_by_role("button", name=re.compile("Add another")).click()
        # a tabular inline's fields have no label of their own (a column header): found by name
        inline.locator("input[name$='-0-name']").fill("LogLevel")
        inline.locator("[name$='-0-value']").fill("debug")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_load_state()
        walk.check("the admin after saving")
        assert page.locator(".messagelist .success").count() == 1
        variables = site.api("GET", "/api/variables/?limit=1000")
        assert {"name": "LogLevel", "environment": "staging", "value": "debug"} in [
            {key: v[key] for key in ("name", "environment", "value")} for v in variables["results"]
        ]
