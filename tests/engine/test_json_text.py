"""JSON text without recursion (workspaces): the same values as Python's json, at any depth."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.json_text import _read, json_dumps, json_loads

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(values, st.sampled_from([None, 2]))
def test_json_text_reads_and_writes_what_python_s_json_does(value, indent) -> None:
    text = json.dumps(
        value, indent=indent, ensure_ascii=False, separators=(",", ":") if indent is None else None
    )
    assert json_dumps(value, indent=indent) == text
    assert _read(text, None, True, int) == json.loads(text)


def test_json_text_reads_and_writes_50_000_levels() -> None:
    text = '{"a":' * 50_000 + "[]" + "}" * 50_000
    assert json_dumps(json_loads(text)) == text


BAD = [
    ("[1,]", "Expecting value"),
    ('{"a" 1}', "Expecting ':' delimiter"),
    ("[1 2]", "Expecting ',' delimiter"),
    ('{"a":1,}', "Expecting property name"),
    ("[01]", "Expecting ',' delimiter"),
    ("[NaN]", "NaN is not a JSON number"),
    ("[1e999]", "out of range"),
    ('["\\ud800"]', "lone surrogate"),
    ('{"\\udfff": 1}', "lone surrogate"),
    ("[99999999999999999999]", "out of range (at most 64 bits)"),
    ("[" * 101 + "]" * 101, "nested more than 100 deep"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_json_text_refuses_what_is_not_json_with_a_message(text, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        json_loads(text, max_depth=100, surrogates=False, integer_bits=64)


@pytest.mark.parametrize(("text", "message"), BAD)
def test_json_text_refuses_it_past_python_s_recursion_too(text, message) -> None:
    deep = "[" * 20_000 + text + "]" * 20_000
    with pytest.raises(ValueError):
        json_loads(deep, max_depth=20_100, surrogates=False, integer_bits=64)
    with pytest.raises(ValueError, match="nested more than 20000 deep"):
        json_loads(deep, max_depth=20_000)
