"""The execution page's log viewer in Debian's Chromium on a real `manage.py serve`:
a running execution's log is searched while its lines arrive; the tail is followed, paused by
scrolling up, resumed by End and by the follow button; a permalink (#seq-N) opens at its line in
a nested scope; a reconnect after the server's websocket dropped mid-run loses and repeats no
line; the downloads (text and JSON lines) equal the stored log. Written against the page hooks
of frontend/src/logs/viewer.ts (#log's data-ready and data-connection, .log-line[data-seq] rows in
#log .log-scroller, #log-follow, #log-search, #log-match-count, ...). No console errors.

The live runs print lines with tests/e2e/logdata.py's `emit` (Exec on the local server), the
finished one is stored by its `store` through the web application's log sink."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.e2e.browser import watched_page
from tests.e2e.logdata import LEVEL_NAMES, NEEDLE, plan, plan_lines, scope_paths, tree
from tests.e2e.serving import ROOT, Site, stop

LOGDATA = ROOT / "tests" / "e2e" / "logdata.py"
PYTHON = "/usr/bin/python3"  # as the local runs' own OS user: Debian's Python, by its full path
FINISHED_LINES = 30_000
FINISHED_SCOPES = 150


@pytest.fixture(scope="module")
def site(tmp_path_factory, services):
    data = tmp_path_factory.mktemp("log-viewer")
    site = Site(data)
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    server = site.serve(log)
    try:
        yield site
    finally:
        stop(server, data / "server.log")
        log.close()


@pytest.fixture(scope="module")
def finished(site: Site) -> int:
    """A finished execution of FINISHED_LINES lines in FINISHED_SCOPES nested scopes, some seqs
    missing (as when lines are dropped), stored through the log sink."""
    size = ("--lines", str(FINISHED_LINES), "--scopes", str(FINISHED_SCOPES))
    printed = subprocess.run(
        [sys.executable, str(LOGDATA), "store", "--gaps", *size],
        cwd=ROOT,
        env=site.env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(printed.split()[-1])


def start_live(site: Site, *, rate: int, seconds: int, sleep: int = 0) -> int:
    """An execution printing `rate` lines a second for `seconds` s, one process (and one
    scope) a second; the lines with NEEDLE are logged as warnings. Its id."""
    script = "Log-Information the run starts;\n"
    if sleep:
        script += f"Sleep {sleep};\n"
    script += (
        f"foreach $Part in @Range(1, {seconds})\n{{\n"
        f'    Exec "{PYTHON} {LOGDATA} emit --rate {rate} --seconds 1 --tag part$Part:"'
        f" (WarnRegex: {NEEDLE.split()[0]});\n}}\n"
    )
    execution = site.api("POST", "/api/executions/", {"script": script, "servers": ["localhost"]})
    return execution["id"]


def query(site: Site, sql: str, *parameters) -> list[dict]:
    """Rows of the site's database (read only, beside the running server)."""
    database = sqlite3.connect(f"file:{site.data / 'otterweb.sqlite3'}?mode=ro", uri=True)
    database.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in database.execute(sql, parameters).fetchall()]
    finally:
        database.close()


def stored(site: Site, execution_id: int) -> list[dict]:
    """The execution's log as stored: every entry in seq order."""
    rows = query(
        site,
        "select seq, scope_id, level, message, line, time from execution_logs_logentry"
        " where execution_id = ? order by seq",
        execution_id,
    )
    return [
        {**row, "time": datetime.fromisoformat(row["time"]).replace(tzinfo=UTC)} for row in rows
    ]


def stored_scopes(site: Site, execution_id: int) -> dict[int, dict]:
    rows = query(site, "select * from execution_logs_logscope where execution_id = ?", execution_id)
    return {row["scope_id"]: row for row in rows}


# each change of #log's data-connection, from the start (window.__connections)
WATCH_CONNECTION = """(() => {
    window.__connections = [];
    const watch = () => {
        const root = document.getElementById("log");
        if (!root) return requestAnimationFrame(watch);
        const note = () => {
            const state = root.dataset.connection;
            if (state && window.__connections.at(-1) !== state) window.__connections.push(state);
        };
        note();
        new MutationObserver(note).observe(root, { attributes: true, attributeFilter: ["data-connection"] });
    };
    watch();
})();"""
AT_BOTTOM = """() => { const s = document.querySelector("#log .log-scroller");
                      return s.scrollTop + s.clientHeight >= s.scrollHeight - 4; }"""


def open_log(page, site: Site, execution_id: int, fragment: str = "") -> None:
    page.goto(f"{site.base}/executions/{execution_id}/{fragment}")
    page.wait_for_selector("#log[data-ready=true]")


def connection(page) -> str:
    return page.get_attribute("#log", "data-connection") or ""


def wait_for_connection(page, state: str, seconds: float = 60) -> None:
    page.wait_for_selector(f"#log[data-connection={state}]", timeout=seconds * 1000)


def drawn_rows(page) -> list[dict]:
    """The line rows in the page now: seq, text, and where they are in the scroller's content
    and on screen."""
    return page.evaluate(
        """() => {
        const scroller = document.querySelector("#log .log-scroller");
        const box = scroller.getBoundingClientRect();
        return [...scroller.querySelectorAll(".log-line[data-seq]")].map((row) => {
            const r = row.getBoundingClientRect();
            return { seq: Number(row.dataset.seq), text: row.querySelector(".log-text")?.textContent ?? "",
                     at: Math.round(r.top - box.top + scroller.scrollTop),
                     visible: r.bottom > box.top && r.top < box.bottom };
        });
    }"""
    )


def scroller_state(page) -> dict:
    return page.evaluate(
        """() => { const s = document.querySelector("#log .log-scroller");
                   return { top: s.scrollTop, height: s.scrollHeight, view: s.clientHeight }; }"""
    )


def wait_at_bottom(page) -> None:
    """The scroller reaches its bottom within a second (it follows the tail frame by frame)."""
    page.wait_for_function(AT_BOTTOM, timeout=1000)


def newest_shown(page) -> int:
    return max((row["seq"] for row in drawn_rows(page) if row["visible"]), default=0)


def walk_rows(page) -> list[dict]:
    """Every line row from the top of the (fully expanded) log to its bottom, by scrolling the
    scroller three quarters of a screen at a time (each screen overlaps the last): one entry per
    position in the content, so a line drawn twice shows twice."""
    page.click("#log-expand-all")
    page.wait_for_timeout(300)
    by_place: dict[int, dict] = {}
    page.evaluate("() => document.querySelector('#log .log-scroller').scrollTop = 0")
    while True:
        # the rows of the new place are drawn in the next frame
        page.evaluate(
            "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
        for _ in range(100):  # rows still to be fetched are drawn once they come
            rows = drawn_rows(page)
            if all(row["text"] for row in rows):
                break
            page.wait_for_timeout(50)
        for row in rows:
            by_place[row["at"]] = row
        state = scroller_state(page)
        if state["top"] + state["view"] >= state["height"] - 1:
            return [by_place[at] for at in sorted(by_place)]
        page.evaluate(
            "(step) => document.querySelector('#log .log-scroller').scrollTop += step",
            state["view"] * 3 // 4,
        )


def match_total(page) -> int | None:
    """The total of #log-match-count ("3 of 120"), None while it shows none."""
    numbers = re.findall(r"\d[\d,]*", page.text_content("#log-match-count") or "")
    return int(numbers[-1].replace(",", "")) if numbers else None


# ---- the tests --------------------------------------------------------------------------------


def counted(page, total: int) -> None:
    """Wait until #log-match-count counts `total` matches ("3 of 120", "120 matches")."""
    page.wait_for_function(
        """(n) => {
            const numbers = document.getElementById("log-match-count").textContent
                .replace(/,/g, "").match(/\\d+/g);
            return numbers !== null && Number(numbers.at(-1)) === n;
        }""",
        arg=total,
    )


def test_log_viewer_search_keeps_up_while_lines_arrive(site: Site):
    execution_id = start_live(site, rate=1500, seconds=8, sleep=2)
    with watched_page(site) as (page, watch):
        open_log(page, site, execution_id)
        page.fill("#log-search", NEEDLE)
        totals = []
        deadline = time.monotonic() + 120  # the run lasts 10 s: a run that fails is no hang
        while connection(page) != "complete":
            assert time.monotonic() < deadline, f"the log never completed: {connection(page)}"
            total = match_total(page)
            if total is not None and (not totals or totals[-1] != total):
                totals.append(total)
            page.wait_for_timeout(150)
        lines = stored(site, execution_id)
        needles = [line["seq"] for line in lines if NEEDLE in line["message"]]
        assert len(needles) == 16  # two in each second's 1,500 lines
        counted(page, len(needles))
        # the count grew as the lines came, never back
        assert len(totals) >= 3, f"the match count did not follow the run: {totals}"
        assert totals == sorted(totals), totals
        # next goes to a match, highlighted; next and previous go through them in order
        page.click("#log-match-next")
        current = page.locator("#log .current-match")
        current.wait_for()
        first = int(current.get_attribute("data-seq"))
        assert first in needles
        assert current.locator("mark").first.text_content().casefold() == NEEDLE.casefold()
        page.click("#log-match-next")
        page.wait_for_function(
            "(seq) => document.querySelector('#log .current-match')?.dataset.seq !== seq",
            arg=str(first),
        )
        second = int(page.get_attribute("#log .current-match", "data-seq"))
        assert second == needles[(needles.index(first) + 1) % len(needles)]
        assert page.locator("#log .current-match").is_visible()
        page.click("#log-match-prev")
        page.wait_for_selector(f"#log .current-match[data-seq='{first}']")
        # a regular expression finds the same lines; a level filter keeps them (warnings) or not
        page.check("#log-search-regex")
        page.fill("#log-search", r"checksum\s+mis+match")
        counted(page, len(needles))
        page.select_option("#log-level", "warning")
        counted(page, len(needles))
        page.select_option("#log-level", "error")
        page.wait_for_function(
            "!/[1-9]/.test(document.getElementById('log-match-count').textContent)"
        )
        page.select_option("#log-level", "all")
        # a scope filter: the matches in one second's scope (and any inside it)
        scopes = stored_scopes(site, execution_id)
        chosen = next(line["scope_id"] for line in lines if NEEDLE in line["message"])
        inside = {chosen}
        for scope_id in sorted(scopes):
            if scopes[scope_id]["parent_id"] in inside:
                inside.add(scope_id)
        page.select_option("#log-scope-filter", str(chosen))
        counted(
            page,
            sum(1 for line in lines if NEEDLE in line["message"] and line["scope_id"] in inside),
        )
        watch.check("the log page, searched while running")


def test_log_viewer_follows_the_tail_until_scrolled_up(site: Site):
    execution_id = start_live(site, rate=1000, seconds=12, sleep=2)
    with watched_page(site) as (page, watch):
        open_log(page, site, execution_id)
        wait_for_connection(page, "live")
        follow = page.locator("#log-follow")
        assert follow.get_attribute("aria-pressed") == "true"
        page.wait_for_function("document.querySelectorAll('#log .log-line').length > 40")
        # following: the newest line is on screen, at the bottom
        before = newest_shown(page)
        page.wait_for_timeout(800)
        assert newest_shown(page) > before
        wait_at_bottom(page)
        # scrolling up pauses: the lines on screen stay where they are while more arrive
        page.hover("#log .log-scroller")
        page.mouse.wheel(0, -600)
        page.wait_for_selector("#log-follow[aria-pressed=false]")
        page.wait_for_timeout(300)
        paused_at = scroller_state(page)["top"]
        shown = [row["seq"] for row in drawn_rows(page) if row["visible"]]
        page.wait_for_timeout(1000)
        assert connection(page) == "live", "the run ended too soon for the test"
        assert scroller_state(page)["top"] == paused_at
        assert [row["seq"] for row in drawn_rows(page) if row["visible"]] == shown
        # End resumes
        page.keyboard.press("End")
        page.wait_for_selector("#log-follow[aria-pressed=true]")
        wait_at_bottom(page)
        resumed = newest_shown(page)
        assert resumed > max(shown)
        page.wait_for_timeout(800)
        assert newest_shown(page) > resumed
        wait_at_bottom(page)
        # and so does the button
        page.mouse.wheel(0, -600)
        page.wait_for_selector("#log-follow[aria-pressed=false]")
        follow.click()
        page.wait_for_selector("#log-follow[aria-pressed=true]")
        wait_at_bottom(page)
        wait_for_connection(page, "complete")
        last = stored(site, execution_id)[-1]["seq"]
        page.wait_for_function(
            "(seq) => !!document.querySelector(`#log .log-line[data-seq='${seq}']`)", arg=last
        )
        assert newest_shown(page) == last
        wait_at_bottom(page)
        watch.check("the log page, following the tail")


def test_log_viewer_permalink_opens_at_its_line(site: Site, finished: int):
    lines = stored(site, finished)
    scopes = {scope.id: scope for scope in tree(FINISHED_SCOPES, random.Random(12))}
    deepest = max(scopes.values(), key=lambda scope: (scope.depth, scope.id))
    own = [line for line in lines if line["scope_id"] == deepest.id]
    target = own[len(own) // 2]["seq"]
    with watched_page(site) as (page, watch):
        open_log(page, site, finished, f"#seq-{target}")
        row = page.locator(f"#log .log-line[data-seq='{target}']")
        row.wait_for()
        assert "target" in (row.get_attribute("class") or "").split()
        assert any(r["seq"] == target and r["visible"] for r in drawn_rows(page))
        assert row.locator(f"a[href='#seq-{target}']").count() == 1
        # its scopes are open: each of its ancestors' headers drawn says so
        scope = deepest
        while scope is not None:
            header = page.locator(f"#log .log-scope[data-scope='{scope.id}']")
            if header.count():
                assert header.get_attribute("aria-expanded") == "true", scope.id
            scope = scopes.get(scope.parent_id) if scope.parent_id else None
        # another line's number is its permalink: followed, then opened again, the page opens there
        other = next(r for r in drawn_rows(page) if r["visible"] and r["seq"] != target)["seq"]
        page.click(f"#log .log-line[data-seq='{other}'] a[href='#seq-{other}']")
        assert page.url.endswith(f"#seq-{other}")
        page.reload()
        page.wait_for_selector("#log[data-ready=true]")
        page.wait_for_selector(f"#log .log-line.target[data-seq='{other}']")
        assert any(r["seq"] == other and r["visible"] for r in drawn_rows(page))
        watch.check("the log page, opened at a permalink")


def test_log_viewer_reconnect_loses_and_repeats_nothing(site: Site):
    execution_id = start_live(site, rate=1000, seconds=6, sleep=2)
    connections: list[str] = []
    forwarded = {"seq": 0}

    def route(ws) -> None:
        """The first connection is dropped from the server's side once 2,500 lines went through
        (mid-run); the next ones are left alone."""
        connections.append(ws.url)
        server = ws.connect_to_server()
        if len(connections) > 1:
            return
        dropped = False

        def to_page(message) -> None:
            nonlocal dropped
            if dropped:
                return
            for seq in re.findall(r'"seq":\s*(\d+)', message if isinstance(message, str) else ""):
                forwarded["seq"] = max(forwarded["seq"], int(seq))
            ws.send(message)
            if forwarded["seq"] >= 2500:
                dropped = True
                ws.close(code=1011, reason="the test dropped the server's websocket")

        server.on_message(to_page)

    with watched_page(site) as (page, watch):
        page.add_init_script(WATCH_CONNECTION)
        page.route_web_socket(re.compile(r"/ws/executions/"), route)
        open_log(page, site, execution_id)
        wait_for_connection(page, "complete")
        states = page.evaluate("window.__connections")
        assert "reconnecting" in states, states
        assert states[-2:] == ["live", "complete"], states
        assert len(connections) == 2, connections
        resumed = int(re.search(r"after=(\d+)", connections[1]).group(1))
        assert 2500 <= resumed <= forwarded["seq"], (resumed, forwarded)
        expected = stored(site, execution_id)
        shown = walk_rows(page)
        seqs = [row["seq"] for row in shown]
        assert len(seqs) == len(set(seqs)), "a line is drawn twice"
        assert sorted(seqs) == [line["seq"] for line in expected], "lines are missing"
        texts = {line["seq"]: line["message"] for line in expected}
        assert [row["text"] for row in shown] == [texts[seq] for seq in seqs]
        watch.check("the log page, reconnected")


def test_log_viewer_downloads_equal_the_stored_log(site: Site, finished: int, tmp_path: Path):
    lines = stored(site, finished)
    paths = scope_paths(FINISHED_SCOPES)
    files = {}
    with watched_page(site) as (page, watch):
        open_log(page, site, finished)
        for name, link in (("jsonl", "#log-download-jsonl"), ("text", "#log-download-text")):
            with page.expect_download() as download:
                page.click(link)
            files[name] = tmp_path / download.value.suggested_filename
            download.value.save_as(files[name])
        watch.check("the log page, downloaded")
    assert files["jsonl"].suffix == ".jsonl" and files["text"] != files["jsonl"], files

    entries = [json.loads(line) for line in files["jsonl"].read_text("utf-8").splitlines()]
    assert len(entries) == len(lines)
    for entry, line in zip(entries, lines, strict=True):
        assert entry["seq"] == line["seq"]
        assert entry["scope_id"] == line["scope_id"]
        assert entry["level"] and LEVEL_NAMES[line["level"]].startswith(entry["level"]), entry
        assert entry["message"] == line["message"]
        assert entry["line"] == line["line"]
        assert datetime.fromisoformat(entry["time"]) == line["time"]
        assert (entry["scope"] or "") == (paths[line["scope_id"]] if line["scope_id"] else "")

    # text: a line per entry, `<time> <LEVEL> [<scope path>] <message>`, a multi-line message's
    # other lines indented below it
    written: list[list[str]] = []
    for raw in files["text"].read_text("utf-8").splitlines():
        if raw[:1].isspace() and written:
            written[-1].append(raw.strip())
        else:
            written.append([raw])
    assert len(written) == len(lines)
    for (head, *more), line in zip(written, lines, strict=True):
        stamp, level, rest = re.match(r"(\S+) (\S+)\s+(.*)", head).groups()
        assert datetime.fromisoformat(stamp) == line["time"], head
        assert LEVEL_NAMES[line["level"]].upper().startswith(level.upper()), head
        message = line["message"].split("\n")
        if line["scope_id"]:
            assert rest.startswith(f"[{paths[line['scope_id']]}] "), head
        assert rest.endswith(message[0]), head
        assert more == [part.strip() for part in message[1:]], head

    # the API gives the same bytes as the page's links
    for name, path in files.items():
        request = urllib.request.Request(
            f"{site.base}/api/executions/{finished}/log/download/?format={name}",
            headers={"Authorization": f"Token {site.token}"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.read() == path.read_bytes(), name


def test_logdata_store_keeps_the_plan(site: Site, finished: int):
    """The generator's own check: what it stored through the sink is its plan (which the tests
    above rely on), scopes placed and counted as a run leaves them."""
    lines = stored(site, finished)
    planned = plan_lines(FINISHED_LINES, FINISHED_SCOPES, gaps=True)
    assert [(x.seq, x.scope_id, x.level, x.message) for x in planned] == [
        (line["seq"], line["scope_id"], line["level"], line["message"]) for line in lines
    ]
    assert lines[-1]["seq"] > len(lines)  # seqs are missing
    assert time.time() - lines[-1]["time"].timestamp() < 3600
    scopes = stored_scopes(site, finished)
    opened = [
        item for kind, item in plan(FINISHED_LINES, FINISHED_SCOPES, gaps=True) if kind == "open"
    ]
    assert len(scopes) == len(opened) == FINISHED_SCOPES
    for scope in opened:
        row = scopes[scope.id]
        assert (row["parent_id"], row["name"], row["after_seq"]) == (
            scope.parent_id,
            scope.name,
            scope.after_seq,
        )
        assert row["lines"] == sum(1 for line in planned if line.scope_id == scope.id)
