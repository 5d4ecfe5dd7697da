"""python -m engine check|format|blocks|unblocks, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
    )


def test_cli_check_prints_file_line_column_severity_message(tmp_path: Path) -> None:
    good = tmp_path / "good.otter"
    good.write_text("Log-Information ok;\n")
    bad = tmp_path / "bad.otter"
    bad.write_text("Log-Information ok;\nset $x 1;\n")
    result = run("check", str(good), str(bad))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{bad}:2:8: error: expected '.key', '=' or '[', found '1'"
    ]


def test_cli_check_exits_zero_with_only_warnings(tmp_path: Path) -> None:
    path = tmp_path / "warn.otter"
    path.write_text("break;\n")
    result = run("check", str(path))
    assert result.returncode == 0
    assert (
        result.stdout
        == f"{path}:1:1: warning: 'break' outside a loop does nothing but log a warning\n"
    )


def test_cli_check_json_lists_files_and_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "a.otter"
    path.write_text("set @x = text;\n")
    result = run("check", "--json", str(path))
    report = json.loads(result.stdout)
    assert result.returncode == 1
    assert report[0]["file"] == str(path)
    diagnostic = report[0]["diagnostics"][0]
    assert {k: diagnostic[k] for k in ("line", "column", "end_line", "end_column", "severity")} == {
        "line": 1,
        "column": 10,
        "end_line": 1,
        "end_column": 14,
        "severity": "error",
    }


def test_cli_check_missing_file_is_an_error(tmp_path: Path) -> None:
    result = run("check", str(tmp_path / "nope.otter"))
    assert result.returncode == 1
    assert "No such file" in result.stderr


def test_cli_format_prints_canonical_text_and_check_mode(tmp_path: Path) -> None:
    path = tmp_path / "a.otter"
    path.write_text("if $a{Exec x(A:1);}")
    result = run("format", str(path))
    assert result.stdout == "if $a\n{\n    Exec x\n    (\n        A: 1\n    );\n}\n"
    assert run("format", "--check", str(path)).returncode == 1
    path.write_text(result.stdout)
    assert run("format", "--check", str(path)).returncode == 0


def test_cli_format_broken_script_prints_diagnostics_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "a.otter"
    path.write_text("set $x 1;\n")
    result = run("format", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert ":1:8: error:" in result.stderr


def test_cli_blocks_and_unblocks_round_trip_through_stdin(tmp_path: Path) -> None:
    source = "# Deploy\nforeach server in @ServersInRole(web)\n{\n    Exec deploy.sh;\n}\n"
    blocks = run("blocks", "-", stdin=source)
    assert blocks.returncode == 0
    assert json.loads(blocks.stdout)["blocks"]["blocks"][0]["type"] == "otter_context_iteration"
    workspace = tmp_path / "w.json"
    workspace.write_text(blocks.stdout)
    assert run("unblocks", str(workspace)).stdout == source


def test_cli_unblocks_bad_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text("{not json")
    result = run("unblocks", str(path))
    assert result.returncode == 2
    assert "not JSON" in result.stderr


# ---- text the CLI does not expect ---------------------------------------------------------


def test_cli_reads_files_as_utf8_with_or_without_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.otter"
    path.write_bytes(b"\xef\xbb\xbfLog-Information caf\xc3\xa9;\n")
    assert run("format", str(path)).stdout == "Log-Information café;\n"
    assert run("check", str(path)).returncode == 0
    piped = subprocess.run(
        [sys.executable, "-m", "engine", "format", "-"],
        input=b"\xef\xbb\xbfLog-Information caf\xc3\xa9;\n",
        capture_output=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},  # the locale's encoding is not UTF-8
    )
    assert piped.stdout.decode("utf-8") == "Log-Information café;\n"


def test_cli_bytes_that_are_not_utf8_are_a_diagnostic_naming_the_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.otter"
    path.write_bytes(b"Log-Information a;\nLog-Information caf\xe9;\n")
    expected = f"{path}:2:20: error: not UTF-8 text: byte 0xe9 at offset 38"
    for command in ("check", "format", "blocks", "run"):
        result = run(command, str(path))
        assert result.returncode == (1 if command == "check" else 2), command
        assert result.stderr.startswith(expected) and "Traceback" not in result.stderr, command


def test_cli_unblocks_a_lone_surrogate_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(
        '{"blocks": {"blocks": [{"type": "otter_log", "fields": {"MESSAGE": "\\ud800"}}]}}'
    )
    result = run("unblocks", str(path))
    assert result.returncode == 2 and "lone surrogate" in result.stderr


def test_cli_blocks_and_unblocks_a_flat_script_of_5000_statements(tmp_path: Path) -> None:
    source = "".join(f"Log-Information line {n};\n" for n in range(5000))
    blocks = run("blocks", "-", stdin=source)
    assert blocks.returncode == 0, blocks.stderr
    # in proportion to the script, though it nests as deep as the script is long
    assert len(blocks.stdout) < 20 * len(source)
    workspace = tmp_path / "w.json"
    workspace.write_text(blocks.stdout)
    assert run("unblocks", str(workspace)).stdout == source


def test_cli_blocks_keep_the_text_so_unblocks_gives_it_back_as_written(tmp_path: Path) -> None:
    source = "##AH:UseTextMode\nif $a {\n\tRestore-Packages();  # first\n}\n"
    workspace = tmp_path / "w.json"
    workspace.write_text(run("blocks", "-", stdin=source).stdout)
    assert run("unblocks", str(workspace)).stdout == source
