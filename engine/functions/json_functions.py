"""JSON and evaluation."""

from __future__ import annotations

import json

from engine.json_values import from_json_value
from engine.registry import function
from engine.values import to_text


@function(
    "FromJson",
    returns=None,
    params=("Json",),
    description="The OtterScript value of a JSON text: objects become maps, arrays lists, and "
    "everything else text (numbers as written, true, false; null is empty).",
)
def from_json(call, text):
    try:
        return from_json_value(
            json.loads(to_text(text), parse_float=str, parse_int=str, parse_constant=str)
        )
    except json.JSONDecodeError as error:
        raise ValueError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None


@function(
    "ToJson",
    returns="$",
    params=("Data",),
    description="The JSON text of a value, without spaces: maps become objects, lists arrays, "
    "and text strings.",
)
def to_json(call, value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@function(
    "Eval",
    returns=None,
    params=("text",),
    description="Expands the variables and functions in a text.",
)
async def evaluate(call, text):
    return await call.evaluate_text(to_text(text))
