"""Golden files: each cases/NAME.otter sits beside its NAME.formatted.otter and NAME.blocks.json,
or, for a broken input, its NAME.errors.txt. Regenerate with UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import OtterSyntaxError, check, format_script, from_blocks, parse, to_blocks

CASES = Path(__file__).parent / "cases"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
INPUTS = sorted(p for p in CASES.glob("*.otter") if not p.name.endswith(".formatted.otter"))


def _compare(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden file {path.name}; run with UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


def _diagnostics_text(diagnostics) -> str:
    return "".join(d.format() + "\n" for d in diagnostics)


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_golden_case_matches_its_outputs(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    stem = source.with_suffix("")
    if source.stem.startswith("error_"):
        with pytest.raises(OtterSyntaxError) as raised:
            parse(text)
        _compare(stem.with_suffix(".errors.txt"), _diagnostics_text(raised.value.diagnostics))
        return
    script = parse(text)
    formatted = format_script(script)
    _compare(Path(f"{stem}.formatted.otter"), formatted)
    blocks = json.dumps(to_blocks(script), indent=2) + "\n"
    _compare(stem.with_suffix(".blocks.json"), blocks)
    diagnostics = check(script)
    warnings_path = stem.with_suffix(".warnings.txt")
    if diagnostics or warnings_path.exists():
        _compare(warnings_path, _diagnostics_text(diagnostics))
    # the outputs read back to the same script
    assert parse(formatted) == script
    assert format_script(parse(formatted)) == formatted
    assert from_blocks(json.loads(blocks)) == script


def test_golden_cases_cover_every_statement_type() -> None:
    from engine import ast

    seen: set[type] = set()
    for source in INPUTS:
        if source.stem.startswith("error_"):
            continue
        seen.update(type(node) for node in parse(source.read_text(encoding="utf-8")).walk())
    missing = {cls.__name__ for cls in ast.node_types()} - {cls.__name__ for cls in seen}
    assert not missing, f"no golden case uses {sorted(missing)}"
