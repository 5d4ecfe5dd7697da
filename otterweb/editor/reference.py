"""The registry's operations and functions as the editor (completion, hover docs) and API
clients read them, and the block types the engine's block converter writes (the block editor
defines one for each): plain data, built once per process since neither changes while it runs."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from engine import RAW, REGISTRY, STATEMENT_TYPES, FunctionSpec, OperationSpec, Param, to_text

# What a function returns when the call's sigil decides ($Eval, @Eval, %Eval all work).
ANY_SIGIL = ("$", "@", "%")


def _default(value: Any) -> Any:
    """The default as JSON: lists, maps, text, numbers and true/false as they are; anything
    else as the text OtterScript would show."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return to_text(value)
    return value


def _parameter(param: Param) -> dict[str, Any]:
    return {
        "name": param.name,
        "aliases": list(param.aliases),
        "type": param.type.value,
        "required": param.required,
        "default": _default(param.default),
        "positional": param.positional,
        "output": param.output,
        "expanded": param.expand,
        "description": param.description,
    }


def _operation(spec: OperationSpec) -> dict[str, Any]:
    return {
        "namespace": spec.namespace,
        "name": spec.name,
        "aliases": list(spec.aliases),
        "kind": spec.kind.value,
        "description": spec.description,
        "parameters": [_parameter(p) for p in spec.params],
    }


def _function(spec: FunctionSpec) -> dict[str, Any]:
    required = len(spec.params) - spec.optional
    return {
        "name": spec.name,
        "aliases": list(spec.aliases),
        "returns": spec.returns,
        "sigils": [spec.returns] if spec.returns else list(ANY_SIGIL),
        "signature": spec.signature(),
        "parameters": [
            {"name": name, "required": index < required} for index, name in enumerate(spec.params)
        ],
        "variadic": spec.variadic,
        "description": spec.description,
    }


def block_types() -> list[str]:
    """Every block type in the workspaces of ``engine.blocks.to_blocks``: one per statement
    kind, and ``otter_raw`` (a statement kept as its text), sorted."""
    return sorted([*STATEMENT_TYPES, RAW])


@cache
def reference() -> dict[str, list[Any]]:
    """``{"operations": [...], "functions": [...], "blocks": [...]}``, operations by namespace
    and name, functions by name, block types by name."""
    return {
        "operations": [_operation(spec) for spec in REGISTRY.all_operations()],
        "functions": [_function(spec) for spec in REGISTRY.all_functions()],
        "blocks": block_types(),
    }
