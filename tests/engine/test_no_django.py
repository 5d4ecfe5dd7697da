"""engine/ never imports Django: the interpreter and tools run without the web application."""

from __future__ import annotations

import ast as python_ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_no_django_import_statement_in_engine_sources() -> None:
    offenders = []
    for path in ENGINE.rglob("*.py"):
        tree = python_ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in python_ast.walk(tree):
            names = []
            if isinstance(node, python_ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, python_ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}:{node.lineno} {name}"
                for name in names
                if name.split(".")[0] in ("django", "rest_framework", "channels", "otterweb")
            ]
    assert not offenders


def test_no_django_loaded_when_engine_runs() -> None:
    code = (
        "import sys, engine, engine.__main__\n"
        "engine.to_blocks(engine.parse('Log-Debug x;'))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'channels', 'otterweb'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ENGINE.parent
    )
    assert result.stdout.strip() == ""
