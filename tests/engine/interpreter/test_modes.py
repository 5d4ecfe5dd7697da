"""Execution modes, drift, and simulation."""

from __future__ import annotations

from engine.interpreter import Level

SCRIPT = """
{{
    Ensure-Directory {dir};
    Ensure-File {dir}/app.conf (Text: port=8080);
    Exec touch {dir}/executed;
}}
{{
    Exec touch {dir}/unrelated;
}}
"""


async def test_modes_collect_only_reports_drift_and_changes_nothing(run, tmp_path) -> None:
    target = tmp_path / "app"
    ran = await run(SCRIPT.format(dir=target), mode="collect")
    assert not target.exists()
    drift = {d.operation: d for d in ran.result.drifted}
    assert set(drift) == {f"Ensure-Directory {target}", f"Ensure-File {target}/app.conf"}
    differences = {
        (x.property, x.expected, x.actual)
        for x in drift[f"Ensure-File {target}/app.conf"].differences
    }
    assert differences == {("Exists", True, False), ("Text", "port=8080", None)}
    assert ran.status == "normal"


async def test_modes_collect_then_execute_fixes_drift_and_runs_executes_of_its_block(
    run, tmp_path
) -> None:
    target = tmp_path / "app"
    ran = await run(SCRIPT.format(dir=target), mode="collect-execute")
    assert (target / "app.conf").read_text() == "port=8080"
    assert (target / "executed").exists()  # same block as a drifted ensure
    assert not (target / "unrelated").exists()  # nothing drifted in its block
    assert len(ran.result.drifted) == 2


async def test_modes_collect_then_execute_without_drift_executes_nothing(run, tmp_path) -> None:
    target = tmp_path / "app"
    target.mkdir()
    (target / "app.conf").write_text("port=8080")
    ran = await run(SCRIPT.format(dir=target), mode="collect-execute")
    assert ran.result.drifted == []
    assert not (target / "executed").exists()
    assert "No drift was found: nothing to execute." in ran.info


async def test_modes_drift_is_detected_when_the_file_text_differs(run, tmp_path) -> None:
    target = tmp_path / "app"
    target.mkdir()
    (target / "app.conf").write_text("port=9090")
    ran = await run(SCRIPT.format(dir=target), mode="collect")
    [drift] = ran.result.drifted
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("Text", "port=8080", "port=9090")
    ]


async def test_modes_execute_only_runs_everything(run, tmp_path) -> None:
    target = tmp_path / "app"
    await run(SCRIPT.format(dir=target), mode="execute")
    assert (target / "executed").exists() and (target / "unrelated").exists()


async def test_modes_execution_policy_always_runs_ensure_without_drift(run, tmp_path) -> None:
    target = tmp_path / "app"
    target.mkdir()
    (target / "app.conf").write_text("port=8080")
    script = f"Ensure-Directory {tmp_path}/other;\nwith executionPolicy=always {{ Ensure-File {target}/app.conf (Text: port=8080); Exec touch {target}/ran; }}"
    await run(script, mode="collect-execute")
    assert (target / "ran").exists()


async def test_modes_simulation_changes_nothing_and_logs_what_it_would_do(run, tmp_path) -> None:
    target = tmp_path / "app"
    ran = await run(SCRIPT.format(dir=target), simulate=True)
    assert not target.exists()
    assert f"Simulation: would ensure Ensure-Directory {target} on localhost." in ran.info
    assert "Simulation: would execute Exec touch " + f"{target}/executed on localhost." in ran.info


async def test_modes_collecting_operations_run_in_every_mode(run, tmp_path) -> None:
    (tmp_path / "a.txt").write_text("x")
    for mode in ("collect", "collect-execute", "execute"):
        ran = await run(f"Log-Information $FileExists({tmp_path}/a.txt);", mode=mode)
        assert "true" in ran.messages(Level.INFORMATION), mode
