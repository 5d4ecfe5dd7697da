"""Runtime values: a value as written."""

from __future__ import annotations

import pytest

from engine.parser import parse_expression
from engine.values import as_written


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("plain", "plain"),
        ('"quoted $x"', "quoted $x"),
        ("hello $Name and $ToUpper($x) $(y)", "hello $Name and $ToUpper($x) $(y)"),
        ("costs `$5", "costs $5"),
        ("@(a, $b)", "@(a, $b)"),
        ("%(k: $v)", "%(k: $v)"),
    ],
)
def test_as_written_keeps_expansions_unexpanded(text: str, written: str) -> None:
    assert as_written(parse_expression(text, "line")) == written
