"""The raft item page's script editor in Debian's Chromium on a real `manage.py serve`: opening a
1,000-statement script as blocks, switching it between blocks and text, typing in a
10,000-line script in text mode (and the JavaScript each key runs), the server's lint of 1,000
lines, and the size of the frontend's chunks (gzip) with the ones each mode loads.

Run: .venv/bin/python bench/editor.py [--runs 5] [--statements 1000] [--lines 10000]
                                      [--lint-lines 1000] [--keys 200] [--limit 300]
                                      [--repeat-slow]

Each figure is the median of --runs runs (the keystrokes: every key of every run), printed
beside its target and whether it is met; the exit status is 1 when one is missed. Beside some,
a floor: the same measurement of the least that could do the same work in this browser (no
target: it says how much of a figure is the browser's or Blockly's own). An opening
or a switch of the blocks that takes longer than --limit seconds is given up (printed as over
the limit, and missed), and the page's remaining measurements of that run are not made; when
the first visit takes more than ten times its target (or is given up), the blocks' figures
come from that one run unless --repeat-slow asks for every run.

How each is measured:
- Opening as blocks: from navigation start (the page's performance.now() counts from it) until
  the frame after the workspace holds its first blocks has been painted (the first screen: a
  long script is loaded in parts, the first screen first), and until the frame after it holds
  every block of the script has been painted. A script added before the page's own
  (add_init_script) counts the workspace's statement blocks (not the editor's parts) in each
  animation frame; a frame in which the count changed posts a MessageChannel message, which
  runs once that frame's rendering (Blockly renders queued blocks in an animation frame too)
  and paint are done. Each run opens the page in a new browser context (an empty cache, a
  first visit), then again in the same context (its chunks cached). The part that is POST
  /api/scripts/blocks/ is its Resource Timing entry (start to the last byte), and of that the
  server's part is requestStart to responseStart; beside them, the engine alone (parse + to_blocks
  in this process). The requests the page makes to the API at a first visit, and once the blocks
  are shown (nobody touching them), are listed. Its floor, Blockly's flat load of the same blocks,
  is measured at the end of the run's blocks, on the same page: the workspace's JSON (the
  BlockEditor's save()) made flat, each top-level statement of its chain a top block of its own
  (no `next`, no ids, the statement the switches added left out), one under the other as drawn in
  the chain with FLAT_GAP px between them (no block is bumped); the workspace emptied by loading
  no blocks, the page left quiet, then the editor's load() of the flat blocks timed in the page
  until the frame after it has resolved (every block in) is painted. (The editor's load puts the
  top blocks in as it puts parts: the first at once, then 60 ms of them a frame.)
- Switching: `otterModes.show(mode)` called in the page, timed until the frame after it has
  resolved is painted (as above) and, to the blocks, until the frame after every block is in
  is painted. Each direction unchanged, and after an edit (a log block's
  message changed, or a statement added to the text), so that the switch has to convert.
  Before each switch the page is left quiet (the drafts' autosave, the lint, the block checks
  done; no request in flight).
- Keystrokes: real key presses (page.keyboard, one every 50 ms: a quick typist) in the middle
  of the 10,000-line script. A keydown listener in the capture phase (it runs before
  CodeMirror's) takes the event's timeStamp, the time the browser received the key, and asks
  for the next animation frame; in that frame a MessageChannel message is posted, which runs
  after the frame's style, layout and paint (the main thread's part of drawing it; raster and
  compositing happen on other threads and are not counted). The latency is that time
  minus the timeStamp, so it counts the wait for a frame too. Each key is checked to have changed
  the document by that frame. Three floors, the same keys measured the same way: a plain
  <textarea> in its own page of the same browser; a <textarea> beside one element blinking as a
  cursor does (a CSS animation of its opacity, on and off every 0.5 s); and, on the typing page
  once its keys are typed and it is quiet, a CodeMirror EditorView with no extensions, made from
  the page's own classes, holding the 10,000-line document as it was before the keys, in the
  text editor's place and of its height, the text editor hidden (display: none), the cursor at
  the end of the same middle line. (Chrome's Event Timing is not used: headless Chromium presents
  frames so irregularly that its durations run to seconds while frames are drawn every few ms.)
- JavaScript per key (TARGET_JS_PER_KEY_MS, for the median key): the same typing, in the text
  editor and in the bare EditorView floor, is traced in Chromium (the DevTools protocol's Tracing,
  categories devtools.timeline, v8 and v8.execute: the trace starts right before the first key
  and ends after the last one's frame). On the renderer's main thread (the one that dispatched
  the keydowns), each event's self time (its time less its children's, so nested events count
  once) is JavaScript when the event is, or is inside, one in which V8 runs it: a call of a
  function from the browser (v8.callFunction, FunctionCall: listeners, animation frames, timers,
  idle callbacks, observers, messages), the microtasks (RunMicrotasks), a script's compilation
  and run. Inside it, what JavaScript calls counts as its own (DOM methods), except the style and
  layout it forces (UpdateLayoutTree, Layout) and garbage collection (MinorGC, MajorGC, V8.GC…,
  counted anywhere on the thread), which are stated apart, as are the bench's own listeners
  (WATCH_KEYS': functions without a file, which only Playwright's evaluations are here). Not
  counted: the browser's own work outside JavaScript (dispatching the events, the
  contenteditable's editing, style, layout and paint of the frame). Each top-level task of the
  thread counts for the key whose keydown is in it or before it, until the task of the next
  key's keydown (a key every 50 ms and Playwright's round trip: about 60 ms); the last key's
  lasts as long as the median of the others. So a key's JavaScript is that of its events, of its
  animation frame, of CodeMirror's parsing in idle callbacks and of its timers; the timers that
  wait for a pause in the typing (the lint after 0.4 s, the draft after 2 s) fire after the last
  key and are not counted. The median and p95 of every key of every run, the mean split by what
  ran it. Tracing these categories costs the keystrokes little (under a millisecond at the
  median in a trial of 150 keys, within the runs' noise).
- The top functions (notes, no target): V8's sampling profile (the Profiler domain, a sample
  every SAMPLING_US µs asked) of PROFILED_KEYS keys more typed in the same text editor right after
  the measured ones, once the page is quiet; not during the measured keys, since sampling that
  often costs time of its own (it would add to their latency and to their JavaScript). Each
  function's self time, summed over the runs and divided by the keys profiled: the minified
  function's name, its file without the hashes, line:column; a native function (a DOM method)
  counts the style and layout it forces. (idle), (program), (garbage collector) and the bench's
  own functions are left out.
- Lint: fetch() of POST /api/scripts/check/ inside the page (the session's cookie and CSRF
  token, as the editor sends it) until its JSON is read, after one request to warm up; the
  server's part is requestStart to responseStart of its Resource Timing entry, and the engine
  alone is parse + check in this process.
- The site is a fresh `manage.py serve` (tests/e2e/serving.py) with the script endpoints' rate
  limit (OTTERWEB_SCRIPTS_THROTTLE_RATE) lifted: the bench opens the same page again and again
  and fetches the lint itself, which is no user's traffic.
- Bundle: each file of otterweb/static/frontend/assets compressed with gzip (level 9), and the
  chunks requested by the item page in text mode and in visual mode (the Blockly chunk must not
  load in text mode).
"""

from __future__ import annotations

import argparse
import base64
import bisect
import gzip
import itertools
import json
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import check, format_script, parse, to_blocks  # noqa: E402
from engine.ast import Statement  # noqa: E402
from tests.e2e.browser import CHROMIUM, FLAGS, log_in  # noqa: E402
from tests.e2e.serving import Site, make_site, stop  # noqa: E402

BUILD = ROOT / "otterweb" / "static" / "frontend"
ASSETS = BUILD / "assets"
MANIFEST = BUILD / ".vite" / "manifest.json"
STATIC_ROOT = ROOT / "var" / "static"
RAFT = "bench"
TEXT_MODE = "##AH:UseTextMode\n\n"
VIEWPORT = {"width": 1280, "height": 800}
KEY_GAP_MS = 50
QUIET_MS = 2500  # longer than the drafts' autosave delay (2 s) and the lint's (0.4 s)
FLAT_GAP = 48  # px between the flat blocks: more than Blockly's snap radius (28 px)
PROFILED_KEYS = 100  # typed again for the sampling profile, after the measured keys
SAMPLING_US = 100  # the profile's sampling interval asked for
TOP_FUNCTIONS = 10

TARGET_FIRST_SCREEN_MS = 800
TARGET_OPEN_MS = 2000
TARGET_SWITCH_MS = 500
TARGET_KEY_P95_MS = 16
TARGET_JS_PER_KEY_MS = 3  # the median key's
TARGET_LINT_MS = 150
FAR = 10  # a measurement this many times over its target is not repeated (unless --repeat-slow)
LIMIT_S = 300  # the longest wait for one measurement of the blocks (--limit)

# ---- the scripts ----------------------------------------------------------------------------


def units(n: int) -> list[str]:
    """The statements of step `n` of a deployment, in pieces of a few statements each: logs,
    variables, if/else, foreach, with async, operations with arguments, comments."""
    return [
        f"# step {n}: where the application listens\nset $Port{n} = {8000 + n % 1000};\n",
        f"Log-Information Deploying $ApplicationName to $ServerName, step {n} of the release;\n",
        f"set @Servers{n} = @(web{n}a, web{n}b, web{n}c);\n"
        f"set %Settings{n} = %(mode: release, retries: {n % 5}, timeout: {30 + n % 60});\n",
        f"if $Port{n} == 8080\n{{\n    Log-Warning the default port on $ServerName;\n"
        f"    Ensure-File /srv/app{n}/port.txt (Text: 8080);\n}}\nelse\n{{\n"
        f"    Log-Debug custom port $Port{n};\n    set $Changed{n} = true;\n}}\n",
        f"foreach $Server in @Servers{n}\n{{\n    # every server gets its own configuration\n"
        f"    Log-Information Configuring $Server for step {n};\n"
        f"    Ensure-Directory /srv/app{n}/$Server/logs;\n"
        f"    Ensure-File /srv/app{n}/$Server/config.json\n    (\n"
        f'        Text: >>{{"port": $Port{n}, "mode": "$MapItem(%Settings{n}, mode)"}}>>,\n'
        f"        ReadOnly: true\n    );\n}}\n",
        f"with async\n{{\n    Ensure-File /var/www/site{n}/index.html\n    (\n"
        f"        Text: <h1>Site {n}</h1>,\n        Exists: true\n    );\n"
        f"    Log-Information site {n} written;\n}}\nawait;\n",
        f"// the release notes of step {n}\nEnsure-File /srv/app{n}/RELEASE.txt "
        f'(Text: "release $ReleaseNumber, step {n}", Exists: true);\n',
        f"if $Changed{n} == true\n{{\n    Log-Warning step {n} changed the configuration;\n}}\n",
    ]


def statement_count(text: str) -> int:
    return sum(isinstance(node, Statement) for node in parse(text).walk())


def build_script(
    *, statements: int | None = None, lines: int | None = None, text_mode=False
) -> str:
    """A canonical script (as the formatter writes it) of exactly `statements` statements
    (nested ones counted) or exactly `lines` lines (the header's included)."""
    chunks = [TEXT_MODE if text_mode else ""]
    count = 0
    line_count = chunks[0].count("\n")
    n = 0
    filling = False
    while True:
        want = statements - count if statements is not None else lines - line_count
        if want == 0:
            break
        if filling:  # one statement, one line
            piece = f"Log-Information step {n} is done;\n"
        else:
            piece = format_script(parse(units(n // 8)[n % 8]))
            if statements is not None and statement_count(piece) > want:
                filling = True
                continue
            if lines is not None and piece.count("\n") > want:
                filling = True
                continue
        chunks.append(piece)
        count += statement_count(piece)
        line_count += piece.count("\n")
        n += 1
    text = "".join(chunks)
    assert format_script(parse(text)) == text, "the generated script is not canonical"
    assert statements is None or statement_count(text) == statements
    assert lines is None or text.count("\n") == lines
    return text


def count_blocks(workspace: dict) -> int:
    pending = list(workspace["blocks"]["blocks"])
    count = 0
    while pending:
        block = pending.pop()
        count += 1
        for link in [block.get("next"), *(block.get("inputs") or {}).values()]:
            if link and link.get("block"):
                pending.append(link["block"])
    return count


# ---- figures --------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def median(values: list[float | None]) -> float:
    """The median; a measurement that did not finish (None) counts as longer than any other."""
    return statistics.median([math.inf if v is None else v for v in values])


class Report:
    def __init__(self) -> None:
        self.missed: list[str] = []

    def figure(
        self, name: str, value: float, target: float | None = None, unit="ms", runs: int = 0
    ) -> None:
        """`value` infinite: not done within the limit (--limit); `runs`: how many it is of."""
        shown = f"{value:>11,.1f} {unit}" if math.isfinite(value) else f"over {LIMIT_S:,} s"
        line = f"  {name:<58} {shown:>14}"
        if target is not None:
            met = value < target
            line += f"   target < {target:,} {unit}: {'ok' if met else 'MISSED'}"
            if not met:
                self.missed.append(name)
        if runs:
            line += f"   ({runs} run{'s' if runs > 1 else ''})"
        print(line)

    def absent(self, name: str, why: str) -> None:
        print(f"  {name:<58} {why}: MISSED")
        self.missed.append(name)

    def note(self, text: str) -> None:
        print(f"      {text}")

    def verdict(self, name: str, met: bool, detail: str) -> None:
        print(f"  {name:<58} {detail}: {'ok' if met else 'MISSED'}")
        if not met:
            self.missed.append(name)


def engine_ms(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return median(times)


# ---- in the page ----------------------------------------------------------------------------

MODES = "document.querySelector('[data-text-editor]').otterModes"
# the CodeMirror view of the text editor (what EditorView.findFromDOM reads)
VIEW = "document.querySelector('.otter-editor .cm-content').cmTile.root.view"
# `done` once the next frame has been painted (from outside an animation frame)
AFTER_PAINT = """const afterPaint = (done) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => done();
    channel.port2.postMessage(null);
});"""

# the statements' blocks of a workspace (not the editor's parts, blocks/parts.ts)
STATEMENTS = "(workspace) => workspace.getAllBlocks(false).filter((b) => b.type !== 'otter_part')"

# before the page's scripts: the frame in which the workspace has its first blocks, and when it is
# painted (the first screen); the frame in which the count of its blocks last changed, and when it
# is painted (every block)
WATCH_BLOCKS = f"""(() => {{
    const statements = {STATEMENTS};
    const seen = {{ count: -1, shownAt: null, paintedAt: null, firstPaintedAt: null, rendered: 0 }};
    window.__otterBench = seen;
    const poll = () => {{
        const workspace = document.querySelector("[data-text-editor]")?.otterModes?.blocks()?.workspace;
        if (workspace) {{
            const count = statements(workspace).length;
            if (count !== seen.count) {{
                Object.assign(seen, {{ count, shownAt: performance.now(), paintedAt: null }});
                const channel = new MessageChannel();  // runs after this frame is painted
                channel.port1.onmessage = () => {{
                    if (count > 0 && seen.firstPaintedAt === null) seen.firstPaintedAt = performance.now();
                    if (seen.count !== count) return;
                    seen.paintedAt = performance.now();
                    seen.rendered = statements(workspace)
                        .filter((b) => b.getSvgRoot()?.querySelector("path")?.getAttribute("d")).length;
                }};
                channel.port2.postMessage(null);
            }}
        }}
        requestAnimationFrame(poll);
    }};
    requestAnimationFrame(poll);
}})();"""

TIMELINE = """() => {
    const [navigation] = performance.getEntriesByType("navigation");
    return {
        document: navigation.responseEnd,
        ready: navigation.domContentLoadedEventEnd,
        resources: performance.getEntriesByType("resource").map((e) => ({
            name: e.name, start: e.startTime, requestStart: e.requestStart,
            responseStart: e.responseStart, end: e.responseEnd })),
    };
}"""

# started here, its result in window.__otterSwitch once the frame after it is painted, and to the
# blocks, once the frame after the last of `blocks` blocks is in is painted
SWITCH = f"""([mode, expected]) => {{
    {AFTER_PAINT}
    const statements = {STATEMENTS};
    window.__otterSwitch = null;
    const modes = {MODES};
    const before = performance.getEntriesByType("resource").length;
    const start = performance.now();
    modes.show(mode).then(async (ok) => {{
        const resolved = performance.now() - start;
        await new Promise(afterPaint);
        while (ok && mode === "visual" && statements(modes.blocks().workspace).length < expected)
            await new Promise(afterPaint);
        const painted = performance.now() - start;
        const calls = performance.getEntriesByType("resource").slice(before)
            .map((e) => new URL(e.name).pathname).filter((p) => p.startsWith("/api/"));
        const blocks = modes.blocks() ? statements(modes.blocks().workspace).length : 0;
        window.__otterSwitch = {{ ok, mode: modes.mode, resolved, painted, calls, blocks }};
    }});
}}"""

EDIT_BLOCKS = f"""(n) => {{
    const editor = {MODES}.blocks();
    const block = editor.workspace.getBlocksByType("otter_log", true)[n];
    block.setFieldValue(`edited by the benchmark, ${{n}}`, "MESSAGE");
    return editor.changed;
}}"""

EDIT_TEXT = f"""(_n) => {{
    const view = {VIEW};
    view.dispatch({{ changes: {{ from: view.state.doc.length, insert: "Log-Information edited by the benchmark;\\n" }} }});
}}"""

# the cursor at the end of line `line`, the editor focused
PLACE_CURSOR = f"""(line) => {{
    const view = {VIEW};
    const at = view.state.doc.line(line).to;
    view.dispatch({{ selection: {{ anchor: at }}, scrollIntoView: true }});
    view.focus();
    return view.state.doc.length;
}}"""

# keydown (capture, before the editor's handlers) → the next frame painted, and whether the key
# changed the document by then: `watched` is the text editor's ("editor"), the floor's plain
# textarea ("textarea") or the floor's bare EditorView ("bare", BARE_VIEW). Watching again
# replaces the listener: one frame asked for per key, as in the first measurement.
WATCH_KEYS = (
    """(watched) => {
    const keys = [];
    window.__keys = keys;
    const measure = {
        editor: () => VIEW.state.doc.length,
        textarea: () => document.querySelector("textarea").value.length,
        bare: () => window.__otterBare.state.doc.length,
    }[watched];
    if (window.__otterKeydown)
        document.removeEventListener("keydown", window.__otterKeydown, { capture: true });
    window.__otterKeydown = (event) => {
        const before = measure();
        requestAnimationFrame(() => {
            const changed = measure() !== before;
            const channel = new MessageChannel();
            channel.port1.onmessage = () =>
                keys.push({ key: event.key, at: event.timeStamp, painted: performance.now(), changed });
            channel.port2.postMessage(null);
        });
    };
    document.addEventListener("keydown", window.__otterKeydown, { capture: true });
}"""
).replace("VIEW", VIEW)

# the floor of typing in the text editor: a CodeMirror EditorView with no extensions, made from
# the page's own classes (those of the text editor's view), holding the document as it was before
# the keys were typed (window.__otterDoc); in the text editor's place and of its height (scrolling
# inside, as the editor's CSS has it), the text editor hidden; the cursor at the end of line
# `line`, the view focused
BARE_VIEW = f"""(line) => {{
    const view = {VIEW};
    const box = document.querySelector(".otter-editor");
    const height = view.dom.offsetHeight;
    const parent = document.createElement("div");
    box.after(parent);
    box.style.display = "none";
    const state = view.state.constructor.create({{ doc: window.__otterDoc }});
    const bare = new view.constructor({{ state, parent }});
    bare.dom.style.height = `${{height}}px`;
    bare.scrollDOM.style.overflow = "auto";
    window.__otterBare = bare;
    bare.dispatch({{ selection: {{ anchor: bare.state.doc.line(line).to }}, scrollIntoView: true }});
    bare.focus();
    return bare.state.doc.length;
}}"""

# the floor of opening as blocks: the workspace's script as flat blocks, each top-level statement
# of its chain a top block of its own (no `next`, no ids), one under the other as they are drawn
# in the chain with `gap` px between them (more than Blockly's snap radius: no block is bumped to
# another's connection). The statement the bench added to the text (EDIT_TEXT, the last) is left
# out, so that they are the script's blocks. Kept in window.__otterFlat; the workspace is emptied
# by loading no blocks (the same load, so that the timed one does not pay for taking the script's
# blocks away)
FLAT_BLOCKS = f"""(gap) => {{
    {AFTER_PAINT}
    const editor = {MODES}.blocks();
    const drawn = [];
    for (const top of editor.workspace.getTopBlocks(true))
        for (let block = top; block; block = block.getNextBlock())
            if (block.type !== "otter_part") drawn.push(block);
            else for (let inner = block.getInputTargetBlock("BODY"); inner; inner = inner.getNextBlock())
                drawn.push(inner);
    const json = editor.save();
    const chain = [];
    for (let block = json.blocks.blocks[0]; block; block = block.next?.block) chain.push(block);
    const last = JSON.stringify(chain.at(-1));
    if (json.blocks.blocks.length !== 1 || drawn.length !== chain.length || !last.includes("edited by the benchmark"))
        return {{ error: `${{json.blocks.blocks.length}} stacks, ${{drawn.length}} statements drawn, ${{chain.length}} saved, the last: ${{last}}` }};
    chain.pop();
    let y = 0;
    const tops = chain.map((block, i) => {{
        const {{ next: _next, ...alone }} = block;
        const top = {{ ...alone, x: 0, y }};
        y += drawn[i].height + gap;
        return top;
    }});
    window.__otterFlat = JSON.parse(
        JSON.stringify({{ ...json, blocks: {{ ...json.blocks, blocks: tops }} }}, function (key, value) {{
            return key === "id" && typeof this.type === "string" ? undefined : value;
        }}),
    );
    return editor.load({{ ...json, blocks: {{ ...json.blocks, blocks: [] }} }})
        .then(() => new Promise(afterPaint))
        .then(() => ({{ tops: tops.length, left: editor.workspace.getAllBlocks(false).length }}));
}}"""

# started here, its result in window.__otterFlatLoad once the frame after the load() of
# window.__otterFlat has resolved (every block in) is painted
FLAT_LOAD = f"""() => {{
    {AFTER_PAINT}
    const statements = {STATEMENTS};
    window.__otterFlatLoad = null;
    const editor = {MODES}.blocks();
    const start = performance.now();
    editor.load(window.__otterFlat).then(async () => {{
        const loaded = performance.now() - start;
        await new Promise(afterPaint);
        const painted = performance.now() - start;
        const blocks = statements(editor.workspace);
        const tops = editor.workspace.getTopBlocks(true);
        const moved = tops.filter((b, i) => Math.abs(b.getRelativeToSurfaceXY().y - window.__otterFlat.blocks.blocks[i].y) > 0.5);
        window.__otterFlatLoad = {{
            loaded, painted, blocks: blocks.length, tops: tops.length, moved: moved.length,
            rendered: blocks.filter((b) => b.getSvgRoot()?.querySelector("path")?.getAttribute("d")).length,
        }};
    }});
}}"""

LINT = """async (script) => {
    const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
    const url = "/api/scripts/check/";
    const start = performance.now();
    const response = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ script }),
    });
    const answer = await response.json();
    const total = performance.now() - start;
    const entry = performance.getEntriesByType("resource").filter((e) => e.name.endsWith(url)).at(-1);
    return { status: response.status, total, server: entry.responseStart - entry.requestStart,
             diagnostics: (answer.diagnostics ?? []).length };
}"""


class Activity:
    """The requests of a page in flight, and the problems it shows (console errors, uncaught
    exceptions, failed requests or answers of 400 or more)."""

    def __init__(self, page) -> None:
        self.in_flight = 0
        self.problems: list[str] = []
        self.assets: list[str] = []
        page.on("request", self._request)
        page.on("requestfinished", self._finished)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))

    def _request(self, request) -> None:
        self.in_flight += 1
        if "/static/frontend/assets/" in request.url:
            self.assets.append(request.url)

    def _finished(self, _request) -> None:
        self.in_flight -= 1

    def _failed(self, request) -> None:
        self.in_flight -= 1
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(
                f"request failed: {request.method} {request.url}: {request.failure}"
            )

    def _response(self, response) -> None:
        if response.status >= 400:
            self.problems.append(f"{response.status} for {response.request.method} {response.url}")

    def _console(self, message) -> None:
        if message.type in ("error", "assert"):
            self.problems.append(f"console {message.type}: {message.text}")

    def quiet(self, page) -> None:
        """Wait until the page's timers have had time to fire (autosave, lint, block checks)
        and no request is in flight."""
        page.wait_for_timeout(QUIET_MS)
        for _ in range(200):
            if self.in_flight <= 0:
                return
            page.wait_for_timeout(50)


# ---- the measurements -----------------------------------------------------------------------


def item_url(site: Site, name: str) -> str:
    return f"{site.base}/rafts/{RAFT}/{name}/"


def open_as_blocks(page, url: str, blocks: int) -> dict | None:
    """Navigate to `url` (a visual-mode item) and wait until its `blocks` blocks are painted;
    None when that takes longer than the limit."""
    started = time.monotonic()
    page.goto(url, wait_until="commit")
    try:
        page.wait_for_function(
            f"window.__otterBench?.count === {blocks} && window.__otterBench.paintedAt !== null",
            timeout=LIMIT_S * 1000,
        )
    except PlaywrightTimeout:
        progress(f"opening as blocks given up after {time.monotonic() - started:,.0f} s")
        return None
    progress(f"opened as blocks in {time.monotonic() - started:,.1f} s")
    seen = page.evaluate("window.__otterBench")
    assert seen["rendered"] == blocks, f"{seen['rendered']} of {blocks} blocks drawn"
    timeline = page.evaluate(TIMELINE)
    calls = [r for r in timeline["resources"] if r["name"].endswith("/api/scripts/blocks/")]
    assert len(calls) == 1, calls
    call = calls[0]

    def end_of(pattern: str) -> float | None:
        found = [r["end"] for r in timeline["resources"] if re.search(pattern, r["name"])]
        return max(found) if found else None

    return {
        "total": seen["paintedAt"],
        "first screen": seen["firstPaintedAt"],
        "api": api_calls(timeline["resources"]),
        "call": call["end"] - call["start"],
        "server": call["responseStart"] - call["requestStart"],
        "milestones": {
            "the page's HTML received": timeline["document"],
            "DOMContentLoaded (the page's script ran)": timeline["ready"],
            "POST /api/scripts/blocks/ sent": call["start"],
            "POST /api/scripts/blocks/ answered": call["end"],
            "POST /api/scripts/check/ answered (the hidden text editor's lint)": end_of(
                r"/api/scripts/check/$"
            ),
            "the block editor's chunk received": end_of(r"/assets/workspace-"),
            "the Blockly chunk received": end_of(r"/assets/blockly-"),
            "GET /api/reference/ answered (the last one)": end_of(r"/api/reference/$"),
            "the first screen of blocks painted": seen["firstPaintedAt"],
            "the last blocks in the workspace": seen["shownAt"],
            "every block painted": seen["paintedAt"],
        },
    }


def api_calls(resources: list[dict]) -> str:
    """The API's paths among Resource Timing entries, with how many times each."""
    paths = Counter(urlsplit(r["name"]).path for r in resources)
    api = [
        f"{path}{f' (x{n})' if n > 1 else ''}"
        for path, n in paths.items()
        if path.startswith("/api/")
    ]
    return ", ".join(api) or "none"


def switch(page, activity: Activity, mode: str, blocks: int) -> dict | None:
    """Switch to `mode` in the page, timed there until its `blocks` blocks are in, when it is
    the visual mode; None when that takes longer than the limit (started in the page and waited
    for from here, so a page busy for minutes is left)."""
    activity.quiet(page)
    result = timed_in_page(page, SWITCH, [mode, blocks], "__otterSwitch", f"switching to {mode}")
    assert result is None or (result["ok"] and result["mode"] == mode), result
    return result


def timed_in_page(page, script: str, argument, result: str, doing: str) -> dict | None:
    """Runs `script` (which puts its figures in window[`result`] when done) in the page and
    waits for them from here, so that a page busy for minutes is left; None when that takes
    longer than the limit."""
    started = time.monotonic()
    page.evaluate(script, argument)
    try:
        page.wait_for_function(f"window.{result} !== null", timeout=LIMIT_S * 1000)
    except PlaywrightTimeout:
        progress(f"{doing} given up after {time.monotonic() - started:,.0f} s")
        return None
    progress(f"{doing}: done in {time.monotonic() - started:,.1f} s")
    return page.evaluate(f"window.{result}")


def progress(text: str) -> None:
    print(f"  {text}", file=sys.stderr, flush=True)


def type_keys(page, text: str) -> list[dict]:
    for char in text:
        page.keyboard.press("Enter" if char == "\n" else char)
        page.wait_for_timeout(KEY_GAP_MS)
    page.wait_for_timeout(200)
    return page.evaluate("window.__keys")


def typed_text(keys: int) -> str:
    """`keys` characters of statements, one per line, as someone would type them."""
    text = ""
    n = 0
    while len(text) < keys:
        text += f"\nLog-Information typed line {n} of the keystroke benchmark;"
        n += 1
    return text[:keys]


# ---- JavaScript per key ---------------------------------------------------------------------

TRACE_CATEGORIES = ["devtools.timeline", "v8", "v8.execute"]
# the trace's events in which V8 runs JavaScript: a call of a function from the browser (a
# listener, an animation frame, a timer, an idle callback, an observer, a message), the
# microtasks, a script's compilation and run; FunctionCall is the one that names the function
JS_EVENTS = {
    "v8.callFunction",
    "FunctionCall",
    "RunMicrotasks",
    "v8.run",
    "v8.compile",
    "v8.compileModule",
    "v8.evaluateModule",
    "EvaluateScript",
}
STYLE_LAYOUT = {"UpdateLayoutTree", "RecalculateStyles", "Layout"}  # forced, inside JavaScript
# what ran the JavaScript: the outermost of these around it (none: "other", such as a message)
TRIGGERS = {
    "EventDispatch": "events",
    "FireAnimationFrame": "animation frames",
    "FireIdleCallback": "idle callbacks",
    "TimerFire": "timers",
}
# the profile's entries that are no function of the page's
NOT_FUNCTIONS = {"(root)", "(idle)", "(program)", "(garbage collector)"}


def is_gc(name: str) -> bool:
    return name in ("MinorGC", "MajorGC") or name.startswith(("V8.GC", "BlinkGC", "CppGC"))


class Devtools:
    """Chromium's trace and V8's sampling profile of a page, over the DevTools protocol."""

    def __init__(self, page) -> None:
        self.page = page
        self.session = page.context.new_cdp_session(page)
        self.stream: str | None = None
        self.session.on("Tracing.tracingComplete", self._complete)

    def _complete(self, event: dict) -> None:
        self.stream = event["stream"]

    def trace(self, typing: Callable[[], list[dict]]) -> tuple[list[dict], list[dict]]:
        """What `typing` returns, and the trace's events while it ran."""
        self.stream = None
        self.session.send(
            "Tracing.start",
            {
                "transferMode": "ReturnAsStream",
                "traceConfig": {
                    "includedCategories": TRACE_CATEGORIES,
                    "recordMode": "recordAsMuchAsPossible",
                },
            },
        )
        result = typing()
        self.session.send("Tracing.end")
        for _ in range(600):  # the browser hands the trace over once it has gathered it
            if self.stream:
                break
            self.page.wait_for_timeout(50)
        assert self.stream, "no trace from the browser within 30 s"
        chunks = []
        while True:
            read = self.session.send("IO.read", {"handle": self.stream})
            data = read["data"]
            chunks.append(base64.b64decode(data).decode() if read.get("base64Encoded") else data)
            if read.get("eof"):
                break
        self.session.send("IO.close", {"handle": self.stream})
        trace = json.loads("".join(chunks))
        return result, trace["traceEvents"] if isinstance(trace, dict) else trace

    def profile(self, typing: Callable[[], object]) -> dict:
        """V8's sampling profile of the page while `typing` runs."""
        self.session.send("Profiler.enable")
        self.session.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
        self.session.send("Profiler.start")
        typing()
        profile = self.session.send("Profiler.stop")["profile"]
        self.session.send("Profiler.disable")
        return profile


def javascript_per_key(events: list[dict], keys: int) -> dict:
    """The JavaScript the renderer's main thread (the one that dispatched the keydowns) ran for
    each of `keys` keys, in ms ("js"), and the totals over them ("totals": "js" and "js <what
    ran it>", "gc", "forced" style and layout, "bench"). Self times: each trace event's time
    less its children's, counted as JavaScript when it is one of JS_EVENTS or inside one; the
    style and layout that JavaScript forces, garbage collection (anywhere) and the bench's own
    listeners (functions without a file: the ones Playwright evaluated) apart. Each top-level
    task counts for the key whose keydown's task it is or follows, up to the next key's; the
    last key's lasts as long as the median of the others."""
    keydown = [
        e
        for e in events
        if e["name"] == "EventDispatch"
        and e.get("args", {}).get("data", {}).get("type") == "keydown"
    ]
    threads = {(e["pid"], e["tid"]) for e in keydown}
    assert len(keydown) == keys and len(threads) == 1, (len(keydown), keys, threads)
    ((pid, tid),) = threads
    slices = sorted(
        (
            e
            for e in events
            if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == tid and "dur" in e
        ),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    tasks: dict[float, Counter] = {}  # a top-level task's start → ms of each kind
    keydown_tasks: list[float] = []
    stack: list[dict] = []

    def close(frame: dict) -> None:
        own = (frame["end"] - frame["ts"] - frame["inner"]) / 1000
        tally = tasks.setdefault(frame["root"], Counter())
        tally[frame["kind"]] += own
        if frame["kind"] == "js":
            tally[f"js {frame['trigger'] or 'other'}"] += own

    for event in slices:
        while stack and stack[-1]["end"] <= event["ts"]:
            close(stack.pop())
        parent = stack[-1] if stack else None
        name, data = event["name"], event.get("args", {}).get("data", {})
        end = event["ts"] + event["dur"]
        above = "other"
        if parent:
            end = min(end, parent["end"])
            parent["inner"] += end - event["ts"]
            above = parent["kind"]
        if is_gc(name) or above == "gc":
            kind = "gc"
        elif above == "bench":
            kind = "bench"
        elif name == "FunctionCall" and not data.get("url"):
            kind = "bench"
            if parent and parent["name"] == "v8.callFunction":
                parent["kind"] = "bench"  # its way into V8 as well
        elif name in JS_EVENTS:
            kind = "js"
        elif name in STYLE_LAYOUT and above == "js":
            kind = "forced"
        else:
            kind = above
        root = parent["root"] if parent else event["ts"]
        if name == "EventDispatch" and data.get("type") == "keydown":
            keydown_tasks.append(root)
        trigger = parent and parent["trigger"]
        stack.append(
            {
                "name": name,
                "ts": event["ts"],
                "end": end,
                "inner": 0.0,
                "kind": kind,
                "root": root,
                "trigger": trigger or TRIGGERS.get(name),
            }
        )
    while stack:
        close(stack.pop())

    gaps = [b - a for a, b in itertools.pairwise(keydown_tasks)]
    bounds = [*keydown_tasks, keydown_tasks[-1] + (median(gaps) if gaps else KEY_GAP_MS * 1000)]
    per_key = [Counter() for _ in range(keys)]
    for start, tally in tasks.items():
        k = bisect.bisect_right(bounds, start) - 1
        if 0 <= k < keys:
            per_key[k].update(tally)
    return {"js": [c["js"] for c in per_key], "totals": sum(per_key, Counter())}


def self_times(profile: dict) -> Counter:
    """Each function's own time in a sampling profile, in ms, by (name, URL, line, column),
    the bench's own functions (evaluated by Playwright: a script without a file) left out."""
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    times: Counter = Counter()
    lasting = [*profile["timeDeltas"][1:], 0]  # a sample lasts until the next one
    for node, delta in zip(profile["samples"], lasting, strict=True):
        frame = frames[node]
        if frame["url"] or frame["scriptId"] == "0":
            key = (frame["functionName"], frame["url"], frame["lineNumber"], frame["columnNumber"])
            times[key] += delta / 1000
    return times


def source_name(url: str) -> str:
    """A frontend file's name without the build's hash nor the storage's."""
    return re.sub(r"-[\w-]{8}(\.\w+)$", r"\1", asset_name(url))


def report_javascript(report: Report, typing: dict, lines: int) -> None:
    js, totals, keys = typing["js"], typing["js totals"], len(typing["js"])
    report.figure("JavaScript per key, p50", percentile(js, 0.5), TARGET_JS_PER_KEY_MS)
    report.figure("JavaScript per key, p95", percentile(js, 0.95))
    bare = typing["bare js"]
    report.figure(
        f"floor (a bare EditorView, {lines:,} lines), JS per key, p50", percentile(bare, 0.5)
    )
    report.figure(
        f"floor (a bare EditorView, {lines:,} lines), JS per key, p95", percentile(bare, 0.95)
    )
    ran = ", ".join(
        f"{what} {totals[f'js {what}'] / keys:.2f}" for what in [*TRIGGERS.values(), "other"]
    )
    report.note(f"JavaScript per key, the mean: {totals['js'] / keys:.2f} ms; run by {ran}")
    report.note(
        f"beside it, per key: garbage collection {totals['gc'] / keys:.2f} ms, style and layout "
        f"forced by JavaScript {totals['forced'] / keys:.2f} ms; the bench's own listeners "
        f"{totals['bench'] / keys:.2f} ms (not counted)"
    )
    profiled, times = typing["profiled keys"], typing["profile"]
    functions = [(key, ms) for key, ms in times.items() if key[0] not in NOT_FUNCTIONS]
    report.note(
        f"the top {TOP_FUNCTIONS} functions by self time, ms per key: a sampling profile (every "
        f"{SAMPLING_US / 1000} ms asked) of {profiled:,} more keys typed after the measured ones"
        f" ({sum(ms for _, ms in functions) / profiled:.2f} ms of JavaScript per key in all)"
    )
    for (name, url, line, column), ms in sorted(functions, key=lambda f: -f[1])[:TOP_FUNCTIONS]:
        where = f"{source_name(url)}:{line + 1}:{column + 1}" if url else "(native)"
        report.note(f"  {ms / profiled:6.3f}  {name or '(anonymous)'}  {where}")


# the floors' pages: a plain <textarea>, and the same with one element beside it blinking as a
# cursor does (on and off every 0.5 s), which has the browser draw a frame now and then unasked
TEXTAREA = "<textarea aria-label=floor rows=20 cols=80></textarea>"
BLINKING = (
    "<style>@keyframes blink { 50% { opacity: 0 } }"
    " .blink { display: inline-block; width: 2px; height: 1.2em; background: #000;"
    " animation: blink 1s steps(1) infinite; }</style>"
    f"{TEXTAREA}<span class=blink></span>"
)


def floor_keys(browser, text: str, html: str = TEXTAREA) -> list[float]:
    """The same keystroke measurement on the <textarea> of `html`: the browser's own floor."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_content(html)
    page.click("textarea")
    page.evaluate(WATCH_KEYS, "textarea")
    keys = type_keys(page, text)
    context.close()
    assert len(keys) == len(text), (len(keys), len(text))
    return [k["painted"] - k["at"] for k in keys]


def flat_load(page, activity: Activity, blocks: int) -> dict | None:
    """The floor of opening as blocks, on the page that shows them: the same blocks loaded
    flat (FLAT_BLOCKS), timed in the page from the editor's load() until the frame after it has
    resolved is painted, once the page is quiet; None when that takes longer than the limit."""
    made = page.evaluate(FLAT_BLOCKS, FLAT_GAP)
    assert "error" not in made and made["left"] == 0, made
    activity.quiet(page)
    result = timed_in_page(page, FLAT_LOAD, None, "__otterFlatLoad", "loading the blocks flat")
    if result is None:
        return None
    assert result["blocks"] == blocks and result["rendered"] == blocks, (result, blocks)
    assert result["tops"] == made["tops"] and result["moved"] == 0, (result, made)
    return {**result, "tops": made["tops"]}


def logged_in_page(browser, site: Site, *, watch_blocks: bool = False):
    context = browser.new_context(viewport=VIEWPORT)
    # room for every request in Resource Timing (250 by default; Blockly's media fill it)
    context.add_init_script("performance.setResourceTimingBufferSize(100000)")
    if watch_blocks:
        context.add_init_script(WATCH_BLOCKS)
    page = context.new_page()
    activity = Activity(page)
    log_in(page, site)
    return context, page, activity


def asset_name(url: str) -> str:
    """The build's file name of a static URL (the storage's hash taken off)."""
    name = url.rsplit("/", 1)[-1].split("?")[0]
    return re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", name)


def measure_blocks(
    browser, site: Site, r: int, blocks: int, opened, switches, flat, loaded, problems
):
    """Opening the script as blocks (a first visit, then again), then the four switches on
    that page, then the floor of opening: the same blocks loaded flat on it. A measurement
    that does not finish within the limit is recorded as None and ends the run's
    measurements of the blocks (the page is still busy)."""
    context, page, activity = logged_in_page(browser, site, watch_blocks=True)
    try:
        activity.assets.clear()
        for visit in ("first", "again"):
            opened[visit].append(open_as_blocks(page, item_url(site, f"visual-{r}"), blocks))
            if r == 0 and visit == "first":
                activity.quiet(page)
                loaded["visual"] = activity.assets[:]
                # what the page asks of the API once the blocks are shown (and nobody touched them)
                resources = page.evaluate(TIMELINE)["resources"]
                after = opened["first"][-1]["total"] if opened["first"][-1] else math.inf
                loaded["api after"] = api_calls([r for r in resources if r["start"] > after])
            if opened[visit][-1] is None:
                return
        steps = [
            ("blocks → text, unchanged", "text", None, blocks),
            ("text → blocks, unchanged", "visual", None, blocks),
            ("blocks → text, after an edit", "text", EDIT_BLOCKS, blocks),
            ("text → blocks, after an edit", "visual", EDIT_TEXT, blocks + 1),
        ]
        for name, mode, edit, expected in steps:
            if edit:
                page.evaluate(edit, r)
            switches.setdefault(name, []).append(switch(page, activity, mode, expected))
            if switches[name][-1] is None:
                return
        assert switches["text → blocks, after an edit"][-1]["blocks"] == blocks + 1
        # last: it takes the switches' blocks away
        flat.append(flat_load(page, activity, blocks))
    finally:
        problems += activity.problems
        context.close()


def measure_typing(browser, site: Site, r: int, args, text: str, loaded, problems) -> dict:
    """Typing `text` in the middle of the long script, in text mode, traced ("keys": each key's
    record, "js": its JavaScript); then PROFILED_KEYS keys more, profiled ("profile": the
    functions' self times); then `text` in a bare EditorView of the same document on the same
    page (the floor), traced ("bare", "bare js")."""
    context, page, activity = logged_in_page(browser, site)
    page.goto(item_url(site, f"typing-{r}"))
    page.wait_for_selector(".otter-editor .cm-content")
    page.wait_for_function(
        "document.querySelector('.otter-editor-status')?.textContent !== 'Checking…'",
        timeout=LIMIT_S * 1000,
    )
    activity.quiet(page)
    if r == 0:
        loaded["text"] = activity.assets[:]
    devtools = Devtools(page)
    length = page.evaluate(PLACE_CURSOR, args.lines // 2)
    page.evaluate(f"() => {{ window.__otterDoc = {VIEW}.state.doc; }}")  # for the floor
    keys, js = traced_keys(page, devtools, "editor", text, length)

    activity.quiet(page)  # the typed text's lint and draft done
    profile = devtools.profile(lambda: type_keys(page, text[:PROFILED_KEYS]))

    activity.quiet(page)
    assert page.evaluate(BARE_VIEW, args.lines // 2) == length  # the same document
    bare, bare_js = traced_keys(page, devtools, "bare", text, length)
    problems += activity.problems
    context.close()
    return {
        "keys": keys,
        "js": js,
        "profile": self_times(profile),
        "bare": bare,
        "bare js": bare_js,
    }


def traced_keys(page, devtools: Devtools, watched: str, text: str, length: int):
    """Typing `text` in the `watched` editor ("editor" or "bare", WATCH_KEYS) of `length`
    characters, traced: each key's record, and the JavaScript it ran (javascript_per_key)."""
    page.evaluate(WATCH_KEYS, watched)
    keys, events = devtools.trace(lambda: type_keys(page, text))
    view = VIEW if watched == "editor" else "window.__otterBare"
    grown = page.evaluate(f"{view}.state.doc.length") - length
    assert len(keys) == len(text), (watched, len(keys), len(text))
    assert grown >= len(text), f"the {watched} document grew by {grown} for {len(text)} keys"
    return keys, javascript_per_key(events, len(text))


def measure_lint(browser, site: Site, runs: int, lint: str, problems) -> list[dict]:
    """POST /api/scripts/check/ from a page of the site, after one to warm up."""
    context, page, activity = logged_in_page(browser, site)
    page.goto(item_url(site, "lint"))
    page.wait_for_selector(".otter-editor .cm-content")
    activity.quiet(page)
    page.evaluate(LINT, lint)
    results = []
    for _ in range(runs):
        results.append(page.evaluate(LINT, lint))
        assert results[-1]["status"] == 200, results[-1]
    problems += activity.problems
    context.close()
    return results


def report_blocks(report: Report, args, visual: str, opened, switches, flat, loaded) -> None:
    print(f"\nOpening {args.statements:,} statements as blocks (medians of the runs made)")
    for key, label in [
        ("first", "first visit (empty cache)"),
        ("again", "again, same browser (warm cache)"),
    ]:
        name = f"{label}: navigation → every block painted"
        runs = opened[key]
        if not runs:
            report.absent(name, "not measured: the page had not opened as blocks")
            continue
        done = [o for o in runs if o]
        report.figure(
            f"{label}: navigation → first screen painted",
            median([o and o["first screen"] for o in runs]),
            TARGET_FIRST_SCREEN_MS,
            runs=len(runs),
        )
        report.figure(
            name, median([o and o["total"] for o in runs]), TARGET_OPEN_MS, runs=len(runs)
        )
        if done:
            report.figure("  of it, POST /api/scripts/blocks/", median([o["call"] for o in done]))
            report.figure(
                "    of that, the server (to its first byte)", median([o["server"] for o in done])
            )
    report.figure(
        "  the engine alone: parse + to_blocks",
        engine_ms(lambda: to_blocks(parse(visual)), args.runs),
    )
    name = "floor: the same blocks loaded flat (no chain), in the page"
    if flat:
        report.figure(name, median([f and f["painted"] for f in flat]), runs=len(flat))
        done = [f for f in flat if f]
        if done:
            report.note(
                f"{done[0]['tops']:,} top-level blocks, {done[0]['blocks']:,} blocks in all; "
                f"load() resolved after {median([f['loaded'] for f in done]):,.0f} ms"
            )
    else:
        print(f"  {name:<58} not measured: the run's blocks did not finish")
    done = sorted((o for o in opened["first"] if o), key=lambda o: o["total"])
    if done:
        middle = done[len(done) // 2]
        report.note(f"requests to the API at a first visit: {middle['api']}")
        report.note(f"and after the blocks were shown, untouched: {loaded.get('api after', '?')}")
        report.note("the median first visit, ms from navigation start:")
        for what, at in sorted(middle["milestones"].items(), key=lambda kv: kv[1] or 0):
            if at is not None:
                report.note(f"  {at:>9,.0f}  {what}")

    print(f"\nSwitching modes, {args.statements:,} statements (medians of the runs made)")
    for name in [
        "blocks → text, unchanged",
        "text → blocks, unchanged",
        "blocks → text, after an edit",
        "text → blocks, after an edit",
    ]:
        results = switches.get(name, [])
        if not results:
            report.absent(name, "not measured: the step before it did not finish")
            continue
        report.figure(
            name, median([x and x["painted"] for x in results]), TARGET_SWITCH_MS, runs=len(results)
        )
        done = [x for x in results if x]
        if done:
            report.note(
                f"show() resolved after {median([x['resolved'] for x in done]):,.0f} ms; "
                f"requests: {', '.join(done[-1]['calls']) or 'none'}"
            )


# ---- setting up -----------------------------------------------------------------------------


def ensure_collected() -> None:
    """The frontend build must be among the collected static files (`make setup` runs
    collectstatic after each build); collect them when it is not."""
    if not MANIFEST.exists():
        sys.exit("no frontend build: run `make setup` first")
    newer = [
        p
        for p in (ROOT / "frontend" / "src").rglob("*")
        if p.is_file() and p.stat().st_mtime > MANIFEST.stat().st_mtime
    ]
    if newer:
        print(
            f"note: {len(newer)} file(s) in frontend/src are newer than the build "
            f"(e.g. {newer[0].relative_to(ROOT)}); this measures the build as it is "
            "(`make setup` rebuilds it)\n"
        )
    manifest = json.loads(MANIFEST.read_text())
    collected = STATIC_ROOT / "staticfiles.json"
    paths = json.loads(collected.read_text())["paths"] if collected.exists() else {}
    missing = [c["file"] for c in manifest.values() if f"frontend/{c['file']}" not in paths]
    if missing:
        print(f"collecting the static files (the build's {missing[0]} is not collected yet)…")
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            check=True,
        )


def store(site: Site, name: str, content: str) -> None:
    site.api(
        "POST",
        "/api/raft-items/",
        {"raft": RAFT, "name": name, "kind": "script", "content": content},
    )


# ---- the benchmark --------------------------------------------------------------------------


def run(site: Site, args, scripts: dict[str, str], blocks: int, report: Report) -> None:
    visual, typing, lint = scripts["visual"], scripts["typing"], scripts["lint"]
    store(site, "lint", lint)
    for r in range(args.runs):
        store(site, f"visual-{r}", visual)
        store(site, f"typing-{r}", typing)
    text = typed_text(args.keys)

    opened: dict[str, list[dict]] = {"first": [], "again": []}
    switches: dict[str, list[dict]] = {}
    flat: list[dict | None] = []
    latencies: list[float] = []
    bare_latencies: list[float] = []
    unchanged_keys = 0
    unchanged_bare = 0
    javascript: dict = {
        "js": [],
        "js totals": Counter(),
        "bare js": [],
        "profile": Counter(),
        "profiled keys": 0,
    }
    loaded: dict[str, list[str]] = {}
    problems: list[str] = []

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            floor = floor_keys(browser, text)
            blinking = floor_keys(browser, text, BLINKING)
            visual_runs = args.runs
            for r in range(args.runs):
                print(f"run {r + 1} of {args.runs}…", file=sys.stderr)
                if r < visual_runs:
                    measure_blocks(
                        browser, site, r, blocks, opened, switches, flat, loaded, problems
                    )
                first = opened["first"][0] if opened["first"] else None
                if (
                    r == 0
                    and not args.repeat_slow
                    and (first is None or first["total"] > FAR * TARGET_OPEN_MS)
                ):
                    visual_runs = 1
                    print(
                        f"opening as blocks took more than {FAR} times its target: the blocks'"
                        " figures are not repeated (--repeat-slow repeats them)",
                        file=sys.stderr,
                    )

                typed = measure_typing(browser, site, r, args, text, loaded, problems)
                keys, bare = typed["keys"], typed["bare"]
                latencies += [k["painted"] - k["at"] for k in keys]
                unchanged_keys += sum(not k["changed"] for k in keys)
                bare_latencies += [k["painted"] - k["at"] for k in bare]
                unchanged_bare += sum(not k["changed"] for k in bare)
                javascript["js"] += typed["js"]["js"]
                javascript["js totals"] += typed["js"]["totals"]
                javascript["bare js"] += typed["bare js"]["js"]
                javascript["profile"] += typed["profile"]
                javascript["profiled keys"] += min(PROFILED_KEYS, len(text))
            lint_runs = measure_lint(browser, site, args.runs, lint, problems)
        finally:
            browser.close()

    # ---- the report
    report_blocks(report, args, visual, opened, switches, flat, loaded)

    print(
        f"\nTyping in text mode, {args.lines:,} lines: {args.keys} keys in each of {args.runs} runs, "
        f"one every {KEY_GAP_MS} ms"
    )
    report.figure("keydown → painted, p50", percentile(latencies, 0.5))
    report.figure("keydown → painted, p95", percentile(latencies, 0.95), TARGET_KEY_P95_MS)
    report.figure("keydown → painted, max", max(latencies))
    report.figure("floor (a plain <textarea>), p50", percentile(floor, 0.5))
    report.figure("floor (a plain <textarea>), p95", percentile(floor, 0.95))
    report.figure(
        "floor (a <textarea> beside one blinking element), p50", percentile(blinking, 0.5)
    )
    report.figure(
        "floor (a <textarea> beside one blinking element), p95", percentile(blinking, 0.95)
    )
    report.figure(
        f"floor (a bare EditorView, {args.lines:,} lines), p50", percentile(bare_latencies, 0.5)
    )
    report.figure(
        f"floor (a bare EditorView, {args.lines:,} lines), p95", percentile(bare_latencies, 0.95)
    )
    if unchanged_keys:
        report.note(f"{unchanged_keys} key(s) had not changed the document by the next frame")
    if unchanged_bare:
        report.note(
            f"{unchanged_bare} key(s) had not changed the bare view's document by the next frame"
        )
    report_javascript(report, javascript, args.lines)

    print(f"\nLint, {args.lint_lines:,} lines (median of {args.runs})")
    report.figure(
        "POST /api/scripts/check/ from the page",
        median([x["total"] for x in lint_runs]),
        TARGET_LINT_MS,
    )
    report.figure(
        "  of it, the server (to its first byte)", median([x["server"] for x in lint_runs])
    )
    report.figure(
        "  the engine alone: parse + check", engine_ms(lambda: check(parse(lint)), args.runs)
    )

    print("\nThe frontend's chunks (otterweb/static/frontend/assets)")
    modes = {mode: {asset_name(url) for url in loaded.get(mode, [])} for mode in ("text", "visual")}
    print(f"  {'file':<34} {'bytes':>10} {'gzip':>10}   text mode   visual mode")
    totals = {"text": 0, "visual": 0}
    for path in sorted(ASSETS.iterdir()):
        size = len(path.read_bytes())
        zipped = len(gzip.compress(path.read_bytes(), compresslevel=9))
        flags = []
        for mode in ("text", "visual"):
            here = path.name in modes.get(mode, ())
            flags.append("loaded" if here else "-")
            totals[mode] += zipped if here else 0
        print(f"  {path.name:<34} {size:>10,} {zipped:>10,}   {flags[0]:<11} {flags[1]}")
    for mode in ("text", "visual"):
        print(
            f"  {mode} mode loads {totals[mode]:,} bytes gzipped: {', '.join(sorted(modes[mode]))}"
        )
    blockly = sorted(name for name in modes["text"] if name.startswith("blockly-"))
    report.verdict(
        "the Blockly chunk in text mode",
        not blockly,
        "not loaded" if not blockly else f"loaded ({', '.join(blockly)})",
    )

    if problems:
        print("\nProblems seen in the browser:")
        for problem in dict.fromkeys(problems):
            print(f"  - {problem}")


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5)
    options.add_argument(
        "--statements", type=int, default=1000, help="of the script opened as blocks"
    )
    options.add_argument("--lines", type=int, default=10_000, help="of the script typed in")
    options.add_argument("--lint-lines", type=int, default=1000, help="of the script linted")
    options.add_argument("--keys", type=int, default=200, help="typed in each run")
    options.add_argument(
        "--limit",
        type=int,
        default=300,
        help="seconds to wait for one opening or switch of the blocks before giving it up",
    )
    options.add_argument(
        "--repeat-slow",
        action="store_true",
        help=f"repeat the blocks' figures even when they are over {FAR} times their target",
    )
    args = options.parse_args()
    global LIMIT_S
    LIMIT_S = args.limit

    scripts = {
        "visual": build_script(statements=args.statements),
        "typing": build_script(lines=args.lines, text_mode=True),
        "lint": build_script(lines=args.lint_lines, text_mode=True),
    }
    blocks = count_blocks(to_blocks(parse(scripts["visual"])))
    print(
        f"Scripts: {args.statements:,} statements ({scripts['visual'].count(chr(10)):,} lines, "
        f"{blocks:,} blocks); {args.lines:,} lines ({statement_count(scripts['typing']):,} "
        f"statements, text mode); {args.lint_lines:,} lines to lint. Chromium {CHROMIUM}.\n"
    )
    ensure_collected()
    report = Report()
    data = Path(tempfile.mkdtemp(prefix="otterweb-bench-editor-"))
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    # the bench's own requests (the same page opened again and again, the lint's fetches) are
    # no user's: the script endpoints' rate limit is lifted for them
    site = make_site("embedded", data, OTTERWEB_SCRIPTS_THROTTLE_RATE="")
    server = site.serve(log)
    try:
        site.api("POST", "/api/rafts/", {"name": RAFT})
        run(site, args, scripts, blocks, report)
    finally:
        stop(server, data / "server.log")
        log.close()
        site.close()
    print()
    if report.missed:
        print(f"MISSED: {', '.join(report.missed)}")
        return 1
    print("Every target met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
