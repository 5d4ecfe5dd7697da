"""The raft item page's block editor in a real browser on a real `manage.py serve`: a script opens
as blocks (or as text, by its header), an operation is found in the toolbox's search and filled
in, the modes switch through the server without losing a comment, text that does not parse stays
text, and what Save and Run send is the blocks' text, with the header of a chosen mode."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from engine import OtterSyntaxError, format_script, parse, to_blocks
from tests.conftest import CORPUS
from tests.e2e.browser import check_accessibility, settle, watched_page
from tests.e2e.serving import Site, served_with_raft

SCRIPT = "Log-Information starting;\n"
TEXTUAL = "##AH:UseTextMode\n\n# says hello\nLog-Information hello;\n"
BROKEN = "##AH:UseTextMode\n\nLog-Information starting;\n"  # then made not to parse
MODES = "document.querySelector('[data-text-editor]').otterModes"


def corpus_with_comments(count: int = 4) -> list[Path]:
    """A few corpus scripts (read in place) that parse and have comments."""
    chosen = []
    for path in sorted(CORPUS.glob("*.otter")):
        text = path.read_text(encoding="utf-8")
        if "#" not in text and "//" not in text and "/*" not in text:
            continue
        try:
            to_blocks(parse(text))
        except OtterSyntaxError:
            continue
        if 8 <= len(text.splitlines()) <= 80:
            chosen.append(path)
        if len(chosen) == count:
            break
    return chosen


@pytest.fixture(scope="module")
def site(tmp_path_factory, services):
    """One site for the module's tests (starting one is most of a test's time): each test works
    on items of its own."""
    with served_with_raft(
        tmp_path_factory.mktemp("site"),
        "ops",
        {"deploy": SCRIPT, "textual": TEXTUAL, "broken": BROKEN, "kept": SCRIPT},
    ) as site:
        yield site


def stored(site: Site, name: str) -> dict:
    items = site.api("GET", "/api/raft-items/?" + urllib.parse.urlencode({"raft": "ops"}))
    items = items["results"] if isinstance(items, dict) else items
    return next(item for item in items if item["name"] == name)


def wait_for_mode(page, mode: str) -> None:
    page.wait_for_selector(f".otter-modes-switch button[data-mode={mode}][aria-pressed=true]")
    if mode == "visual":
        page.wait_for_function(f"{MODES}.blocks()?.workspace.getAllBlocks(false).length >= 0")


def script_text(page) -> str:
    """The text editor's whole text (not only the lines drawn)."""
    return page.evaluate(f"{MODES}.shownText()")


def click_field(page, block_id: str, field: str) -> None:
    """A real click on a field of a block (where Blockly drew it)."""
    box = page.evaluate(
        f"""() => {{
            const block = {MODES}.blocks().workspace.getBlockById({block_id!r});
            const r = block.getField({field!r}).getSvgRoot().getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2];
        }}"""
    )
    page.mouse.click(*box)


def test_block_editor_adds_an_operation_from_search_and_switches_to_text(site) -> None:
    with watched_page(site) as (page, watch):
        page.goto(f"{site.base}/rafts/ops/deploy/")
        wait_for_mode(page, "visual")
        assert page.locator(".otter-editor").is_hidden()
        assert page.evaluate(f"{MODES}.blocks().workspace.getAllBlocks(false).length") == 1
        check_accessibility(page)

        # the toolbox's search: Enter adds the first block found after the last statement
        page.fill("#otter-block-search", "Ensure-File")
        page.wait_for_selector(".otter-modes-status:has-text('Enter adds the first')")
        page.press("#otter-block-search", "Enter")
        added = page.evaluate(
            f"() => {{ const b = {MODES}.blocks().workspace.getBlocksByType('otter_operation_call')[0];"
            " return [b.id, b.getFieldValue('NAME'), b.getPreviousBlock()?.type]; }"
        )
        assert added[1:] == ["Ensure-File", "otter_log"]
        block = added[0]
        page.wait_for_function(
            f"{MODES}.blocks().workspace.getBlockById({block!r}).getFieldValue('POSITIONAL_LABEL') === 'Name:'"
        )

        # its positional argument (its editor open at once), then an optional one from the menu
        page.wait_for_selector(".blocklyHtmlInput")
        page.keyboard.type("/tmp/otterweb-blocks.txt")
        page.keyboard.press("Enter")
        page.wait_for_selector(".blocklyHtmlInput", state="detached")
        click_field(page, block, "ADD_MENU")
        page.locator(".blocklyMenuItem", has_text="Text").first.click()
        page.wait_for_selector(".blocklyHtmlInput")
        page.keyboard.type("hello")
        page.keyboard.press("Enter")

        # to text through the server
        expected = site.api(
            "POST",
            "/api/scripts/format/",
            {"script": SCRIPT + "Ensure-File /tmp/otterweb-blocks.txt (Text: hello);\n"},
        )["script"]
        page.get_by_role("button", name="Text", exact=True).click()
        wait_for_mode(page, "text")
        assert page.locator(".otter-blocks").is_hidden()
        assert script_text(page) == expected

        # and back: the same blocks
        page.get_by_role("button", name="Blocks", exact=True).click()
        wait_for_mode(page, "visual")
        saved = page.evaluate(f"{MODES}.blocks().save()")
        assert (
            site.api("POST", "/api/scripts/unblocks/", {"workspace": saved})["script"] == expected
        )

        # what Save and Run send from the visual mode: the blocks' text (visual is the default,
        # so no header)
        assert page.evaluate(f"{MODES}.text()") == expected
        # and Save from the blocks (unchanged since they were shown) commits that text
        page.get_by_role("button", name="Save", exact=True).click()
        page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
        assert stored(site, "deploy")["content"] == expected
        watch.check("the item page in the visual mode")


def test_block_editor_opens_text_mode_by_header_and_writes_the_chosen_mode(site) -> None:
    with watched_page(site) as (page, watch):
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{site.base}/rafts/ops/textual/")
        wait_for_mode(page, "text")
        page.wait_for_selector(".cm-editor .cm-content")
        settle(page)
        assert not [url for url in requested if "/blockly-" in url]  # Blockly not loaded

        page.get_by_role("button", name="Blocks", exact=True).click()
        wait_for_mode(page, "visual")
        assert [url for url in requested if "/blockly-" in url]
        comment = page.evaluate(
            f"{MODES}.blocks().workspace.getAllBlocks(false)[0].getCommentText()"
        )
        assert comment == "says hello"
        # chosen, the mode is written in the header of the text saved
        assert page.evaluate(f"{MODES}.text()") == TEXTUAL.replace("UseTextMode", "UseVisualMode")
        check_accessibility(page)
        # Run from the blocks sends their text (a run on no servers is refused on the page)
        watch.expect(page.url.rstrip("/") + "/-/run/")  # the refusal's 400, at Run's address
        page.get_by_role("button", name="Run", exact=True).click()
        page.locator(
            "[data-run] .errorlist", has_text="Choose servers or roles to run on"
        ).wait_for()
        watch.check("the item page")


def test_block_editor_keeps_text_that_does_not_parse_as_text(site) -> None:
    with watched_page(site) as (page, watch):
        # the 400s of text that does not parse: the one that keeps it as text, the lint's
        watch.expect(f"{site.base}/api/scripts/blocks/")
        watch.expect(f"{site.base}/api/scripts/check/")
        page.goto(f"{site.base}/rafts/ops/broken/")
        wait_for_mode(page, "text")
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type("if $x == {")
        page.get_by_role("button", name="Blocks", exact=True).click()
        page.wait_for_selector(".otter-modes-status:has-text('Stays as text')")
        wait_for_mode(page, "text")
        assert page.locator(".otter-editor").is_visible()
        assert "line 4, column 10" in page.locator(".otter-modes-status").text_content()
        page.wait_for_selector(".cm-lintRange-error")
        watch.check("the item page")


def test_block_editor_switches_corpus_scripts_with_comments_unchanged(site) -> None:
    scripts = corpus_with_comments()
    assert len(scripts) == 4
    for path in scripts:
        site.api(
            "POST",
            "/api/raft-items/",
            {
                "raft": "ops",
                "name": f"corpus-{path.stem}",
                "kind": "script",
                "content": path.read_text(encoding="utf-8"),
            },
        )
    with watched_page(site) as (page, watch):
        for path in scripts:
            original = stored(site, f"corpus-{path.stem}")["content"]
            page.goto(f"{site.base}/rafts/ops/corpus-{path.stem}/")
            wait_for_mode(page, "visual")
            # the blocks in the browser are the whole script, comments and all, and keep its
            # text: written back unedited, they are the text as it was, byte for byte
            saved = page.evaluate(f"{MODES}.blocks().save()")
            unblocked = site.api("POST", "/api/scripts/unblocks/", {"workspace": saved})["script"]
            assert unblocked == original, path.name
            del saved["otterscript"]["source"]  # without it: the canonical text
            unblocked = site.api("POST", "/api/scripts/unblocks/", {"workspace": saved})["script"]
            assert unblocked == format_script(parse(original)), path.name
            for _ in range(2):
                page.get_by_role("button", name="Text", exact=True).click()
                wait_for_mode(page, "text")
                assert script_text(page) == original, path.name
                page.get_by_role("button", name="Blocks", exact=True).click()
                wait_for_mode(page, "visual")
        watch.check("the corpus scripts")


def test_block_editor_edits_a_value_of_several_lines_keeping_each_line_break(
    site, run_user_folder
) -> None:
    target = run_user_folder / "site.conf"
    script = f"Ensure-File {target}\n(\n    Text: >>server {{\n    listen 80;\n}}>>\n);\n"
    site.api(
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": "conf", "kind": "script", "content": script},
    )
    edited = ">>\nserver {\n    listen 8080;\n    server_name web;\n}\n>>"
    with watched_page(site) as (page, watch):
        page.goto(f"{site.base}/rafts/ops/conf/")
        wait_for_mode(page, "visual")
        box = page.evaluate(
            f"""() => {{
                const block = {MODES}.blocks().workspace.getBlocksByType('otter_operation_call')[0];
                const r = block.rows[0].field.getSvgRoot().getBoundingClientRect();
                return [r.x + r.width / 2, r.y + r.height / 2];
            }}"""
        )
        # the value's lines are edited in a text area: Enter is a new line, Ctrl+Enter ends
        page.mouse.click(*box)
        area = page.locator("textarea.otter-value-lines")
        assert area.input_value() == ">>\nserver {\n    listen 80;\n}\n>>"
        page.keyboard.press("Control+a")
        page.keyboard.type(edited)
        page.keyboard.press("Control+Enter")
        area.wait_for(state="detached")
        page.get_by_role("button", name="Save", exact=True).click()
        page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
        watch.check("the item page, after the edit")

    content = stored(site, "conf")["content"]
    # the statement edited is written as the formatter writes it: the value's lines as typed
    assert "    Text: >>\nserver {\n    listen 8080;\n    server_name web;\n}\n" in content, content
    execution = site.api("POST", "/api/executions/", {"script": content, "servers": ["localhost"]})
    detail = site.wait_for(execution["id"], lambda d: d["run_state"] == "completed")
    assert detail["status"] == "normal", detail
    assert target.read_text().splitlines() == [
        "server {",
        "    listen 8080;",
        "    server_name web;",
        "}",
    ]


SINGLE_LINE_SET = re.compile(r"^\s*set \$(\w+) = [^;>]*;\s*$")


def corpus_with_two_sets(count: int = 3) -> list[tuple[Path, list[int]]]:
    """Corpus scripts (read in place) with two `set` statements or more on lines of their own,
    no comment above them (a statement's comments go with it); with those lines' numbers."""
    chosen = []
    for path in sorted(CORPUS.glob("*.otter")):
        text = path.read_text(encoding="utf-8")
        try:
            parse(text)
        except OtterSyntaxError:
            continue
        lines = text.split("\n")
        sets = [
            number
            for number, line in enumerate(lines)
            if number
            and SINGLE_LINE_SET.match(line)
            and not lines[number - 1].strip().startswith(("#", "//", "/*", "*"))
        ]
        if len(sets) >= 2 and len(lines) <= 150:
            chosen.append((path, sets))
        if len(chosen) == count:
            break
    return chosen


def open_as_blocks(page, site: Site, path: Path, name: str) -> tuple[list[str], list[int]]:
    """The corpus script at `path` stored as `name` and opened as blocks: its lines, and the
    numbers of those that start a `set` statement, in the order of the `set` blocks."""
    original = path.read_text(encoding="utf-8")
    site.api(
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": name, "kind": "script", "content": original},
    )
    page.goto(f"{site.base}/rafts/ops/{name}/")
    wait_for_mode(page, "visual")
    lines = original.split("\n")
    order = [
        number
        for number, line in enumerate(lines)
        if re.match(r"^\s*set \$", line) and not line.strip().startswith("#")
    ]
    return lines, order


def test_block_editor_saves_corpus_scripts_changed_only_where_blocks_were_edited(site) -> None:
    scripts = corpus_with_two_sets()
    assert len(scripts) == 3
    with watched_page(site) as (page, watch):
        for path, (changed, deleted) in ((path, sets[:2]) for path, sets in scripts):
            name = f"edited-{path.stem}"
            lines, order = open_as_blocks(page, site, path, name)
            # the blocks of the two statements, by their place among the `set` blocks
            page.evaluate(
                f"""() => {{
                    const space = {MODES}.blocks().workspace;
                    const sets = space.getTopBlocks(true).flatMap((b) => b.getDescendants(true))
                        .filter((b) => b.type === 'otter_set_variable');
                    sets[{order.index(changed)}].setFieldValue('edited', 'VALUE');
                    sets[{order.index(deleted)}].dispose(true);
                }}"""
            )
            page.get_by_role("button", name="Save", exact=True).click()
            page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
            stored_lines = stored(site, name)["content"].split("\n")
            variable = SINGLE_LINE_SET.match(lines[changed]).group(1)
            indent = lines[changed][: len(lines[changed]) - len(lines[changed].lstrip())]
            expected = [
                f"{indent}set ${variable} = edited;" if number == changed else line
                for number, line in enumerate(lines)
                if number != deleted
            ]
            assert stored_lines == expected, path.name
        watch.check("the corpus scripts edited as blocks")


def test_block_editor_saves_corpus_scripts_changed_only_where_blocks_were_moved_or_added(
    site,
) -> None:
    with watched_page(site) as (page, watch):
        for path, sets in corpus_with_two_sets():
            moved = sets[0]
            name = f"moved-{path.stem}"
            lines, order = open_as_blocks(page, site, path, name)
            # the `set` block moved after the script's last statement, a log block added after it
            page.evaluate(
                f"""() => {{
                    const space = {MODES}.blocks().workspace;
                    const moved = space.getTopBlocks(true).flatMap((b) => b.getDescendants(true))
                        .filter((b) => b.type === 'otter_set_variable')[{order.index(moved)}];
                    moved.unplug(true);
                    const last = space.getTopBlocks(true).filter((b) => b !== moved)[0];
                    last.lastConnectionInStack(false).connect(moved.previousConnection);
                    const added = space.newBlock('otter_log');
                    added.setFieldValue('added by the test', 'MESSAGE');
                    added.initSvg();
                    added.render();
                    moved.nextConnection.connect(added.previousConnection);
                }}"""
            )
            page.get_by_role("button", name="Save", exact=True).click()
            page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
            stored_lines = stored(site, name)["content"].split("\n")
            # at the top level a statement keeps its text as it was, and the blank line before it
            indented = lines[moved] != lines[moved].lstrip()
            tail = [
                *([""] if not lines[moved - 1].strip() else []),
                lines[moved].strip() if indented else lines[moved],
                "Log-Information added by the test;",
            ]
            kept = [line for number, line in enumerate(lines) if number != moved]
            end = len(kept)
            while end and not kept[end - 1]:
                end -= 1
            assert stored_lines == [*kept[:end], *tail, *kept[end:]], path.name
        watch.check("the corpus scripts with blocks moved and added")


def test_block_editor_keeps_blocks_that_make_no_script_in_the_browser_and_offers_them_back(
    site,
) -> None:
    broken = "ab\ncd"  # a line break outside a swim string: the blocks make no script
    edit = f"""value => {{
        const block = {MODES}.blocks().workspace.getBlocksByType('otter_log')[0];
        block.setFieldValue(value, 'MESSAGE');
        document.querySelector('.otter-blocks').dispatchEvent(new Event('keyup', {{bubbles: true}}));
    }}"""
    with watched_page(site) as (page, watch):
        watch.expect(f"{site.base}/api/scripts/unblocks/")  # refused while the blocks are broken
        page.goto(f"{site.base}/rafts/ops/kept/")
        wait_for_mode(page, "visual")
        page.evaluate(edit, broken)
        kept = page.locator(".otter-draft-saved", has_text="Kept in this browser only")
        kept.wait_for()
        assert "“Log-Information" in kept.text_content()
        assert "block b" not in kept.text_content()

        page.reload()
        wait_for_mode(page, "visual")
        notice = page.get_by_role("region", name="You have unsaved blocks", exact=False)
        notice.wait_for()
        check_accessibility(page)
        notice.get_by_role("button", name="Restore the blocks").click()
        page.get_by_role("status").filter(has_text="Blocks restored.").wait_for()
        message = (
            f"{MODES}.blocks().workspace.getBlocksByType('otter_log')[0].getFieldValue('MESSAGE')"
        )
        assert page.evaluate(message) == broken

        # fixed, they make a script: its draft is kept on the server, the browser's forgotten
        page.evaluate(edit, "fixed")
        page.locator(".otter-draft-saved", has_text="Draft saved").wait_for()
        assert (
            page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('otterweb:blocks:'))")
            == []
        )
        watch.check("the item page")


def test_block_editor_loads_a_long_script_in_parts_and_updates_only_the_statements_edited_in_text(
    site,
) -> None:
    lines = [f"Log-Information line {number};" for number in range(1, 121)]
    site.api(
        "POST",
        "/api/raft-items/",
        {"raft": "ops", "name": "long", "kind": "script", "content": "\n".join(lines) + "\n"},
    )
    statements = f"""() => {MODES}.blocks().workspace.getAllBlocks(true)
        .filter((b) => b.type !== 'otter_part')"""
    with watched_page(site) as (page, watch):
        page.goto(f"{site.base}/rafts/ops/long/")
        wait_for_mode(page, "visual")
        page.wait_for_function(f"({statements})().length === 120")
        parts = page.evaluate(
            f"() => {MODES}.blocks().workspace.getBlocksByType('otter_part', false).length"
        )
        assert parts == 120 // 25 + 1
        before = page.evaluate(f"() => ({statements})().map((b) => b.id)")

        page.get_by_role("button", name="Text", exact=True).click()
        wait_for_mode(page, "text")
        edited = [*lines[:59], "Log-Information changed in text;", *lines[60:], "Log-Error added;"]
        page.evaluate(
            """(text) => {
                const view = document.querySelector('.otter-editor .cm-content').cmTile.root.view;
                view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
            }""",
            "\n".join(edited) + "\n",
        )
        page.get_by_role("button", name="Blocks", exact=True).click()
        wait_for_mode(page, "visual")
        page.wait_for_function(f"({statements})().length === 121")
        after = page.evaluate(f"() => ({statements})().map((b) => b.id)")
        kept = [id for id in after if id in before]
        assert len(kept) == 119  # every block but the one of the statement changed
        assert after[:59] == before[:59] and after[60:120] == before[60:]

        page.get_by_role("button", name="Save", exact=True).click()
        page.get_by_role("status").filter(has_text="Saved as version 2.").wait_for()
        assert stored(site, "long")["content"] == "\n".join(edited) + "\n"
        watch.check("a long script loaded in parts")
