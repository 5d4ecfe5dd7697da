"""Blocks that keep the text of their statements (``to_blocks(script, source=text)``): writing
text from them changes only the statements added or changed in the blocks."""

from __future__ import annotations

import json

import pytest

from engine import (
    OtterSyntaxError,
    ast,
    format_script,
    from_blocks,
    parse,
    text_of_blocks,
    to_blocks,
)
from engine.blocks import BlocksError
from engine.formatter import format_script_changes
from tests.engine import edits

KEY = b"the server's own key"


def blocks_of(text: str) -> dict:
    """The workspace of a text with its source, sealed, as it comes back from the browser."""
    return json.loads(json.dumps(to_blocks(parse(text), source=text, key=KEY)))


def text_of(workspace: dict) -> str:
    """The text of a workspace as the server writes it: what is sealed kept, and checked to
    parse."""
    return text_of_blocks(from_blocks(workspace, key=KEY))


def parsed_corpus(corpus) -> dict[str, str]:
    texts = {}
    for name, (text, _flags) in sorted(corpus.items()):
        try:
            parse(text)
        except OtterSyntaxError:
            continue
        texts[name] = text
    return texts


def sources(value) -> list[dict]:
    """Every ``source`` object in a workspace's JSON."""
    if isinstance(value, list):
        return [found for item in value for found in sources(item)]
    if not isinstance(value, dict):
        return []
    own = [value["source"]] if isinstance(value.get("source"), dict) else []
    return own + [
        found for key, item in value.items() if key != "source" for found in sources(item)
    ]


def piece_texts(source: dict) -> list[str]:
    texts = [source.get(key) for key in ("head", "lead", "tail", "before", "text")]
    texts += source.get("frame", [])
    texts += [text for pair in source.get("bodies", []) for text in pair]
    return [text for text in texts if text]


TABS = (
    "##AH:UseTextMode\n"
    "\n"
    "# Deploy the site\n"
    "if $Environment == prod {\n"
    "\tRestore-Packages();\n"
    "\tforeach $Server in @Servers\n"
    "\t{\n"
    "\t\tLog-Information   Deploying to $Server;  # loud\n"
    "\t}\n"
    "} else {\n"
    "\tLog-Debug skipped;\n"
    "}\n"
    "set $Swim = >>line one\n"
    "line two>>;\n"
    "Ensure-File /etc/nginx/site.conf (Text: >>server {\n"
    "    listen 80;\n"
    "}>>, Exists: true);\n"
)


# ---- no edit: the text as it was -----------------------------------------------------------------


def test_blocks_with_source_give_back_every_corpus_script_byte_for_byte(corpus) -> None:
    texts = parsed_corpus(corpus)
    assert len(texts) > 500
    for name, text in texts.items():
        workspace = blocks_of(text)
        assert "source" in workspace["otterscript"], name
        assert text_of(workspace) == text, name


def test_blocks_source_pieces_tile_the_text_once(corpus) -> None:
    """No text is held twice (in a block and its parent, say): the pieces add up to the text."""
    for name, text in parsed_corpus(corpus).items():
        pieces = sources(blocks_of(text))
        assert sum(len(piece) for source in pieces for piece in piece_texts(source)) == len(text), (
            name
        )


def test_blocks_without_source_keep_nothing_and_format_canonically() -> None:
    workspace = json.loads(json.dumps(to_blocks(parse(TABS))))
    assert sources(workspace) == []
    script = from_blocks(workspace)
    assert script.kept is None and all(
        node.kept is None for node in script.walk() if isinstance(node, ast.Statement)
    )
    assert text_of(workspace) == format_script(parse(TABS))


def test_blocks_source_that_is_not_the_scripts_text_is_refused() -> None:
    with pytest.raises(ValueError, match="not the text the script was parsed from"):
        to_blocks(parse("Log-Debug a;\n"), source="Log-Debug ab;\n")


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (["otterscript", "source", "head"], "Log-Debug sneaked in;"),
        (["otterscript", "source", "tail"], "\nfail;\n"),
        (["otterscript", "source", "indent"], "x"),
        (["blocks", "blocks", 0, "next", "block", "extraState", "source", "before"], "\nfail;"),
        (["blocks", "blocks", 0, "extraState", "source", "depth"], "one"),
        (["blocks", "blocks", 0, "extraState", "source", "sign"], None),
    ],
)
def test_blocks_source_that_is_not_white_space_where_white_space_goes_is_refused(
    where, value
) -> None:
    workspace = blocks_of("Log-Debug a;\nLog-Debug b;\n")
    holder = workspace
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    with pytest.raises(BlocksError, match="source"):
        from_blocks(workspace)


# ---- one edit: only its lines change ---------------------------------------------------------


@pytest.fixture(scope="module")
def longest(corpus) -> dict[str, str]:
    """The 30 longest corpus scripts that parse."""
    texts = parsed_corpus(corpus)
    return {name: texts[name] for name in sorted(texts, key=lambda n: (-len(texts[n]), n))[:30]}


@pytest.mark.parametrize("kind", ["add", "change", "delete", "move"])
def test_blocks_edit_of_any_statement_of_the_longest_corpus_scripts_changes_only_its_lines(
    longest, kind
) -> None:
    """Each statement of each script in turn: a block added after it, its block changed, deleted,
    or moved to the end of its stack (the first one to the end, the last one to the front)."""
    count = 0
    for name, text in longest.items():
        tree = parse(text)
        workspace = blocks_of(text)
        for path, _block in edits.block_paths(workspace):
            parent, number, index = edits.split(path)
            size = len(edits.body_at(tree, parent, number))
            if kind == "add":
                edit = edits.adding(workspace, tree, parent, number, index + 1)
            elif kind == "change":
                edit = edits.changing(workspace, path)
            elif kind == "delete":
                edit = edits.deleting(workspace, tree, path)
            elif size > 1:
                edit = edits.moving(workspace, tree, path, 0 if index == size - 1 else size - 1)
            else:
                continue
            try:
                edits.text_after(edit, tree, text)
            except AssertionError as error:
                raise AssertionError(f"{name}, statement {path}: {error}") from None
            count += 1
    assert count > 100


def test_blocks_change_of_a_statement_with_bodies_keeps_what_they_hold() -> None:
    workspace = blocks_of(TABS)
    result = text_of(edits.change(workspace, (0,)))
    assert result == TABS.replace(
        "# Deploy the site\nif $Environment == prod {\n",
        "# changed in the editor\nif $Environment == prod\n{\n",
    ).replace("} else {\n", "}\nelse\n{\n")


def test_blocks_statement_moved_to_another_depth_is_written_canonically() -> None:
    text = "if $a {\n  Log-Debug   inner;\n}\nLog-Debug   outer;\n"
    workspace = blocks_of(text)
    outer = edits.block_at(workspace, (1,))
    moved = edits.delete(workspace, (1,))
    moved = edits.add(moved, (0,), 0, 1, outer)
    assert text_of(moved) == "if $a {\n  Log-Debug   inner;\n  Log-Debug outer;\n}\n"


def test_blocks_statement_after_a_standalone_comment_stays_apart_from_it() -> None:
    """Deleting what followed a comment that describes nothing must not make it the next
    statement's description: a blank line stays between them."""
    text = "# about the step\n\nLog-Debug a;\nLog-Debug b;\n"
    result = text_of(edits.delete(blocks_of(text), (1,)))
    assert result == "# about the step\n\nLog-Debug b;\n"
    assert isinstance(parse(result).body[0], ast.Comment)


# ---- multi-line values, tabs, headers ------------------------------------------------------------


def test_blocks_multi_line_swim_values_keep_their_line_breaks() -> None:
    workspace = blocks_of(TABS)
    swim = "set $Swim = >>line one\nline two>>;\n"
    config = (
        "Ensure-File /etc/nginx/site.conf (Text: >>server {\n    listen 80;\n}>>, Exists: true);"
    )
    for path in [(0,), (0, 0, 1), (2,)]:  # other statements edited
        assert swim in text_of(edits.change(workspace, path))
    assert config in text_of(edits.change(workspace, (1,)))
    changed = edits.block_at(workspace, (2,))
    changed["extraState"]["arguments"][1]["value"] = "false"  # Exists: the file's own statement
    result = text_of(workspace)
    assert "(\n\tText: >>\nserver {\n    listen 80;\n}\n\t>>,\n\tExists: false\n);\n" in result
    value = parse(result).body[2].arguments[0].value
    assert isinstance(value, ast.Scalar) and value.literal == "server {\n    listen 80;\n}"


def test_blocks_tab_indented_source_keeps_its_tabs_and_new_statements_take_tabs() -> None:
    workspace = blocks_of(TABS)
    operation = {
        "type": "otter_operation_call",
        "fields": {"NAMESPACE": "", "NAME": "Ensure-File", "POSITIONAL": "/srv/a.txt"},
        "extraState": {"arguments": [{"name": "Text", "value": ">>\none\ntwo\n>>"}]},
    }
    result = text_of(edits.add(workspace, (0, 0, 1), 0, 1, operation))
    assert result == TABS.replace(
        "\t\tLog-Information   Deploying to $Server;  # loud\n",
        "\t\tLog-Information   Deploying to $Server;  # loud\n"
        "\t\tEnsure-File /srv/a.txt\n"
        "\t\t(\n"
        "\t\t\tText: >>\n"
        "one\n"
        "two\n"
        "\t\t\t>>\n"
        "\t\t);\n",
    )


def test_blocks_new_statement_in_an_empty_body_is_one_indent_in() -> None:
    text = "if $a\n{\n}\nelse\n{\n\tLog-Debug b;\n}\n"
    result = text_of(edits.add(blocks_of(text), (0,), 0, 0, edits.ADDED))
    assert (
        result
        == "if $a\n{\n\tLog-Information added in the editor;\n}\nelse\n{\n\tLog-Debug b;\n}\n"
    )


def test_blocks_mode_header_change_changes_only_the_header_line() -> None:
    workspace = blocks_of(TABS)
    workspace["otterscript"]["headers"] = ["##AH:UseVisualMode"]
    assert text_of(workspace) == TABS.replace("##AH:UseTextMode", "##AH:UseVisualMode")
    workspace["otterscript"]["headers"] = []
    assert text_of(workspace) == TABS.removeprefix("##AH:UseTextMode\n\n")


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def test_blocks_source_with_crlf_line_breaks_gives_back_every_corpus_script_byte_for_byte(
    corpus,
) -> None:
    for name, text in parsed_corpus(corpus).items():
        assert text_of(blocks_of(crlf(text))) == crlf(text), name


def test_blocks_edit_in_a_crlf_script_writes_its_new_lines_with_crlf_too() -> None:
    text = crlf(
        "# top\nLog-Information one;\nif $A\n{\n    Log-Information two;\n}\nLog-Information three;\n"
    )
    workspace = blocks_of(text)
    first = workspace["blocks"]["blocks"][0]
    first["next"]["block"]["fields"]["IF0"] = "$B"  # the if's head changed: written anew
    written = text_of(workspace)
    assert written == text.replace("if $A", "if $B")
    assert "\n" not in written.replace("\r\n", "")


def test_blocks_edit_in_a_script_of_mixed_line_breaks_keeps_each_and_writes_new_ones_with_lf() -> (
    None
):
    text = "Log-Information one;\r\nLog-Information two;\nLog-Information three;\r\n"
    workspace = blocks_of(text)
    workspace["blocks"]["blocks"][0]["next"]["block"]["fields"]["MESSAGE"] = "changed"
    assert (
        text_of(workspace)
        == "Log-Information one;\r\nLog-Information changed;\nLog-Information three;\r\n"
    )


# ---- sealed: what comes back from a browser -----------------------------------------------------


def test_blocks_sealed_text_is_kept_only_with_the_key_it_was_sealed_with() -> None:
    workspace = blocks_of(TABS)
    assert all(source.get("seal") for source in sources(workspace) if "sign" in source)
    assert text_of(workspace) == TABS
    other = from_blocks(workspace, key=b"another server's key")
    assert other == parse(TABS) and all(
        node.kept is None for node in other.walk() if isinstance(node, ast.Statement)
    )


def test_blocks_sealed_text_changed_on_the_way_is_written_anew_and_the_rest_kept() -> None:
    text = "Log-Debug   one;\nLog-Debug   two;\nLog-Debug   three;\n"
    workspace = blocks_of(text)
    second = edits.block_at(workspace, (1,))
    second["extraState"]["source"]["text"] = "Log-Debug   something else;"
    assert text_of(workspace) == "Log-Debug   one;\nLog-Debug two;\nLog-Debug   three;\n"


def test_blocks_statements_written_anew_are_placed_where_the_text_has_them() -> None:
    text = "if $a {\n\tLog-Debug   one;  # kept\n\tLog-Debug   two;\n}\nLog-Debug   three;\n"
    workspace = blocks_of(text)
    edits.block_at(workspace, (0, 0, 1))["fields"]["MESSAGE"] = "2"
    edits.block_at(workspace, (1,))["fields"]["MESSAGE"] = "3"
    result, anew = format_script_changes(from_blocks(workspace, key=KEY))
    assert result == "if $a {\n\tLog-Debug   one;  # kept\n\tLog-Debug 2;\n}\nLog-Debug 3;\n"
    assert [written for written, _statement in anew] == [
        "\n\n" + " " + "Log-Debug 2;",
        "\n\n\n\n" + "Log-Debug 3;",
    ]
    assert [statement for _written, statement in anew] == [
        parse("Log-Debug 2;").body[0],
        parse("Log-Debug 3;").body[0],
    ]


def test_text_of_blocks_names_the_line_and_column_of_a_field_that_makes_text_that_does_not_parse() -> (
    None
):
    workspace = blocks_of("Log-Debug   one;\n\nLog-Debug   two;\n")
    edits.block_at(workspace, (1,))["type"] = "otter_operation_call"
    edits.block_at(workspace, (1,))["fields"] = {"NAME": "Exec {"}
    with pytest.raises(OtterSyntaxError) as raised:
        text_of(workspace)
    error = raised.value.diagnostics[0]
    assert (error.line, error.column) == (3, 6)
