"""Every corpus file through parse, check, format and blocks (read in place from ../shared)."""

from __future__ import annotations

import json

import pytest

from engine import OtterSyntaxError, check, format_script, from_blocks, parse, to_blocks

# Flags that mark samples which are not valid scripts in their source.
WRONG_FLAGS = (
    "missing-semicolon?",
    "braces-for-args?",
    "undocumented-statement?",
    "finally",
    "expression-only",
    "template(",
    "invalid?",
    "bare-assignment",
    "for-with-vector?",
    "unbalanced-quote",
    "placeholder",
)


def _outcome(name: str, text: str):
    try:
        script = parse(text, name=name)
    except OtterSyntaxError as error:
        return None, error.diagnostics
    return script, check(script)


@pytest.fixture(scope="module")
def outcomes(corpus):
    return {name: _outcome(name, text) for name, (text, _flags) in corpus.items()}


def test_corpus_parse_never_crashes_and_every_failure_has_a_position(corpus, outcomes) -> None:
    for name, (script, diagnostics) in outcomes.items():
        text = corpus[name][0]
        line_count = text.count("\n") + 1
        if script is None:
            assert any(d.is_error for d in diagnostics), name
        for diagnostic in diagnostics:
            assert 1 <= diagnostic.line <= line_count, (name, diagnostic)
            assert diagnostic.column >= 1, (name, diagnostic)
            assert (diagnostic.end_line, diagnostic.end_column) >= (
                diagnostic.line,
                diagnostic.column,
            ), (name, diagnostic)
            assert "internal parser error" not in diagnostic.message, (name, diagnostic)


def test_corpus_unflagged_files_parse_at_least_98_percent(corpus, outcomes, capsys) -> None:
    unflagged = [name for name, (_text, flags) in corpus.items() if not flags]
    failures = sorted(name for name in unflagged if outcomes[name][0] is None)
    clean = sorted(
        name
        for name in unflagged
        if outcomes[name][0] is not None and not any(d.is_error for d in outcomes[name][1])
    )
    rate = 1 - len(failures) / len(unflagged)
    with capsys.disabled():
        print(f"\ncorpus: {len(corpus)} files, {len(unflagged)} unflagged")
        print(
            f"corpus: unflagged that parse: {len(unflagged) - len(failures)} ({rate:.1%}); "
            f"with no error from check either: {len(clean)} ({len(clean) / len(unflagged):.1%})"
        )
        for name in failures:
            first = next(d for d in outcomes[name][1] if d.is_error)
            print(f"corpus: fails: {first.format(name)}")
    assert rate >= 0.98


def test_corpus_flagged_files_fail_with_a_diagnostic_or_warn(corpus, outcomes, capsys) -> None:
    flagged = {
        name: flags
        for name, (_text, flags) in corpus.items()
        if any(flag in flags for flag in WRONG_FLAGS)
    }
    silent = []
    for name, flags in flagged.items():
        script, diagnostics = outcomes[name]
        if "placeholder" in flags and script is not None:
            continue  # a placeholder like «name» is often a valid implicit string
        if not diagnostics:
            silent.append(f"{name} ({flags})")
    with capsys.disabled():
        failed = sum(outcomes[name][0] is None for name in flagged)
        print(
            f"\ncorpus: {len(flagged)} flagged as wrong in their source: {failed} fail, "
            f"{len(flagged) - failed - len(silent)} parse with a diagnostic, {len(silent)} pass silently"
        )
        for entry in silent:
            print(f"corpus: flagged but silent: {entry}")
    assert not silent


@pytest.mark.parametrize(
    ("name", "line", "words"),
    [
        ("241.otter", 2, "'retry' is not a statement"),  # retry 3 { }
        ("395.otter", 11, "OtterScript has no 'finally'"),  # try { } finally { }
        ("091.otter", 4, "argument lists are written in parentheses"),  # Name { Arg: value };
        ("251.otter", 1, "a value alone is not a statement"),  # $ToJson(...) as a script
        ("379.otter", 71, "assign with 'set $name = value;'"),  # $lower = $ToLower(...)
        ("015.otter", 7, "missing ';' after ')'"),  # leniency: warning only
        ("090.otter", 3, "missing ','"),  # leniency: warning only
        ("234.otter", 1, "'raise-error' is not an OtterScript statement"),
        ("558.otter", 1, "for server takes one server name"),
        ("559.otter", 10, 'unbalanced "'),
    ],
)
def test_corpus_flagged_file_diagnostic_points_at_the_real_mistake(
    outcomes, name, line, words
) -> None:
    _script, diagnostics = outcomes[name]
    assert any(d.line == line and words in d.explained for d in diagnostics), [
        d.format(name) for d in diagnostics
    ]


def test_corpus_round_trips_through_format_and_blocks(outcomes) -> None:
    parsed = {name: script for name, (script, _d) in outcomes.items() if script is not None}
    assert len(parsed) > 500
    for name, script in parsed.items():
        formatted = format_script(script)
        again = parse(formatted, name=name)
        assert again == script, name
        assert format_script(again) == formatted, f"{name}: format is not idempotent"
        workspace = json.loads(json.dumps(to_blocks(script)))
        assert from_blocks(workspace) == script, f"{name}: blocks round trip"
