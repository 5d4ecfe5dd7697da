"""The SSH agent (engine/agents/ssh.py) against real OpenSSH servers (the ``sshd`` fixture): runs,
cancels, files, one connection shared by many operations, every way a connection fails, host
keys, the server probe, HTTP from the server, and the engine's operations on SSH servers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import re
import shlex
import shutil
import socket
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine import parse
from engine.agents import (
    AgentError,
    HostKeyChanged,
    HostKeyUntrusted,
    HttpRequest,
    SshAgent,
    SshConnections,
    SshTarget,
    fingerprint,
    probe,
)
from engine.agents.ssh import COMMAND_CHANNELS
from engine.interpreter import Host, ListSink, RunCredential, ScriptRun
from tests.sshd import DIE_WITH_PARENT, SSHD


def key_part(line: str) -> str:
    """``ssh-ed25519 AAAA...`` without the comment."""
    return " ".join(line.split()[:2])


def free_port() -> int:
    with socket.socket() as handle:
        handle.bind(("127.0.0.1", 0))
        return handle.getsockname()[1]


def accepted_logins(cluster) -> int:
    """How many logins the cluster's daemons have accepted (each daemon's sshd.log)."""
    return sum(
        log.read_text(errors="replace").count("Accepted ")
        for log in cluster.folder.glob("sshd*/sshd.log")
    )


@contextlib.contextmanager
def own_sshd(cluster, *, key_types: tuple[str, ...], path: str | None = None) -> Iterator[dict]:
    """One more sshd beside the cluster's (its settings, user and client key), with a host key
    of each type in ``key_types``, and ``path`` first on its sessions' PATH when given. Yields
    the port and the keys: ``{"port": ..., "ssh-ed25519": "ssh-ed25519 AAAA...", ...}``."""
    folder = cluster.folder / f"own-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    base = (cluster.folder / "sshd0" / "sshd_config").read_text().splitlines()
    kept = [line for line in base if not line.startswith(("ListenAddress", "HostKey", "PidFile"))]
    kept = [line for line in kept if not line.startswith("SetEnv")]
    found: dict = {"port": free_port()}
    for key_type in key_types:
        key = folder / f"host_{key_type}"
        subprocess.run(["ssh-keygen", "-q", "-t", key_type, "-N", "", "-f", str(key)], check=True)
        public = key.with_suffix(".pub").read_text()
        found[public.split()[0]] = key_part(public)
        kept.append(f"HostKey {key}")
    environment = f"HOME={cluster.home}"
    if path:
        environment += f" PATH={path}:/usr/local/bin:/usr/bin:/bin"
    kept += [
        f"ListenAddress 127.0.0.1:{found['port']}",
        f"PidFile {folder / 'sshd.pid'}",
        f"SetEnv {environment}",
    ]
    config = folder / "sshd_config"
    config.write_text("\n".join(kept) + "\n")
    with open(folder / "sshd.log", "ab") as log:
        daemon = subprocess.Popen(
            [*DIE_WITH_PARENT, SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log
        )
    try:
        deadline = time.monotonic() + 10
        while True:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", found["port"]), timeout=1) as greeting,
            ):
                if greeting.recv(4).startswith(b"SSH-"):
                    break
            assert daemon.poll() is None and time.monotonic() < deadline, (
                folder / "sshd.log"
            ).read_text()
            time.sleep(0.05)
        yield found
    finally:
        daemon.terminate()
        daemon.wait(5)


class Output:
    """An ``on_output`` that keeps each line with whether it came from standard error."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, bool]] = []

    def __call__(self, line: str, is_error: bool) -> None:
        self.lines.append((line, is_error))

    @property
    def out(self) -> list[str]:
        return [line for line, is_error in self.lines if not is_error]

    @property
    def err(self) -> list[str]:
        return [line for line, is_error in self.lines if is_error]


async def run(agent: SshAgent, command: list[str], **options) -> tuple[int, Output]:
    output = Output()
    code = await agent.run(command, on_output=output, **options)
    return code, output


@pytest.fixture
async def connections() -> AsyncIterator[SshConnections]:
    opened = SshConnections()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def agent(sshd, connections) -> SshAgent:
    return await connections.agent(sshd.target())


@pytest.fixture
def folder(sshd) -> str:
    """A fresh folder the test user owns (every server is this machine)."""
    path = sshd.home / f"agent-{uuid.uuid4().hex[:10]}"
    path.mkdir()
    shutil.chown(path, sshd.user)
    return str(path)


# ---- run -----------------------------------------------------------------------------------------


async def test_run_streams_stdout_and_stderr_lines_in_order_with_their_flag(agent) -> None:
    script = "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three; sleep 0.1; echo four >&2"
    code, output = await run(agent, ["sh", "-c", script])
    assert code == 0
    assert output.lines == [("one", False), ("two", True), ("three", False), ("four", True)]


async def test_run_streams_a_line_before_the_process_ends(agent, folder) -> None:
    # the command waits for a file that the test creates only when the first line has arrived
    signal_file = Path(folder) / "go"
    output = Output()

    def on_output(line: str, is_error: bool) -> None:
        output(line, is_error)
        if line == "ready":
            signal_file.write_text("")

    script = (
        f"echo ready; for i in $(seq 100); do [ -e {shlex.quote(str(signal_file))} ] && "
        "echo seen && exit 0; sleep 0.05; done; echo never-seen; exit 9"
    )
    code = await agent.run(["sh", "-c", script], on_output=on_output)
    assert (code, output.out) == (0, ["ready", "seen"])


async def test_run_returns_the_exit_code(agent) -> None:
    assert (await run(agent, ["true"]))[0] == 0
    assert (await run(agent, ["sh", "-c", "exit 3"]))[0] == 3


async def test_run_a_process_killed_by_a_signal_is_255_with_a_message(agent) -> None:
    code, output = await run(agent, ["sh", "-c", "echo before; kill -9 $$"])
    assert code == 255
    assert output.out == ["before"]
    assert output.err == ["killed by the signal KILL"]


async def test_run_passes_stdin_and_closes_it(agent) -> None:
    code, output = await run(agent, ["cat"], stdin=b"first\nsecond line\n")
    assert (code, output.out) == (0, ["first", "second line"])
    big = b"x" * 199_999 + b"\n"
    code, output = await run(agent, ["wc", "-c"], stdin=big)
    assert (code, output.out) == (0, ["200000"])
    # no stdin is an empty one, never a wait for input
    code, output = await asyncio.wait_for(run(agent, ["cat"]), 10)
    assert (code, output.lines) == (0, [])


async def test_run_in_a_working_directory(agent, folder) -> None:
    code, output = await run(agent, ["pwd"], cwd=folder)
    assert (code, output.out) == (0, [folder])
    spaced = Path(folder) / "with space's"
    spaced.mkdir()
    code, output = await run(agent, ["pwd"], cwd=str(spaced))
    assert (code, output.out) == (0, [str(spaced)])


async def test_run_environment_values_arrive_as_given(agent) -> None:
    value = 'it\'s "quoted" $HOME `id` \\ with  two spaces; and *'
    code, output = await run(
        agent,
        ["sh", "-c", 'printf "%s|%s\\n" "$GREETING" "$OTHER"'],
        env={"GREETING": value, "OTHER": ""},
    )
    assert (code, output.out) == (0, [f"{value}|"])
    with pytest.raises(AgentError, match="'BAD-NAME' is not a name"):
        await run(agent, ["true"], env={"BAD-NAME": "x"})


async def test_run_a_missing_program_is_127_with_a_message(agent) -> None:
    code, output = await run(agent, ["no-such-program-otter", "--flag"])
    assert code == 127
    assert output.out == []
    assert any("no-such-program-otter" in line and "not found" in line for line in output.err)


async def test_run_a_bad_working_directory_is_127_naming_it(agent, folder) -> None:
    missing = f"{folder}/no-such-folder"
    code, output = await run(agent, ["echo", "never"], cwd=missing)
    assert code == 127
    assert output.out == []
    assert any(missing in line and "No such file or directory" in line for line in output.err)
    a_file = Path(folder) / "file"
    a_file.write_text("")
    code, output = await run(agent, ["echo", "never"], cwd=str(a_file))
    assert code == 127 and output.out == []
    assert any(str(a_file) in line and "Not a directory" in line for line in output.err)


# ---- cancel --------------------------------------------------------------------------------------


async def test_run_cancel_kills_the_remote_process_tree(sshd, connections, agent) -> None:
    # a unique sleep length is the marker: the shell and both sleeps carry it on their command line
    marker = f"300.{uuid.uuid4().int % 10**9:09d}"
    started = asyncio.Event()
    output = Output()

    def on_output(line: str, is_error: bool) -> None:
        output(line, is_error)
        if line == "started":
            started.set()

    task = asyncio.ensure_future(
        agent.run(
            ["sh", "-c", f"sleep {marker} & echo started; sleep {marker}; echo never"],
            on_output=on_output,
        )
    )
    await asyncio.wait_for(started.wait(), 10)
    other = SshConnections()
    try:
        watcher = await other.agent(sshd.target())  # a second agent, its own connection
        code, found = await run(watcher, ["pgrep", "-u", sshd.user, "-f", marker])
        assert code == 0 and len(found.out) == 3, found.lines  # the shell and its two sleeps
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        code, found = await run(watcher, ["pgrep", "-u", sshd.user, "-f", marker])
        assert (code, found.out) == (1, [])
    finally:
        await other.close()
    assert "never" not in output.out
    # the connection is still good for the next command
    assert (await run(agent, ["echo", "after"]))[1].out == ["after"]


async def test_run_cancel_of_every_busy_channel_at_once_kills_every_tree(
    sshd, connections, agent
) -> None:
    # a whole fan-out cancelled (an execution stopped): every command channel is busy, more
    # commands wait for one, SFTP is open, and each cancel must still reach its process group
    await agent.stat("/")
    marker = f"301.{uuid.uuid4().int % 10**9:09d}"
    started: list[str] = []
    tasks = [
        asyncio.ensure_future(
            agent.run(
                ["sh", "-c", f"sleep {marker} & echo started; sleep {marker}"],
                on_output=lambda line, is_error: started.append(line),
            )
        )
        for _ in range(COMMAND_CHANNELS + 3)
    ]
    watcher_connections = SshConnections()
    try:
        for _ in range(100):
            if len(started) == COMMAND_CHANNELS:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        assert len(started) == COMMAND_CHANNELS  # the rest wait for a channel
        watcher = await watcher_connections.agent(sshd.target())
        code, found = await run(watcher, ["pgrep", "-u", sshd.user, "-f", marker])
        assert code == 0 and len(found.out) == 3 * COMMAND_CHANNELS, found.lines
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(result, asyncio.CancelledError) for result in results), results
        code, found = await run(watcher, ["pgrep", "-u", sshd.user, "-f", marker])
        leftover = len(found.out)
        await run(watcher, ["pkill", "-KILL", "-u", sshd.user, "-f", marker])  # tidy up
        assert (code, leftover) == (1, 0), f"{leftover} processes of cancelled runs still run"
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await watcher_connections.close()


async def test_run_cancel_at_any_moment_of_the_start_kills_the_command(
    sshd, connections, agent
) -> None:
    # cancelled while the channel opens, while sshd starts the command, or before its process
    # id was read: the command may already run, and must not outlive the cancel (nor hang it)
    marker = f"302.{uuid.uuid4().int % 10**9:09d}"
    await run(agent, ["true"])  # the connection is up: the cancels land in the start itself
    for delay in (0, 0.0002, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01, 0.02, 0.05):
        task = asyncio.ensure_future(agent.run(["sleep", marker], on_output=Output()))
        await asyncio.sleep(delay)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=10)
        assert done, f"a cancel {delay * 1000:g} ms after the start hung"
    watcher_connections = SshConnections()
    try:
        watcher = await watcher_connections.agent(sshd.target())
        code, found = await run(watcher, ["pgrep", "-u", sshd.user, "-f", marker])
        leftover = len(found.out)
        await run(watcher, ["pkill", "-KILL", "-u", sshd.user, "-f", marker])  # tidy up
        assert (code, leftover) == (1, 0), f"{leftover} cancelled commands still run"
    finally:
        await watcher_connections.close()


FAKE_SUDO = """#!/bin/sh
# stands in for sudo (these machines may have none): notes how it was called, then runs the
# command as the same user. Only -n, which never asks for a password, is accepted.
echo "$*" >> "$(dirname "$0")/calls"
[ "$1" = -n ] || { echo "sudo: a password is required" >&2; exit 1; }
shift
[ "$1" = -- ] && shift
exec "$@"
"""


async def test_run_with_sudo_goes_through_sudo_n_and_so_does_the_kill(sshd, folder) -> None:
    bin_folder = sshd.folder / f"bin-{uuid.uuid4().hex[:8]}"
    bin_folder.mkdir()
    (bin_folder / "sudo").write_text(FAKE_SUDO)
    (bin_folder / "sudo").chmod(0o755)
    shutil.chown(bin_folder, sshd.user)  # the fake sudo writes its calls beside itself
    calls = bin_folder / "calls"
    marker = f"303.{uuid.uuid4().int % 10**9:09d}"
    with own_sshd(sshd, key_types=("ed25519",), path=str(bin_folder)) as server:
        connections = SshConnections()
        try:
            port, key = server["port"], server["ssh-ed25519"]
            agent = await connections.agent(
                sshd.target(port=port, trusted_host_keys=(key,), sudo=True)
            )
            code, output = await run(
                agent, ["sh", "-c", 'echo "$GREETING in $PWD"'], cwd=folder, env={"GREETING": "hi"}
            )
            assert (code, output.out) == (0, [f"hi in {folder}"])
            assert calls.read_text().splitlines() == [
                '-n -- env GREETING=hi sh -c echo "$GREETING in $PWD"'
            ]
            # a cancel kills the group through sudo too (the command may run as root)
            started = asyncio.Event()
            task = asyncio.ensure_future(
                agent.run(
                    ["sh", "-c", f"sleep {marker} & echo started; sleep {marker}"],
                    on_output=lambda line, is_error: started.set(),
                )
            )
            await asyncio.wait_for(started.wait(), 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            code, found = await run(agent, ["pgrep", "-u", sshd.user, "-f", marker])
            assert (code, found.out) == (1, [])
            assert any(
                call.startswith("-n kill -TERM -- -") for call in calls.read_text().splitlines()
            )
        finally:
            await connections.close()


# ---- files ---------------------------------------------------------------------------------------


async def test_write_file_creates_parent_folders(agent, folder) -> None:
    path = f"{folder}/a/b/c.txt"
    await agent.write_file(path, b"hello\nworld\x00\xff")
    assert await agent.read_file(path) == b"hello\nworld\x00\xff"
    assert Path(path).read_bytes() == b"hello\nworld\x00\xff"
    assert Path(path).stat().st_uid == pwd.getpwnam(agent.target.user).pw_uid


async def test_write_file_keeps_the_mode_unless_one_is_given(agent, folder) -> None:
    path = f"{folder}/script.sh"
    await agent.write_file(path, b"one")
    await agent.set_mode(path, 0o750)
    await agent.write_file(path, b"two")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o750
    assert (await agent.stat(path)).mode == 0o750
    await agent.write_file(path, b"three", mode=0o604)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o604
    assert await agent.read_file(path) == b"three"
    await agent.write_file(f"{folder}/new.sh", b"", mode=0o700)
    assert stat.S_IMODE(os.stat(f"{folder}/new.sh").st_mode) == 0o700


async def test_write_file_leaves_no_temporary_file_beside_it(agent, folder) -> None:
    for number in range(3):
        await agent.write_file(f"{folder}/config.ini", f"version {number}".encode())
    assert [info.name for info in await agent.list_dir(folder)] == ["config.ini"]
    assert sorted(os.listdir(folder)) == ["config.ini"]
    assert await agent.read_file(f"{folder}/config.ini") == b"version 2"


async def test_write_file_over_a_directory_is_an_error(agent, folder) -> None:
    with pytest.raises(
        AgentError, match=re.escape(f"cannot write '{folder}' on ssh1: it is a directory")
    ):
        await agent.write_file(folder, b"x")


async def test_read_file_missing_or_a_directory_names_the_server_and_path(agent, folder) -> None:
    missing = f"{folder}/missing.txt"
    with pytest.raises(AgentError) as raised:
        await agent.read_file(missing)
    assert "ssh1" in str(raised.value) and missing in str(raised.value)
    assert "does not exist" in str(raised.value)
    with pytest.raises(AgentError) as raised:
        await agent.read_file(folder)
    assert "ssh1" in str(raised.value) and folder in str(raised.value)
    assert "is a directory" in str(raised.value)


async def test_stat_describes_a_file_and_a_directory_and_none_when_missing(agent, folder) -> None:
    assert await agent.stat(f"{folder}/missing") is None
    assert await agent.stat(f"{folder}/missing/deeper") is None
    await agent.write_file(f"{folder}/five.txt", b"12345", mode=0o640)
    before = time.time()
    info = await agent.stat(f"{folder}/five.txt")
    assert (info.path, info.name, info.is_directory, info.size, info.mode) == (
        f"{folder}/five.txt",
        "five.txt",
        False,
        5,
        0o640,
    )
    assert before - 60 < info.modified <= before + 1
    directory = await agent.stat(folder)
    assert directory.is_directory and directory.name == Path(folder).name


async def test_list_dir_lists_children_or_the_whole_tree(agent, folder) -> None:
    for path in ("top.txt", "a/x.txt", "a/b/y.txt"):
        await agent.write_file(f"{folder}/{path}", path.encode())
    await agent.make_dirs(f"{folder}/empty")
    top = await agent.list_dir(folder)
    assert [(i.name, i.is_directory) for i in top] == [
        ("a", True),
        ("empty", True),
        ("top.txt", False),
    ]
    tree = await agent.list_dir(folder, recursive=True)
    assert [i.path for i in tree] == [
        f"{folder}/{path}" for path in ("a", "a/b", "a/b/y.txt", "a/x.txt", "empty", "top.txt")
    ]
    assert next(i for i in tree if i.name == "y.txt").size == len("a/b/y.txt")
    with pytest.raises(AgentError, match="does not exist on ssh1"):
        await agent.list_dir(f"{folder}/nowhere")
    with pytest.raises(AgentError, match="is not a directory"):
        await agent.list_dir(f"{folder}/top.txt")


async def test_delete_a_tree_a_file_and_nothing(agent, folder) -> None:
    for path in ("tree/a.txt", "tree/sub/b.txt", "tree/sub/deep/c.txt", "file.txt"):
        await agent.write_file(f"{folder}/{path}", b"x")
    await agent.delete(f"{folder}/tree")
    assert await agent.stat(f"{folder}/tree") is None
    assert not os.path.exists(f"{folder}/tree")
    await agent.delete(f"{folder}/file.txt")
    assert os.listdir(folder) == []
    await agent.delete(f"{folder}/nothing-here")  # nothing there is no error
    await agent.delete(f"{folder}/nothing/deeper")


async def test_move_renames_and_moves_into_a_directory(agent, folder) -> None:
    await agent.write_file(f"{folder}/one.txt", b"1")
    await agent.move(f"{folder}/one.txt", f"{folder}/two.txt")
    assert await agent.stat(f"{folder}/one.txt") is None
    assert await agent.read_file(f"{folder}/two.txt") == b"1"
    await agent.make_dirs(f"{folder}/into")
    await agent.move(f"{folder}/two.txt", f"{folder}/into")
    assert await agent.read_file(f"{folder}/into/two.txt") == b"1"
    await agent.write_file(f"{folder}/three.txt", b"3")
    await agent.move(f"{folder}/three.txt", f"{folder}/into/two.txt")  # over an existing file
    assert await agent.read_file(f"{folder}/into/two.txt") == b"3"
    await agent.move(f"{folder}/into", f"{folder}/renamed")  # a directory
    assert [i.name for i in await agent.list_dir(f"{folder}/renamed")] == ["two.txt"]
    with pytest.raises(AgentError, match=re.escape(f"cannot move '{folder}/gone' on ssh1")):
        await agent.move(f"{folder}/gone", f"{folder}/anywhere")


async def test_make_dirs_makes_every_level_and_refuses_a_file_in_the_way(agent, folder) -> None:
    await agent.make_dirs(f"{folder}/x/y/z")
    await agent.make_dirs(f"{folder}/x/y/z")  # already there
    assert os.path.isdir(f"{folder}/x/y/z")
    await agent.write_file(f"{folder}/blocker", b"")
    with pytest.raises(AgentError, match="a file is in the way"):
        await agent.make_dirs(f"{folder}/blocker")
    with pytest.raises(AgentError, match=re.escape(f"'{folder}/blocker/sub' on ssh1")):
        await agent.make_dirs(f"{folder}/blocker/sub")


async def test_set_mode_changes_the_mode_and_names_a_missing_file(agent, folder) -> None:
    await agent.write_file(f"{folder}/run.sh", b"#!/bin/sh\necho ran\n")
    await agent.set_mode(f"{folder}/run.sh", 0o755)
    assert (await agent.stat(f"{folder}/run.sh")).mode == 0o755
    assert (await run(agent, [f"{folder}/run.sh"]))[1].out == ["ran"]
    await agent.set_mode(f"{folder}/run.sh", 0o400)
    assert stat.S_IMODE(os.stat(f"{folder}/run.sh").st_mode) == 0o400
    with pytest.raises(
        AgentError, match=re.escape(f"'{folder}/missing' on ssh1: it does not exist")
    ):
        await agent.set_mode(f"{folder}/missing", 0o644)


async def test_join_is_posix(agent) -> None:
    assert agent.join("/srv", "app", "conf.d/x.conf") == "/srv/app/conf.d/x.conf"
    assert agent.join("relative", "b") == "relative/b"
    assert agent.join("/srv/app", "/etc/hosts") == "/etc/hosts"
    assert agent.join("C:", "x") == "C:/x"


# ---- one connection ------------------------------------------------------------------------------


async def test_connections_share_one_connection_for_many_operations(sshd, folder) -> None:
    connections = SshConnections()
    before = accepted_logins(sshd)
    try:
        agents = await asyncio.gather(*(connections.agent(sshd.target()) for _ in range(20)))

        async def work(number: int) -> tuple[int, list[str], bytes]:
            one = agents[number]
            path = f"{folder}/file-{number}.txt"
            code, output = await run(one, ["sh", "-c", f"sleep 0.2; echo run {number}"])
            await one.write_file(path, f"text {number}".encode())
            return code, output.out, await one.read_file(path)

        started = time.monotonic()
        results = await asyncio.gather(*(work(n) for n in range(20)))
        elapsed = time.monotonic() - started
        assert results == [(0, [f"run {n}"], f"text {n}".encode()) for n in range(20)]
        # 20 runs of 0.2 s on 8 channels at once: 3 rounds, not 20
        assert elapsed < 3, elapsed
        assert len(connections._servers) == 1
        assert accepted_logins(sshd) - before == 1
    finally:
        await connections.close()


async def test_run_bursts_of_commands_beside_sftp_all_succeed(agent) -> None:
    # every command channel busy with SFTP open, the channels freed and taken again in step:
    # each new channel is asked for while sshd may still count the one just closed
    await agent.stat("/")
    for burst in range(2):
        results = await asyncio.gather(
            *(run(agent, ["sh", "-c", f"sleep 0.2; echo {burst}-{n}"]) for n in range(40)),
            return_exceptions=True,
        )
        failed = [result for result in results if isinstance(result, BaseException)]
        assert failed == [], f"{len(failed)} of 40 commands failed, first: {failed[0]}"
        assert [output.out for _, output in results] == [[f"{burst}-{n}"] for n in range(40)]


async def test_connections_credentials_other_than_the_first_are_another_connection(
    sshd, connections
) -> None:
    assert sshd.password, "the SSH tests run as root, which gives the test user a password"
    by_key = await connections.agent(sshd.target())
    by_password = await connections.agent(sshd.target(private_key=None, password=sshd.password))
    assert len(connections._servers) == 2
    for one in (by_key, by_password):
        assert (await run(one, ["id", "-un"]))[1].out == [sshd.user]


async def test_connections_max_connecting_one_still_reaches_every_server(sshd) -> None:
    connections = SshConnections(max_connecting=1)
    try:
        agents = await asyncio.gather(
            *(connections.agent(sshd.target(index)) for index in range(3))
        )
        assert [one.server for one in agents] == ["ssh1", "ssh2", "ssh3"]
        results = await asyncio.gather(*(run(one, ["echo", one.server]) for one in agents))
        assert [(code, output.out) for code, output in results] == [
            (0, ["ssh1"]),
            (0, ["ssh2"]),
            (0, ["ssh3"]),
        ]
        assert len(connections._servers) == 3
    finally:
        await connections.close()


async def test_connections_max_connecting_makes_the_others_wait(sshd) -> None:
    # a server that never answers holds the only connecting place until it times out: the
    # next server connects after it, not beside it; with two places it connects at once
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)
        port = silent.getsockname()[1]
        for places, waits in ((1, True), (2, False)):
            connections = SshConnections(max_connecting=places)
            try:
                stuck = asyncio.ensure_future(
                    connections.agent(sshd.target(0, port=port, connect_timeout=1))
                )
                await asyncio.sleep(0.05)  # the silent one connects first
                started = time.monotonic()
                one = await connections.agent(sshd.target(1))
                elapsed = time.monotonic() - started
                assert (await run(one, ["echo", "in"]))[1].out == ["in"]
                assert (elapsed > 0.8) is waits, (places, elapsed)
                with pytest.raises(AgentError, match="timed out"):
                    await stuck
            finally:
                await connections.close()


def test_target_repr_shows_no_secret() -> None:
    secrets = {"password": "pw-Secret-1", "private_key": "KEY-Secret-2", "passphrase": "pp-3"}
    shown = repr(SshTarget(server="web1", address="10.0.0.5", user="deploy", **secrets))
    assert "web1" in shown and "deploy" in shown
    assert not [secret for secret in secrets.values() if secret in shown], shown


# ---- failures ------------------------------------------------------------------------------------


async def test_connect_wrong_password_names_the_user_never_the_password(sshd, connections) -> None:
    assert sshd.password
    secret = "Wrong-Secret-9"
    with pytest.raises(AgentError) as raised:
        await connections.agent(sshd.target(private_key=None, password=secret))
    message = str(raised.value)
    assert f"failed for the user '{sshd.user}' with a password" in message
    assert f"ssh1 (127.0.0.1:{sshd.servers[0].port})" in message
    assert secret not in message and secret not in repr(raised.value)
    # the right one logs in
    right = await connections.agent(sshd.target(private_key=None, password=sshd.password))
    assert (await run(right, ["id", "-un"]))[1].out == [sshd.user]


async def test_connect_refused_port_names_the_server_and_port(sshd, connections) -> None:
    port = free_port()
    with pytest.raises(AgentError) as raised:
        await connections.agent(sshd.target(port=port))
    assert f"cannot connect to ssh1 (127.0.0.1:{port}): connection refused" in str(raised.value)


async def test_connect_to_a_server_that_never_answers_times_out(sshd, connections) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)  # the kernel accepts; nothing ever speaks SSH
        port = silent.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(AgentError) as raised:
            await connections.agent(sshd.target(port=port, connect_timeout=0.5))
        elapsed = time.monotonic() - started
    assert f"cannot connect to ssh1 (127.0.0.1:{port}): timed out after 0.5 s" in str(raised.value)
    assert 0.4 < elapsed < 3, elapsed


async def test_connect_unknown_host_name_says_it_was_not_found(sshd, connections) -> None:
    with pytest.raises(AgentError) as raised:
        await connections.agent(sshd.target(address="no-such-server.invalid", connect_timeout=5))
    assert "cannot connect to ssh1: the name 'no-such-server.invalid' was not found" in str(
        raised.value
    )


async def test_connect_without_a_user_or_with_an_unreadable_key(sshd, connections) -> None:
    with pytest.raises(AgentError, match="no user to log in to ssh1"):
        await connections.agent(sshd.target(user=""))
    with pytest.raises(AgentError, match=r"the private key for ssh1 .* cannot be read"):
        await connections.agent(sshd.target(private_key="not a key"))
    with pytest.raises(AgentError, match="a trusted host key of ssh1 is not readable"):
        await connections.agent(sshd.target(trusted_host_keys=("ssh-ed25519 nonsense",)))


async def test_host_key_untrusted_gives_the_fingerprint_ssh_keygen_shows(
    sshd, connections, tmp_path
) -> None:
    server = sshd.servers[0]
    public = tmp_path / "host.pub"
    public.write_text(server.host_key + "\n")
    listed = subprocess.run(
        ["ssh-keygen", "-lf", str(public)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert listed[1].startswith("SHA256:")
    with pytest.raises(HostKeyUntrusted) as raised:
        await connections.agent(sshd.target(trusted_host_keys=()))
    assert raised.value.fingerprint == listed[1] == fingerprint(server.host_key)
    assert raised.value.offered == key_part(server.host_key)
    message = str(raised.value)
    assert f"the host key of ssh1 (127.0.0.1:{server.port}) is not trusted yet" in message
    assert f"ssh-ed25519 {listed[1]}" in message


async def test_host_key_changed_names_both_fingerprints(sshd, connections) -> None:
    wrong = (sshd.client_key.with_suffix(".pub")).read_text().strip()  # not a host key at all
    for trust_on_first_use in (False, True):  # a trusted key is never replaced on first use
        with pytest.raises(HostKeyChanged) as raised:
            await connections.agent(
                sshd.target(trusted_host_keys=(wrong,), trust_on_first_use=trust_on_first_use)
            )
        offered = fingerprint(sshd.servers[0].host_key)
        assert raised.value.fingerprint == offered
        assert raised.value.trusted_fingerprints == (fingerprint(wrong),)
        message = str(raised.value)
        assert "has changed" in message and offered in message and fingerprint(wrong) in message
        assert "Nothing was run" in message


async def test_host_key_trusted_among_others_logs_in(sshd, connections) -> None:
    wrong = (sshd.client_key.with_suffix(".pub")).read_text().strip()
    one = await connections.agent(sshd.target(trusted_host_keys=(wrong, sshd.servers[0].host_key)))
    assert (await run(one, ["echo", "in"]))[1].out == ["in"]


async def test_host_key_of_a_type_the_server_lacks_is_a_changed_key(sshd, connections) -> None:
    # the trusted key is RSA, the server has only its Ed25519 key: asked only for RSA keys, the
    # handshake would fail ("connection lost"); it is a changed key, with both fingerprints
    rsa = sshd.folder / f"rsa-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-N", "", "-f", str(rsa)], check=True)
    trusted = key_part(rsa.with_suffix(".pub").read_text())
    with pytest.raises(HostKeyChanged) as raised:
        await connections.agent(sshd.target(trusted_host_keys=(trusted,)))
    assert raised.value.fingerprint == fingerprint(sshd.servers[0].host_key)
    assert raised.value.trusted_fingerprints == (fingerprint(trusted),)


async def test_host_key_of_a_server_with_several_is_the_trusted_one_or_ed25519(
    sshd, connections
) -> None:
    with own_sshd(sshd, key_types=("rsa", "ecdsa", "ed25519")) as server:
        port = server["port"]
        for trusted in ("ssh-rsa", "ecdsa-sha2-nistp256", "ssh-ed25519"):
            one = await connections.agent(
                sshd.target(port=port, trusted_host_keys=(server[trusted],))
            )
            assert (await run(one, ["echo", trusted]))[1].out == [trusted]
        # nothing trusted yet: the key offered for trust is the Ed25519 one, as OpenSSH's
        # client asks for it first
        with pytest.raises(HostKeyUntrusted) as raised:
            await connections.agent(sshd.target(port=port, trusted_host_keys=()))
        assert raised.value.offered == server["ssh-ed25519"]
        facts = await probe(sshd.target(port=port, trusted_host_keys=(server["ssh-rsa"],)))
        assert facts.host_key == server["ssh-rsa"]


async def test_host_key_trust_on_first_use_tells_the_host_the_key(sshd) -> None:
    heard: list[tuple[str, str]] = []
    connections = SshConnections(on_new_host_key=lambda server, key: heard.append((server, key)))
    try:
        first = sshd.target(1, trusted_host_keys=(), trust_on_first_use=True)
        one = await connections.agent(first)
        assert (await run(one, ["echo", "trusted"]))[1].out == ["trusted"]
        await connections.agent(first)  # the same connection: heard once
        assert heard == [("ssh2", key_part(sshd.servers[1].host_key))]
    finally:
        await connections.close()


async def test_connections_a_failed_connection_is_tried_again(sshd, connections) -> None:
    with pytest.raises(HostKeyUntrusted):
        await connections.agent(sshd.target(trusted_host_keys=()))
    # the same key with the host key trusted now: a new attempt, not the failure kept
    key_only = sshd.target()
    assert (await run(await connections.agent(key_only), ["echo", "ok"]))[1].out == ["ok"]


# ---- probe ---------------------------------------------------------------------------------------


async def test_probe_reports_latency_host_key_kernel_and_os(sshd) -> None:
    facts = await probe(sshd.target(2))
    uname = os.uname()
    assert facts.kernel == f"{uname.sysname} {uname.release} {uname.machine}"
    assert facts.kernel.startswith("Linux")
    pretty = ""
    if os.path.exists("/etc/os-release"):  # every server is this machine
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                pretty = shlex.split(line.partition("=")[2])[0]
    assert facts.os_name == pretty
    assert facts.host_key == key_part(sshd.servers[2].host_key)
    assert 0 < facts.latency_ms < 10_000


async def test_probe_checks_the_host_key_too(sshd) -> None:
    with pytest.raises(HostKeyUntrusted):
        await probe(sshd.target(trusted_host_keys=()))
    with pytest.raises(AgentError, match="connection refused"):
        await probe(sshd.target(port=free_port()))


# ---- http ----------------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/hello":
            self.answer(200, None, b"hello from otter")
        else:
            self.answer(404, "Nothing Here", b"no such page: " + self.path.encode())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.answer(201, "Made", self.headers["X-Otter"].encode() + b":" + body.upper())

    def answer(self, status: int, reason: str | None, body: bytes) -> None:
        self.send_response(status, reason)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_http_from_the_server_returns_status_reason_and_body(agent, web) -> None:
    answer = await agent.http(HttpRequest("GET", f"{web}/hello", {}))
    assert (answer.status, answer.reason, answer.body) == (200, "OK", b"hello from otter")
    missing = await agent.http(HttpRequest("GET", f"{web}/gone", {}))  # an answer, not an error
    assert (missing.status, missing.reason, missing.body) == (
        404,
        "Nothing Here",
        b"no such page: /gone",
    )
    posted = await agent.http(
        HttpRequest("POST", f"{web}/make", {"X-Otter": "yes"}, body=b"it's \x00 \xff data")
    )
    assert (posted.status, posted.reason, posted.body) == (201, "Made", b"yes:IT'S \x00 \xff DATA")


async def test_http_refused_port_is_an_agent_error(agent) -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(AgentError, match=re.escape(f"cannot reach {url}: ") + ".*[Rr]efused"):
        await agent.http(HttpRequest("GET", url, {}, timeout=5))


# ---- the engine's operations on SSH servers ------------------------------------------------------


class SshHost(Host):
    """The cluster's servers, each reached over one execution's SshConnections; relative paths
    start from ``folder`` on every server."""

    def __init__(self, cluster, folder: str) -> None:
        super().__init__(
            sink=ListSink(), default_server=cluster.servers[0].name, working_directory=folder
        )
        self.cluster = cluster
        self.connections = SshConnections()
        self.asked: list[str] = []

    def servers(self) -> list[str]:
        return [server.name for server in self.cluster.servers]

    async def agent(self, server: str, *, credential: RunCredential | None = None) -> SshAgent:
        self.asked.append(server)
        names = [name.casefold() for name in self.servers()]
        return await self.connections.agent(self.cluster.target(names.index(server.casefold())))


SCRIPT = """\
foreach server in @(ssh1, ssh2)
{
    Ensure-Directory conf-$ServerName/sub;
    Ensure-File conf-$ServerName/name.txt
    (
        Text: made on $ServerName
    );
    Apply-Template
    (
        Literal: 'server $ServerName says $greeting',
        AdditionalVariables: %(greeting: hello there),
        OutputFile: conf-$ServerName/templated.txt
    );
    SHExec echo shell on $ServerName as `$USER in `$PWD;
    Exec cat conf-$ServerName/name.txt;
    PYExec >>import os
print('python on', name, 'in', os.getcwd())>> (Variables: %(name: $ServerName));
}
"""


async def test_operations_run_on_each_ssh_server(sshd, folder) -> None:
    host = SshHost(sshd, folder)
    try:
        result = await ScriptRun(parse(SCRIPT), host=host).run()
        messages = host.sink.messages()
        assert result.status.label == "normal", messages
        owner = pwd.getpwnam(sshd.user).pw_uid
        for name in ("ssh1", "ssh2"):
            conf = Path(folder) / f"conf-{name}"
            assert (conf / "sub").is_dir()
            assert (conf / "name.txt").read_text() == f"made on {name}"
            assert (conf / "templated.txt").read_text() == f"server {name} says hello there"
            assert {(conf / f).stat().st_uid for f in ("name.txt", "templated.txt")} == {owner}
            assert f"shell on {name} as {sshd.user} in {folder}" in messages
            assert f"made on {name}" in messages  # Exec cat, run in the folder
            assert f"python on {name} in {folder}" in messages
        assert not (Path(folder) / "conf-ssh3").exists()
        assert set(host.asked) == {"ssh1", "ssh2"}
        assert len(host.connections._servers) == 2  # one each, for every operation
    finally:
        await host.connections.close()


async def test_ssh_agent_pump_splits_lines_across_the_pieces_they_come_in() -> None:
    from engine.agents.ssh.agent import _pump

    class Pieces:
        def __init__(self, *pieces: bytes) -> None:
            self.pieces = list(pieces)

        async def read(self, size: int) -> bytes:
            return self.pieces.pop(0) if self.pieces else b""

    said: list[tuple[str, bool]] = []
    group: list[int] = []
    stream = Pieces(b"41", b"7\nfir", b"st\r\nsec", b"ond \xc3", b"\xa9t\xc3\xa9\n\nlast")
    await _pump(stream, lambda text, error: said.append((text, error)), False, group)  # type: ignore[arg-type]
    assert group == [417]  # the shell's process id, the first line
    assert said == [("first", False), ("second été", False), ("", False), ("last", False)]
