"""AST <-> Blockly workspace JSON (Blockly's own serialization format).

Each statement kind has one block type, ``otter_<snake_case_name>``. An operation call is one
generic block whose namespace, name and positional argument are fields and whose argument list
is data (``extraState.arguments``). An expression or condition is a text field holding its
canonical text, read back in the place it stands in, so quoting choices survive. Comments are
kept exactly: a statement's description is both its comment icon (plain text, editable) and
``extraState.description`` (as written); an edited icon wins. ``from_blocks(to_blocks(s)) == s``.

``writer`` goes from the AST to blocks, ``reader`` back, ``workspace`` holds what both share.
"""

from __future__ import annotations

import re
from typing import Any

from engine import ast
from engine.blocks.reader import BlockReader
from engine.blocks.workspace import (
    RAW,
    STATEMENT_TYPES,
    WORKSPACE_KEY,
    BlocksError,
    as_list,
    as_object,
    block_type,
    shown,
)
from engine.blocks.writer import BlockWriter
from engine.errors import OtterSyntaxError
from engine.limits import nesting_guard

HEADER = re.compile(r"##AH:[^\n]*")

__all__ = [
    "RAW",
    "STATEMENT_TYPES",
    "WORKSPACE_KEY",
    "BlocksError",
    "block_type",
    "from_blocks",
    "to_blocks",
]


def to_blocks(script: ast.Script) -> dict[str, Any]:
    """The Blockly workspace JSON of a script."""
    with nesting_guard(script, script.name):
        top = BlockWriter().chain(script.body)
    blocks = []
    if top is not None:
        top["x"] = 20
        top["y"] = 20
        blocks.append(top)
    return {
        "blocks": {"languageVersion": 0, "blocks": blocks},
        WORKSPACE_KEY: {"headers": list(script.headers)},
    }


def from_blocks(data: dict[str, Any]) -> ast.Script:
    """The script a Blockly workspace describes. Raises OtterSyntaxError for a bad field and
    BlocksError for JSON that is not a workspace of OtterScript blocks."""
    if not isinstance(data, dict):
        raise BlocksError("a workspace is a JSON object")
    blocks = as_list(as_object(data.get("blocks"), "'blocks'").get("blocks"), "'blocks.blocks'")
    headers = as_list(
        as_object(data.get(WORKSPACE_KEY), f"'{WORKSPACE_KEY}'").get("headers"),
        f"'{WORKSPACE_KEY}.headers'",
    )
    for header in headers:
        if not isinstance(header, str) or not HEADER.fullmatch(header):
            raise BlocksError(f"a header is one line of text starting ##AH:, not {shown(header)}")
    reader = BlockReader()
    body: list[ast.Statement] = []
    for top in sorted(blocks, key=lambda b: (_position(b, "y"), _position(b, "x"))):
        body.extend(reader.chain(top))
    if reader.diagnostics:
        raise OtterSyntaxError(reader.diagnostics, name="<blocks>")
    return ast.Script(headers=tuple(headers), body=tuple(body))


def _position(block: Any, axis: str) -> float:
    value = block.get(axis) if isinstance(block, dict) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0
