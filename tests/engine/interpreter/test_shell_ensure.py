"""SHEnsure and $SHEval: any state a shell script can read becomes drift-checkable, on this
machine through the local agent (tests/engine/test_cli_run_ssh.py runs them over SSH)."""

from __future__ import annotations

from pathlib import Path

from engine.interpreter import Level

# a setting kept in a file: "on" when the file says so; the configure script counts its runs
# (a swim string ends at >>: the count is appended with tee)
ENSURE = """SHEnsure
(
    Key: feature,
    Value: on,
    Collect: >>cat {setting} 2>/dev/null || echo off>>,
    Configure: >>echo on > {setting}; echo run | tee -a {runs} > /dev/null>>
);"""


def ensure(tmp_path: Path) -> str:
    return ENSURE.format(setting=tmp_path / "setting", runs=tmp_path / "runs")


def runs(tmp_path: Path) -> int:
    path = tmp_path / "runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


async def test_shensure_collect_reports_drift_and_configures_nothing(run, tmp_path) -> None:
    ran = await run(ensure(tmp_path), mode="collect")
    (drift,) = ran.result.drifted
    assert drift.operation == "SHEnsure feature"
    assert [(d.property, d.expected, d.actual) for d in drift.differences] == [
        ("feature", "on", "off")
    ]
    assert runs(tmp_path) == 0 and not (tmp_path / "setting").exists()
    assert ran.status == "normal"


async def test_shensure_execute_configures_once_and_then_finds_nothing_to_do(run, tmp_path) -> None:
    first = await run(ensure(tmp_path))
    assert first.status == "normal", first.messages()
    assert (tmp_path / "setting").read_text() == "on\n" and runs(tmp_path) == 1
    assert "feature is 'off', not 'on': running the configure script." in first.info
    second = await run(ensure(tmp_path))
    assert runs(tmp_path) == 1  # already on: the configure script did not run again
    assert "feature is already 'on': nothing to configure." in second.messages(Level.DEBUG)
    assert not (await run(ensure(tmp_path), mode="collect")).result.drifted


async def test_shensure_collect_execute_configures_what_drifted(run, tmp_path) -> None:
    ran = await run(ensure(tmp_path), mode="collect-execute")
    assert ran.status == "normal" and runs(tmp_path) == 1
    assert [d.operation for d in ran.result.drifted] == ["SHEnsure feature"]


async def test_shensure_use_exit_code_compares_the_exit_code(run, tmp_path) -> None:
    marker = tmp_path / "marker"
    script = f"""SHEnsure
(
    Key: marker,
    Value: 0,
    UseExitCode: true,
    Collect: test -e {marker},
    Configure: touch {marker}
);"""
    collected = await run(script, mode="collect")
    (drift,) = collected.result.drifted
    assert [(d.expected, d.actual) for d in drift.differences] == [("0", "1")]
    assert (await run(script)).status == "normal" and marker.exists()


async def test_shensure_scripts_from_the_raft_with_their_arguments(run, host, tmp_path) -> None:
    host.rafts[("script", "read-mode")] = 'stat -c %a "$1"'
    host.rafts[("script", "set-mode")] = 'chmod "$1" "$2"'
    path = tmp_path / "secret.conf"
    path.write_text("key\n")
    path.chmod(0o644)
    ran = await run(
        f"""SHEnsure
(
    Key: mode,
    Value: 600,
    CollectScript: read-mode,
    CollectScriptArgs: {path},
    ConfigureScript: set-mode,
    ConfigureScriptArgs: 600 {path},
    Verbose: true
);"""
    )
    assert ran.status == "normal", ran.messages()
    assert path.stat().st_mode & 0o777 == 0o600
    assert "The collect script is read-mode in the raft." in ran.messages(Level.DEBUG)
    assert "The collect script exited with code 0 and printed '644'." in ran.messages(Level.DEBUG)


async def test_shensure_configure_that_does_not_change_the_value_fails(run, tmp_path) -> None:
    ran = await run(
        "SHEnsure (Key: answer, Value: 42, Collect: echo 41, Configure: echo trying);\n"
        "Log-Information never;"
    )
    assert ran.status == "error" and "never" not in ran.info
    assert "After the configure script, answer is '41' on localhost; expected '42'." in (
        ran.messages(Level.ERROR)
    )


async def test_shensure_failing_configure_script_fails_with_its_exit_code(run) -> None:
    ran = await run("SHEnsure (Key: k, Value: v, Collect: echo x, Configure: exit 3);")
    assert ran.status == "error"
    assert "/bin/sh exited with code 3 on localhost; expected an exit code == 0." in (
        ran.messages(Level.ERROR)
    )


async def test_shensure_failing_collect_script_is_a_clear_error(run) -> None:
    ran = await run(
        "SHEnsure (Key: k, Value: v, Collect: >>echo no such thing >&2; exit 2>>, Configure: true);"
    )
    assert ran.status == "error"
    assert ran.messages(Level.WARNING) == ["no such thing"]
    assert ran.messages(Level.ERROR) == [
        "the collect script of k exited with code 2 on localhost; it must print the value and "
        "exit with 0 (or set UseExitCode: true)"
    ]


async def test_shensure_needs_one_collect_script(run) -> None:
    neither = await run("SHEnsure (Key: k, Value: v, Configure: true);")
    both = await run(
        "SHEnsure (Key: k, Value: v, Collect: echo v, CollectScript: read, Configure: true);"
    )
    for ran in (neither, both):
        assert ran.messages(Level.ERROR) == [
            "SHEnsure needs Collect or CollectScript, and not both"
        ]


async def test_shensure_simulation_runs_no_script(run, tmp_path) -> None:
    ran = await run(ensure(tmp_path), simulate=True)
    assert ran.info == ["Simulation: would ensure SHEnsure feature on localhost."]
    assert runs(tmp_path) == 0


async def test_sheval_is_what_the_script_prints(run) -> None:
    ran = await run(
        "set $Year = $SHEval(>>date -d 2026-05-01 +%Y>>);\n"
        'Log-Information "[$Year]";\n'
        "Log-Information \"[$SHEval(>>printf 'a\\nb\\n'>>)]\";"
    )
    assert ran.info == ["[2026]", "[a\nb]"]


async def test_sheval_nonzero_exit_is_an_error_with_what_the_script_said(run) -> None:
    ran = await run("set $X = $SHEval(>>echo broken >&2; exit 4>>);\nLog-Information never;")
    assert ran.status == "error" and "never" not in ran.info
    assert any(
        "$SHEval's script exited with code 4 on localhost: broken" in message
        for message in ran.messages(Level.ERROR)
    ), ran.messages(Level.ERROR)
