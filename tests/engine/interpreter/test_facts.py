"""Facts of a server (engine/interpreter/facts.py): what many operations read is read once while
nothing changes the server, and read again once something may have."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from engine.interpreter.facts import Facts, WatchedAgent


class Counting:
    """An agent that counts the programs it runs and the files it reads."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.server = agent.server
        self.calls: Counter = Counter()

    async def run(self, command, **options):
        self.calls[command[0]] += 1
        return await self.agent.run(command, **options)

    async def read_file(self, path):
        self.calls["read_file"] += 1
        return await self.agent.read_file(path)

    def __getattr__(self, name):
        return getattr(self.agent, name)


@pytest.fixture
def counted(host):
    """The calls of the run's agents on the host's server."""
    calls: Counter = Counter()
    opened = type(host).agent

    async def agent(self, server, *, credential=None):
        counting = Counting(await opened(self, server, credential=credential))
        counting.calls = calls
        return counting

    host.agent = agent.__get__(host)
    return calls


async def test_facts_a_drift_check_reads_the_package_list_the_accounts_and_a_file_once(
    run, counted, tmp_path: Path
) -> None:
    config = tmp_path / "app.conf"
    config.write_text("port = 80\n")
    script = "\n".join(
        [
            "Ensure-DebianPackage bash;",
            "Ensure-DebianPackage coreutils;",
            "Ensure-DebianPackage otterweb-no-such-package;",
            "Ensure-Group root;",  # a collect runs a program (getent): reading, no change
            "Ensure-User root (Groups: @());",
            "Ensure-User daemon;",
            "Ensure-Group otterweb-no-such-group;",  # not listed: asked for alone
            *(f"Ensure-FileLine {config} (Line: key{n} = {n});" for n in range(5)),
            "Ensure-DebianPackage dpkg;",
        ]
    )
    ran = await run(script, mode="collect")
    assert ran.status == "normal", ran.messages()
    assert [drift.operation for drift in ran.result.drifted] == [
        "Ensure-DebianPackage otterweb-no-such-package",
        "Ensure-Group otterweb-no-such-group",
        *(f"Ensure-FileLine {config}: key{n} = {n}" for n in range(5)),
    ]
    # the accounts listed by one shell (getent passwd; getent group), the missing group asked alone
    assert (counted["/bin/sh"], counted["getent"]) == (1, 1)
    assert (counted["dpkg-query"], counted["read_file"]) == (1, 1)


async def test_facts_are_read_again_after_an_operation_changes_the_server(
    run, counted, tmp_path: Path
) -> None:
    config = tmp_path / "app.conf"
    config.write_text("port = 80\n")
    ran = await run(
        f"Ensure-FileLine {config} (Line: one);\n"
        f"Ensure-FileLine {config} (Line: two);\n"
        f"SHExec echo three >> {config};\n"
        f"Ensure-FileLine {config} (Line: three);\n"
        f"Ensure-FileLine {config} (Line: port = 80);"
    )
    assert ran.status == "normal", ran.messages()
    assert config.read_text() == "port = 80\none\ntwo\nthree\n"  # no line lost, none twice
    assert [m for m in ran.info if m.startswith("Added")] == [
        f"Added the line at the end of {config}.",
        f"Added the line at the end of {config}.",
    ]
    # read before each write and after the program; the last two read what the third read
    assert counted["read_file"] == 3


async def test_facts_readers_at_once_share_one_read_and_a_failure_is_tried_again() -> None:
    facts = Facts()
    agent = object()
    loads = 0

    async def load() -> str:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.01)
        if loads == 1:
            raise OSError("the server did not answer")
        return f"read {loads}"

    results = await asyncio.gather(
        *(facts.get(agent, "x", load) for _ in range(3)), return_exceptions=True
    )
    assert [str(result) for result in results] == ["the server did not answer"] * 3
    assert [await facts.get(agent, "x", load) for _ in range(2)] == ["read 2", "read 2"]
    assert await facts.get(object(), "x", load) == "read 3"  # another server's own


async def test_facts_a_change_through_the_agent_forgets_what_was_known(tmp_path: Path) -> None:
    from engine.agents import LocalAgent

    facts = Facts()
    agent = WatchedAgent(LocalAgent(working_directory=str(tmp_path)), facts)
    path = str(tmp_path / "f")
    try:
        await agent.write_file(path, b"before")

        async def load() -> bytes:
            return await agent.read_file(path)

        assert await facts.get(agent, "f", load) == b"before"
        await agent.read_file(path)  # reading changes nothing
        assert facts.known
        await agent.write_file(path, b"after")
        assert not facts.known
        assert await facts.get(agent, "f", load) == b"after"
        code = await agent.run(["true"], on_output=lambda *_: None)
        assert code == 0 and not facts.known  # a program may have changed anything
    finally:
        await agent.close()
