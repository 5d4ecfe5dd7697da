"""The block editor defines a block for every block type the engine writes: the list the
reference endpoint gives (engine.blocks's statement kinds and otter_raw) against BLOCK_TYPES in
frontend/src/blocks/definitions.ts, whose vitest checks that each is defined. And the sample
workspace the frontend's tests load is what the engine writes for the sample script today."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine import ast, format_script, parse, to_blocks
from engine.blocks import RAW, STATEMENT_TYPES, block_type
from otterweb.editor.reference import block_types, reference

ROOT = Path(__file__).resolve().parents[3]
DEFINITIONS = ROOT / "frontend" / "src" / "blocks" / "definitions.ts"
TESTDATA = ROOT / "frontend" / "src" / "blocks" / "testdata"


def frontend_block_types() -> list[str]:
    source = DEFINITIONS.read_text(encoding="utf-8")
    listed = re.search(r"export const BLOCK_TYPES = \[(.*?)\] as const;", source, re.S)
    assert listed, "BLOCK_TYPES is not in frontend/src/blocks/definitions.ts"
    return re.findall(r'"(otter_\w+)"', listed.group(1))


def test_block_types_reference_lists_every_statement_kind_and_raw():
    statements = [cls for cls in ast.node_types() if issubclass(cls, ast.Statement)]
    assert block_types() == sorted({block_type(cls) for cls in statements} | {RAW})
    assert reference()["blocks"] == block_types()


def test_block_types_reference_endpoint_gives_the_block_types(client_with):
    assert client_with().get("/api/reference/").json()["blocks"] == block_types()


def test_block_types_frontend_defines_every_engine_block_type():
    missing = sorted(set(block_types()) - set(frontend_block_types()))
    assert not missing, f"block types the engine writes with no block in the editor: {missing}"
    unknown = sorted(set(frontend_block_types()) - set(block_types()))
    assert not unknown, f"blocks in the editor for types the engine never writes: {unknown}"


def test_block_types_check_fails_for_a_statement_kind_without_a_block(monkeypatch):
    monkeypatch.setitem(STATEMENT_TYPES, "otter_while", ast.Block)
    assert "otter_while" in block_types()
    assert set(block_types()) - set(frontend_block_types()) == {"otter_while"}


def test_block_types_sample_workspace_is_what_the_engine_writes():
    script = (TESTDATA / "sample.otter").read_text(encoding="utf-8")
    assert format_script(parse(script)) == script
    written = json.loads((TESTDATA / "sample.workspace.json").read_text(encoding="utf-8"))
    assert written == to_blocks(parse(script)), (
        "regenerate frontend/src/blocks/testdata/sample.workspace.json from sample.otter"
    )
