"""Property tests: generated trees survive text and blocks; random edits only ever raise
OtterSyntaxError (and what still parses still round-trips)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import OtterSyntaxError, check, format_script, from_blocks, parse, to_blocks
from tests.conftest import CORPUS
from tests.engine.strategies import scripts

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
