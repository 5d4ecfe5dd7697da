"""Runtime values: a value as written, a literal's value."""

from __future__ import annotations

import pytest

from engine.parser import parse_expression
from engine.values import as_written, literal_text, literal_value


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("plain", "plain"),
        ('"quoted $x"', "quoted $x"),
        ("hello $Name and $ToUpper($x) $(y)", "hello $Name and $ToUpper($x) $(y)"),
        ("costs `$5", "costs $5"),
        ("@(a, $b)", "@(a, $b)"),
        ("%(k: $v)", "%(k: $v)"),
        # braces where the text after a variable would read as more of its name
        ("${a}q", "${a}q"),
        ("x${b}_c ${b} d", "x${b}_c $b d"),
        ("${a}.txt", "$a.txt"),
    ],
)
def test_as_written_keeps_expansions_unexpanded(text: str, written: str) -> None:
    assert as_written(parse_expression(text, "line")) == written


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("costs `$5, `` is a grave", "costs `$5, `` is a grave"),
        ('"<`% x %> `$a $b"', "<`% x %> `$a $b"),
        (">>`$a`n$ToUpper($b)>>", "`$a`n$ToUpper($b)"),
        ("plain", "plain"),
    ],
)
def test_as_written_keeps_escapes_when_asked(text: str, written: str) -> None:
    assert as_written(parse_expression(text, "line"), keep_escapes=True) == written


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("hello $Name", "hello $Name"),
        ("@(a, $b, @(c))", ["a", "$b", ["c"]]),
        ("%(k: $v, m: %(n: 1))", {"k": "$v", "m": {"n": "1"}}),
    ],
)
def test_literal_value_keeps_expansions_at_every_depth(text: str, value) -> None:
    assert literal_value(text) == value


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        ("", '""'),
        ("  spaced  ", '"  spaced  "'),
        ("with $dollar and `tick", "with `$dollar and ``tick"),
        (["a", "b, c", "x)"], '@(a, "b, c", "x)")'),
        ({"port": "80", "hosts": ["a", "b"]}, "%(port: 80, hosts: @(a, b))"),
        ("line one\nline two", ">>\nline one\nline two\n>>"),
    ],
)
def test_literal_text_writes_the_literal_that_reads_back_as_the_value(value, text) -> None:
    assert literal_text(value) == text
    assert literal_value(literal_text(value)) == value
