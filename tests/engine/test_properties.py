"""Property tests: generated trees survive text and blocks; random edits of a text only ever raise
OtterSyntaxError (and what still parses still round-trips); an edit of blocks that keep their
source changes only the edited statement's text."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import OtterSyntaxError, ast, check, format_script, from_blocks, parse, to_blocks
from tests.conftest import CORPUS
from tests.engine import edits
from tests.engine.strategies import laid_out, scripts

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(scripts)
def test_properties_generated_script_survives_format_and_parse(script) -> None:
    text = format_script(script)
    again = parse(text)
    assert again == script, text
    assert format_script(again) == text


@SETTINGS
@given(scripts)
def test_properties_generated_script_survives_blocks(script) -> None:
    assert from_blocks(json.loads(json.dumps(to_blocks(script)))) == script


@st.composite
def edits_of_laid_out_scripts(draw) -> tuple[ast.Script, str, edits.Edit]:
    """A generated script laid out as people write it (tabs, blanks, blank lines), its blocks
    with their source, and one edit of them: a block added, changed, deleted or moved."""
    script = draw(scripts)
    text = draw(laid_out(script))
    tree = parse(text)
    assert tree == script, text
    workspace = json.loads(json.dumps(to_blocks(tree, source=text)))
    paths = [path for path, _block in edits.block_paths(workspace)]
    kind = draw(st.sampled_from(["add", "change", "delete", "move"])) if paths else "add"
    if kind == "add":
        parent, number = draw(st.sampled_from(edits.body_places(tree)))
        size = len(edits.body_at(tree, parent, number))
        return tree, text, edits.adding(workspace, tree, parent, number, draw(st.integers(0, size)))
    path = draw(st.sampled_from(paths))
    if kind == "change":
        return tree, text, edits.changing(workspace, path)
    parent, number, index = edits.split(path)
    size = len(edits.body_at(tree, parent, number))
    if kind == "delete" or size == 1:
        return tree, text, edits.deleting(workspace, tree, path)
    to = draw(st.integers(0, size - 2).filter(lambda to: to != index))
    return tree, text, edits.moving(workspace, tree, path, to)


@SETTINGS
@given(edits_of_laid_out_scripts())
def test_properties_blocks_edit_changes_only_the_edited_statements_text(case) -> None:
    """The untouched statements keep their text, byte for byte, and the text parses to the
    edited tree (edits.text_after checks both)."""
    tree, text, edit = case
    edits.text_after(edit, tree, text)


@SETTINGS
@given(st.data())
def test_properties_blocks_with_source_give_back_a_laid_out_script(data) -> None:
    script = data.draw(scripts)
    text = data.draw(laid_out(script))
    workspace = json.loads(json.dumps(to_blocks(parse(text), source=text)))
    assert format_script(from_blocks(workspace)) == text


CORPUS_TEXTS = sorted(
    (CORPUS / name).read_text(encoding="utf-8")
    for name in sorted(p.name for p in CORPUS.glob("*.otter"))
)
NOISE = st.lists(
    st.sampled_from(
        [
            *list("{}()[];,:=>@%$#/`\"' \nxAb1"),
            "set ",
            "if ",
            "=>",
            "==",
            "&&",
            ">>",
            "/*",
            "*/",
            "${",
            "$(",
            "@(",
            "%(",
        ]
    ),
    max_size=6,
).map("".join)


@st.composite
def edited_corpus_files(draw) -> str:
    text = draw(st.sampled_from(CORPUS_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 12)))
        action = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        if action == "delete":
            text = text[:start] + text[end:]
        elif action == "insert":
            text = text[:start] + draw(NOISE) + text[start:]
        elif action == "replace":
            text = text[:start] + draw(NOISE) + text[end:]
        else:
            text = text[:end] + text[start:end] + text[end:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_corpus_files())
def test_properties_random_edits_of_corpus_files_only_raise_syntax_errors(text: str) -> None:
    try:
        script = parse(text)
    except OtterSyntaxError as error:
        lines = text.count("\n") + 1
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert 1 <= diagnostic.line <= lines and diagnostic.column >= 1
            assert "internal parser error" not in diagnostic.message
        return
    check(script)
    formatted = format_script(script)
    assert parse(formatted) == script
    assert from_blocks(json.loads(json.dumps(to_blocks(script)))) == script
