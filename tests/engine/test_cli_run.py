"""python -m engine run and reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.__main__ import reference_markdown

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_cli_run_text_output_is_indented_by_scope(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    script.write_text("# Greet\n{\n    Log-Information hello $Name;\n    Log-Warning careful;\n}\n")
    result = run("run", str(script), "--var", "Name=ops")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[:3] == ["Greet", "  [information] hello ops", "  [warning] careful"]
    assert lines[3].startswith("status: warning (") and lines[3].endswith(", 0 drifted)")


def test_cli_run_jsonl_records_and_result(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    script.write_text("# Outer\n{\n    Exec echo hi;\n}\nLog-Error bad;\n")
    result = run("run", str(script), "--log-format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 1
    assert lines[0] == {
        "type": "log",
        "seq": 1,
        "scope": ["Outer", "Exec echo hi"],
        "level": "information",
        "message": "Running echo hi",
        "line": 3,
    }
    assert [line["seq"] for line in lines[:-1]] == list(range(1, len(lines)))
    assert (
        lines[-1]["type"] == "result"
        and lines[-1]["status"] == "error"
        and lines[-1]["drifted"] == 0
    )
    assert isinstance(lines[-1]["duration"], float)


def test_cli_run_modes_and_simulate(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    target = tmp_path / "made"
    script.write_text(f"Ensure-Directory {target};\n")
    collected = run("run", str(script), "--mode", "collect", "--log-format", "jsonl")
    assert json.loads(collected.stdout.splitlines()[-1])["drifted"] == 1 and not target.exists()
    simulated = run("run", str(script), "--simulate")
    assert f"Simulation: would ensure Ensure-Directory {target} on localhost." in simulated.stdout
    assert not target.exists()
    executed = run("run", str(script), "--mode", "collect-execute")
    assert executed.returncode == 0 and target.is_dir()


def test_cli_run_broken_script_exits_2_with_diagnostics(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    script.write_text("set $x 1;\n")
    result = run("run", str(script))
    assert result.returncode == 2 and result.stdout == ""
    assert f"{script}:1:8: error:" in result.stderr


def test_cli_run_failing_process_exits_1_with_a_clear_line(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    script.write_text("Exec false;\nLog-Information never;\n")
    result = run("run", str(script))
    assert result.returncode == 1
    assert (
        "[error] false exited with code 1 on localhost; expected an exit code == 0."
        in result.stdout
    )
    assert "never" not in result.stdout and "Traceback" not in result.stderr


def test_cli_run_working_directory_is_the_current_directory(tmp_path: Path) -> None:
    script = tmp_path / "a.otter"
    script.write_text("Log-Information $WorkingDirectory;\n")
    assert f"[information] {tmp_path}" in run("run", str(script), cwd=tmp_path).stdout


def test_reference_document_is_up_to_date() -> None:
    assert (ROOT / "docs" / "reference.md").read_text() == reference_markdown(), (
        "run: python -m engine reference > docs/reference.md"
    )
