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

The blocks of a browser come back from it: with a ``key``, ``to_blocks`` seals what each block
keeps and ``from_blocks`` keeps only what is sealed with that key (see ``source``), so that
``text_of_blocks`` parses only the statements written anew to know the text reads as the blocks
say.

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
from engine.formatter import format_script, format_script_changes
from engine.limits import nesting_guard
from engine.parser import parse

HEADER = re.compile(r"##AH:[^\n]*")

__all__ = [
    "RAW",
    "STATEMENT_TYPES",
    "WORKSPACE_KEY",
    "BlocksError",
    "block_type",
    "from_blocks",
    "text_of_blocks",
    "to_blocks",
]


def to_blocks(
    script: ast.Script, source: str | None = None, key: bytes | None = None
) -> dict[str, Any]:
    """The Blockly workspace JSON of a script; with ``source``, the text the script was parsed
    from, each block keeps its statement's text (sealed with ``key``, when given) and the
    workspace the script's layout, so that ``from_blocks`` gives a script the formatter writes
    back as that text, but for the statements changed since. ValueError for a source the script
    was not parsed from."""
    with nesting_guard(script, script.name):
        cuts = cut(script, source, key) if source is not None else None
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


def from_blocks(data: dict[str, Any], key: bytes | None = None) -> ast.Script:
    """The script a Blockly workspace describes; with ``key``, its statements keep only the text
    sealed with it. Raises OtterSyntaxError for a bad field and BlocksError for JSON that is not
    a workspace of OtterScript blocks."""
    if not isinstance(data, dict):
        raise BlocksError("a workspace is a JSON object")
    blocks = as_list(as_object(data.get("blocks"), "'blocks'").get("blocks"), "'blocks.blocks'")
    settings = as_object(data.get(WORKSPACE_KEY), f"'{WORKSPACE_KEY}'")
    headers = as_list(settings.get("headers"), f"'{WORKSPACE_KEY}.headers'")
    for header in headers:
        if not isinstance(header, str) or not HEADER.fullmatch(header):
            raise BlocksError(f"a header is one line of text starting ##AH:, not {shown(header)}")
    reader = BlockReader(key)
    body: list[ast.Statement] = []
    for top in sorted(blocks, key=lambda b: (_position(b, "y"), _position(b, "x"))):
        body.extend(reader.chain(top))
    if reader.diagnostics:
        raise OtterSyntaxError(reader.diagnostics, name="<blocks>")
    kept = read_kept_script(settings.get("source"), f"'{WORKSPACE_KEY}.source'")
    return ast.Script(headers=tuple(headers), body=tuple(body), kept=kept)


def text_of_blocks(script: ast.Script, name: str = "<blocks>") -> str:
    """The text of a script read from blocks, which reads as the blocks say: OtterSyntaxError
    (the text named ``name``) when it does not parse, as a field's text or the text of a block of
    another editor's making can make it. Only the statements written anew are parsed, each on
    its own, when the text kept is to be trusted (``from_blocks`` with a key); all of the text
    when there is none, or when a statement reads otherwise on its own."""
    if script.kept is None:
        text = format_script(script)
        parse(text, name)
        return text
    text, anew = format_script_changes(script)
    for written, statement in anew:
        if parse(written, name).body != (statement,):
            parse(text, name)
            break
    return text


def _position(block: Any, axis: str) -> float:
    value = block.get(axis) if isinstance(block, dict) else None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0
