"""The local agent's processes: a run's environment without the server's own variables, and on
Linux no process outliving the server that started it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.agents import AgentError, LocalAgent
from engine.agents.local import PARENT_DEATH, run_environment

ROOT = Path(__file__).resolve().parents[2]


def test_local_agent_environment_leaves_out_the_servers_variables() -> None:
    base = {
        "PATH": "/usr/bin",
        "OTTERWEB_SECRET_KEY": "x",
        "django_settings_module": "y",
        "CELERY_BROKER_URL": "z",
        "HOME": "/root",
    }
    assert run_environment(base) == {"PATH": "/usr/bin", "HOME": "/root"}
    with pytest.raises(AgentError, match="'no-such-user-here' that local runs use does not exist"):
        run_environment(base, user="no-such-user-here")


async def test_local_agent_names_a_missing_program_and_a_bad_folder(tmp_path) -> None:
    agent = LocalAgent()
    with pytest.raises(AgentError, match="cannot run 'no-such-program' on localhost: no such"):
        await agent.run(["no-such-program"], on_output=lambda line, error: None)
    (tmp_path / "file").write_text("")
    with pytest.raises(AgentError, match="is not a directory"):
        await agent.run(["true"], cwd=str(tmp_path / "file"), on_output=lambda *_: None)


@pytest.mark.skipif(PARENT_DEATH is None, reason="a parent-death signal needs Linux's setpriv")
def test_local_agent_processes_die_with_the_server_that_started_them(tmp_path) -> None:
    pid_file = tmp_path / "pid"
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import asyncio, sys\n"
            "from engine.agents import LocalAgent\n"
            f"asyncio.run(LocalAgent().run(['sh', '-c', 'echo $$ > {pid_file}; exec sleep 60'],"
            " on_output=lambda *_: None))",
        ],
        cwd=ROOT,
    )
    try:
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.1)
        child = int(pid_file.read_text())
        os.kill(server.pid, 9)  # the server killed: nothing runs its cleanup
        server.wait()
        for _ in range(50):
            if not Path(f"/proc/{child}").exists() or "Z" in _state(child):
                break
            time.sleep(0.1)
        assert not Path(f"/proc/{child}").exists() or "Z" in _state(child)
    finally:
        server.kill()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
