"""AST <-> Blockly workspace JSON (Blockly's own serialization format).

Each statement kind has one block type, ``otter_<snake_case_name>``. An operation call is one
generic block whose namespace, name and positional argument are fields and whose argument list
is data (``extraState.arguments``). An expression or condition is a text field holding its
canonical text, read back in the place it stands in, so quoting choices survive. Comments are
kept exactly: a statement's description is both its comment icon (plain text, editable) and
``extraState.description`` (as written); an edited icon wins. ``from_blocks(to_blocks(s)) == s``.

Minimal edits: ``to_blocks(script, source=text)``, given the text the script was parsed from,
puts into each statement's block what it needs to be written back as it was
(``extraState.source``: its own text, or for a statement with bodies the text around them; the
white space before it; how deep it stands; the signature of its head) and the script's layout
into the workspace (``otterscript.source``: the headers as written, the white space around the
statements, the unit of indentation). Each character of the text is held once, by the block of
the statement it belongs to. ``from_blocks`` carries that into the tree (``Statement.kept``,
``Script.kept``), and ``format_script`` writes every statement whose head still has its
signature, at the depth it came from, as it was, and formats only those added or changed, to
fit where they stand: a statement with bodies whose head changed keeps what they hold. With no
edit the text comes back byte for byte; without ``source`` (or without ``otterscript.source``)
the text is the formatter's canonical text, as before.

``writer`` goes from the AST to blocks, ``reader`` back, ``source`` cuts a text into what the
blocks keep of it and reads that back, ``workspace`` holds what they share.
"""

from __future__ import annotations

import re
from typing import Any

from engine import ast
from engine.blocks.reader import BlockReader
from engine.blocks.source import cut, read_kept_script
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


def to_blocks(script: ast.Script, source: str | None = None) -> dict[str, Any]:
    """The Blockly workspace JSON of a script; with ``source``, the text the script was parsed
    from, each block keeps its statement's text and the workspace the script's layout, so that
    ``from_blocks`` gives a script the formatter writes back as that text, but for the
    statements changed since. ValueError for a source the script was not parsed from."""
    with nesting_guard(script, script.name):
        cuts = cut(script, source) if source is not None else None
        top = BlockWriter(cuts[1] if cuts else None).chain(script.body)
    blocks = []
    if top is not None:
        top["x"] = 20
        top["y"] = 20
        blocks.append(top)
    settings: dict[str, Any] = {"headers": list(script.headers)}
    if cuts is not None:
        settings["source"] = cuts[0]
    return {"blocks": {"languageVersion": 0, "blocks": blocks}, WORKSPACE_KEY: settings}


def from_blocks(data: dict[str, Any]) -> ast.Script:
    """The script a Blockly workspace describes. Raises OtterSyntaxError for a bad field and
    BlocksError for JSON that is not a workspace of OtterScript blocks."""
    if not isinstance(data, dict):
        raise BlocksError("a workspace is a JSON object")
    blocks = as_list(as_object(data.get("blocks"), "'blocks'").get("blocks"), "'blocks.blocks'")
    settings = as_object(data.get(WORKSPACE_KEY), f"'{WORKSPACE_KEY}'")
    headers = as_list(settings.get("headers"), f"'{WORKSPACE_KEY}.headers'")
    for header in headers:
        if not isinstance(header, str) or not HEADER.fullmatch(header):
            raise BlocksError(f"a header is one line of text starting ##AH:, not {shown(header)}")
    reader = BlockReader()
    body: list[ast.Statement] = []
    for top in sorted(blocks, key=lambda b: (_position(b, "y"), _position(b, "x"))):
        body.extend(reader.chain(top))
    if reader.diagnostics:
        raise OtterSyntaxError(reader.diagnostics, name="<blocks>")
    kept = read_kept_script(settings.get("source"), f"'{WORKSPACE_KEY}.source'")
    return ast.Script(headers=tuple(headers), body=tuple(body), kept=kept)


def _position(block: Any, axis: str) -> float:
    value = block.get(axis) if isinstance(block, dict) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0
