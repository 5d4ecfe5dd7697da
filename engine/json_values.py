"""JSON <-> OtterScript values: objects become maps, arrays lists, everything else text."""

from __future__ import annotations

from engine.values import Value


def from_json_value(value: object) -> Value:
    if isinstance(value, dict):
        return {str(k): from_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json_value(v) for v in value]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
