"""The local agent (engine/agents/local.py) and its helper process (engine/agents/local_helper.py):
every action through the helper, as the run user with that user's groups only, with a run's
environment; errors that name the path and the server; output lines of any length; concurrent
requests; and no process outliving the run (its end, its cancel, the death of its owner)."""

from __future__ import annotations

import asyncio
import contextlib
import grp
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.agents import AgentError, HttpRequest, LocalAgent
from engine.agents.local import interpreter, run_environment
from engine.agents.local_helper import LINE_LIMIT

ROOT = Path(__file__).resolve().parents[2]
RUN_USER = "otterweb-run"  # made by scripts/run-user (make setup) when the tests run as root
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root (CI is root)")


class Output:
    def __init__(self) -> None:
        self.lines: list[tuple[str, bool]] = []

    def __call__(self, line: str, is_error: bool) -> None:
        self.lines.append((line, is_error))

    @property
    def out(self) -> list[str]:
        return [line for line, is_error in self.lines if not is_error]


def gone(pid: int) -> bool:
    """The process ended (a zombie has ended: only its exit status is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def still_running(pids: list[int]) -> dict[int, str]:
    """What a failed wait is told: each process of ``pids`` not gone, with its /proc stat."""
    found = {}
    for pid in pids:
        if not gone(pid):
            with contextlib.suppress(OSError):
                found[pid] = Path(f"/proc/{pid}/stat").read_text()
    return found


def wait_until(predicate, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def status_ids(pid: int) -> dict[str, list[int]]:
    """The Uid, Gid and Groups lines of /proc/<pid>/status."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("Uid", "Gid", "Groups"):
            found[name] = [int(v) for v in value.split()]
    return found


@pytest.fixture
async def agent(tmp_path):
    opened = LocalAgent(working_directory=str(tmp_path))
    yield opened
    await opened.close()


@pytest.fixture
def run_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("switching users needs root (CI is root)")
    try:
        return pwd.getpwnam(RUN_USER)
    except KeyError:
        subprocess.run([str(ROOT / "scripts" / "run-user")], check=True)
        return pwd.getpwnam(RUN_USER)


@pytest.fixture
def reachable():
    """A folder anyone can reach (pytest's tmp_path is under a 0700 folder of root's)."""
    folder = Path(tempfile.mkdtemp(prefix="otter-agent-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def closed_folder(reachable) -> Path:
    """A 0700 root folder holding a 0644 secret and a 0600 one, in a folder anyone can reach."""
    folder = reachable / "closed"
    folder.mkdir(mode=0o700)
    (folder / "open-secret").write_text("the key in a readable file")
    (folder / "open-secret").chmod(0o644)
    (folder / "secret").write_text("the key")
    (folder / "secret").chmod(0o600)
    return folder


@pytest.fixture
def user_folder(reachable, run_user) -> Path:
    """A folder the run user owns."""
    folder = reachable / "theirs"
    folder.mkdir()
    os.chown(folder, run_user.pw_uid, run_user.pw_gid)
    return folder


# ---- the environment


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


async def test_local_agent_environment_variables_are_the_helpers(tmp_path) -> None:
    agent = LocalAgent(
        environment={"PATH": "/usr/bin:/bin", "OTTER_EXECUTION_ID": "17", "LANG": "C.UTF-8"},
        working_directory=str(tmp_path),
    )
    try:
        variables = await agent.environment_variables()
        output = Output()
        await agent.run(["sh", "-c", 'echo "$OTTER_EXECUTION_ID $LANG"'], on_output=output)
    finally:
        await agent.close()
    assert variables == {"PATH": "/usr/bin:/bin", "OTTER_EXECUTION_ID": "17", "LANG": "C.UTF-8"}
    assert output.out == ["17 C.UTF-8"]


# ---- one helper process does it all


async def test_local_agent_starts_its_helper_on_the_first_action_only(tmp_path) -> None:
    heard: list[tuple[int, bool]] = []
    agent = LocalAgent(
        working_directory=str(tmp_path), on_process=lambda pid, up: heard.append((pid, up))
    )
    assert agent.helper_pid is None  # nothing started for a run that never acts here
    await agent.write_file(str(tmp_path / "a"), b"x")
    helper = agent.helper_pid
    assert helper is not None and helper != os.getpid()
    assert Path(f"/proc/{helper}/cmdline").read_bytes().split(b"\0")[5] == b"otterweb-local-helper"
    assert os.getpgid(helper) == helper  # a process group and session of its own
    output = Output()
    await agent.run(["sh", "-c", "echo $PPID"], on_output=output)
    assert output.out == [str(helper)]  # started by the helper, not by this process
    process = next(pid for pid, up in heard if pid != helper)
    await agent.close()
    assert heard == [(helper, True), (process, True), (process, False), (helper, False)]
    assert wait_until(lambda: gone(helper))
    with pytest.raises(AgentError, match="closed"):
        await agent.stat(str(tmp_path))


async def test_local_agent_does_every_file_action_through_the_helper(agent, tmp_path) -> None:
    folder = tmp_path / "f"
    await agent.make_dirs(str(folder / "deep"))
    await agent.write_file(str(folder / "deep" / "a.txt"), b"alpha\n", mode=0o640)
    assert (folder / "deep" / "a.txt").read_bytes() == b"alpha\n"
    assert (await agent.read_file(str(folder / "deep" / "a.txt"))) == b"alpha\n"
    info = await agent.stat(str(folder / "deep" / "a.txt"))
    assert info is not None and (info.name, info.size, info.mode, info.is_directory) == (
        "a.txt",
        6,
        0o640,
        False,
    )
    assert await agent.stat(str(folder / "none")) is None
    await agent.set_mode(str(folder / "deep" / "a.txt"), 0o600)
    assert (folder / "deep" / "a.txt").stat().st_mode & 0o777 == 0o600
    await agent.move(str(folder / "deep" / "a.txt"), str(folder / "b.txt"))
    listed = await agent.list_dir(str(folder), recursive=True)
    assert [(i.name, i.is_directory) for i in listed] == [("b.txt", False), ("deep", True)]
    assert [i.name for i in await agent.list_dir(str(folder))] == ["b.txt", "deep"]
    await agent.delete(str(folder / "deep"))
    await agent.delete(str(folder / "b.txt"))
    await agent.delete(str(folder / "nothing-there"))  # no error
    assert list(folder.iterdir()) == []
    # relative paths start from the working directory
    await agent.write_file("relative.txt", b"r")
    assert (tmp_path / "relative.txt").read_bytes() == b"r"


async def test_local_agent_errors_name_the_path_and_the_server(agent, tmp_path) -> None:
    (tmp_path / "file").write_text("")
    cases = [
        (
            lambda: agent.read_file(str(tmp_path / "none")),
            f"file '{tmp_path}/none' does not exist on ",
        ),
        (
            lambda: agent.read_file(str(tmp_path)),
            f"'{tmp_path}' on localhost is a directory, not a file",
        ),
        (
            lambda: agent.write_file(str(tmp_path), b""),
            f"cannot write '{tmp_path}' on localhost: it is",
        ),
        (
            lambda: agent.list_dir(str(tmp_path / "none")),
            f"directory '{tmp_path}/none' does not exist",
        ),
        (
            lambda: agent.list_dir(str(tmp_path / "file")),
            f"'{tmp_path}/file' on localhost is not a dir",
        ),
        (
            lambda: agent.move(str(tmp_path / "none"), "x"),
            f"cannot move '{tmp_path}/none' on localhost",
        ),
        (
            lambda: agent.make_dirs(str(tmp_path / "file")),
            f"cannot create directory '{tmp_path}/file'",
        ),
        (
            lambda: agent.set_mode(str(tmp_path / "none"), 0o644),
            f"'{tmp_path}/none' does not exist on",
        ),
    ]
    for action, message in cases:
        with pytest.raises(AgentError) as raised:
            await action()
        assert str(raised.value).startswith(message), str(raised.value)


async def test_local_agent_names_a_missing_program_and_a_bad_folder(agent, tmp_path) -> None:
    with pytest.raises(AgentError, match="cannot run 'no-such-program' on localhost: no such"):
        await agent.run(["no-such-program"], on_output=lambda line, error: None)
    (tmp_path / "file").write_text("")
    with pytest.raises(AgentError, match="is not a directory"):
        await agent.run(["true"], cwd=str(tmp_path / "file"), on_output=lambda *_: None)
    with pytest.raises(AgentError, match=r"no such program or directory \(.*/none\)"):
        await agent.run(["true"], cwd=str(tmp_path / "none"), on_output=lambda *_: None)
    # the helper is still there for what comes next
    output = Output()
    assert await agent.run(["sh", "-c", "echo ok; exit 3"], on_output=output) == 3
    assert output.out == ["ok"]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(201, "Made")
        self.end_headers()
        self.wfile.write(b"got " + body)

    def log_message(self, *args) -> None:
        pass


async def test_local_agent_http_is_sent_by_the_helper(agent) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        answer = await agent.http(
            HttpRequest("POST", f"http://127.0.0.1:{server.server_address[1]}/", {}, b"it")
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (answer.status, answer.reason, answer.body) == (201, "Made", b"got it")
    with pytest.raises(AgentError, match=r"cannot reach http://127\.0\.0\.1:1/"):
        await agent.http(HttpRequest("GET", "http://127.0.0.1:1/", {}, timeout=5))


# ---- the run user


async def test_local_agent_runs_as_the_run_user_with_its_groups_only(run_user, tmp_path) -> None:
    groups = {g.gr_gid for g in grp.getgrall() if RUN_USER in g.gr_mem} | {run_user.pw_gid}
    agent = LocalAgent(user=RUN_USER, working_directory="/")
    try:
        output = Output()
        assert await agent.run(["id"], on_output=output) == 0
        ids = status_ids(agent.helper_pid)
        variables = await agent.environment_variables()
    finally:
        await agent.close()
    line = output.out[0]
    assert line.startswith(f"uid={run_user.pw_uid}({RUN_USER}) gid={run_user.pw_gid}(")
    assert "(root)" not in line and "=0(" not in line and ",0(" not in line
    assert set(ids["Uid"]) == {run_user.pw_uid}
    assert set(ids["Gid"]) == {run_user.pw_gid}
    assert set(ids["Groups"]) == groups and 0 not in ids["Groups"]
    assert (variables["USER"], variables["LOGNAME"], variables["HOME"]) == (
        RUN_USER,
        RUN_USER,
        run_user.pw_dir,
    )
    assert not any(name.startswith(("OTTERWEB_", "DJANGO_", "CELERY_")) for name in variables)


async def test_local_agent_helper_reads_no_file_of_the_repository(run_user) -> None:
    """The helper's interpreter is one the run user may run, and its code comes on its
    standard input: nothing of the repository or the virtual environment is on its command
    line."""
    agent = LocalAgent(user=RUN_USER, working_directory="/")
    try:
        await agent.stat("/")
        command = Path(f"/proc/{agent.helper_pid}/cmdline").read_bytes().split(b"\0")
        executable = os.readlink(f"/proc/{agent.helper_pid}/exe")
    finally:
        await agent.close()
    assert command[0].decode() == interpreter(run_user) == executable
    assert command[1:3] == [b"-I", b"-S"]
    assert not any(str(ROOT).encode() in part or b".venv" in part for part in command)


async def test_local_agent_refuses_the_run_user_every_action_on_a_closed_folder(
    run_user, closed_folder
) -> None:
    agent = LocalAgent(user=RUN_USER, working_directory="/")
    secret = str(closed_folder / "secret")
    readable = str(closed_folder / "open-secret")
    try:
        actions = {
            "read": lambda: agent.read_file(readable),
            "write": lambda: agent.write_file(str(closed_folder / "new"), b"x"),
            "look at": lambda: agent.stat(secret),
            "list": lambda: agent.list_dir(str(closed_folder)),
            "delete": lambda: agent.delete(secret),
            "move": lambda: agent.move(secret, "/tmp/stolen"),
            "create directory": lambda: agent.make_dirs(str(closed_folder / "d")),
            "change the mode of": lambda: agent.set_mode(secret, 0o666),
        }
        for doing, action in actions.items():
            with pytest.raises(AgentError) as raised:
                await action()
            message = str(raised.value)
            assert message.startswith(f"cannot {doing} '{closed_folder}"), message
            assert message.endswith("on localhost: permission denied"), message
        output = Output()
        assert await agent.run(["cat", secret, readable], on_output=output) != 0
    finally:
        await agent.close()
    assert "the key" not in " ".join(line for line, _ in output.lines)
    assert sorted(p.name for p in closed_folder.iterdir()) == ["open-secret", "secret"]
    assert (closed_folder / "secret").stat().st_mode & 0o777 == 0o600
    assert not Path("/tmp/stolen").exists()


async def test_local_agent_files_belong_to_the_run_user(run_user, user_folder) -> None:
    agent = LocalAgent(user=RUN_USER, working_directory=str(user_folder))
    try:
        await agent.write_file(str(user_folder / "sub" / "made"), b"x")
        await agent.make_dirs(str(user_folder / "dir"))
    finally:
        await agent.close()
    for made in (user_folder / "sub", user_folder / "sub" / "made", user_folder / "dir"):
        assert (made.stat().st_uid, made.stat().st_gid) == (run_user.pw_uid, run_user.pw_gid)


# ---- output


async def test_local_agent_passes_a_1_mb_line_whole_and_cuts_longer_ones(agent) -> None:
    output = Output()
    script = (
        "import sys; w = sys.stdout.write; w('x' * 1_000_000 + '\\n'); "
        f"w('y' * {LINE_LIMIT * 3} + '\\n'); w('after\\n'); sys.stderr.write('e' * 200_000)"
    )
    assert await agent.run([sys.executable, "-c", script], on_output=output) == 0
    out = output.out
    assert out[0] == "x" * 1_000_000
    assert out[1].startswith("y" * LINE_LIMIT + " [line cut: ")
    assert f"{LINE_LIMIT * 2} bytes past the first {LINE_LIMIT} left out" in out[1]
    assert out[2] == "after"
    assert [line for line, is_error in output.lines if is_error] == ["e" * 200_000]


async def test_local_agent_runs_requests_at_the_same_time(agent, tmp_path) -> None:
    await agent.write_file(str(tmp_path / "file"), b"content")
    started = time.monotonic()
    outputs = [Output() for _ in range(6)]
    results = await asyncio.gather(
        *(agent.run(["sh", "-c", f"sleep 1; echo {n}"], on_output=outputs[n]) for n in range(6)),
        *(agent.read_file(str(tmp_path / "file")) for _ in range(20)),
    )
    assert time.monotonic() - started < 3  # six one-second sleeps side by side, not in a row
    assert results[:6] == [0] * 6 and results[6:] == [b"content"] * 20
    assert [o.out for o in outputs] == [[str(n)] for n in range(6)]


async def test_local_agent_output_handler_failure_stops_the_process(agent, tmp_path) -> None:
    def fail(line: str, is_error: bool) -> None:
        raise ValueError("the log is gone")

    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(ValueError, match="the log is gone"):
        await agent.run(["sh", "-c", f"echo $$ > {pid_file}; echo x; sleep 60"], on_output=fail)
    assert time.monotonic() - started < 10
    assert gone(int(pid_file.read_text()))


# ---- nothing outlives the run

ESCAPING = textwrap.dedent(
    """\
    setsid sleep 301 > /dev/null 2>&1 < /dev/null &
    echo $! > {folder}/setsid
    ( sleep 302 > /dev/null 2>&1 < /dev/null & echo $! > {folder}/forked )
    echo ready
    """
)


def escaped(folder: Path) -> list[int]:
    return [int((folder / name).read_text()) for name in ("setsid", "forked")]


async def test_local_agent_close_kills_what_the_run_left_behind(agent, tmp_path) -> None:
    output = Output()
    code = await agent.run(["sh", "-c", ESCAPING.format(folder=tmp_path)], on_output=output)
    assert (code, output.out) == (0, ["ready"])
    left = escaped(tmp_path)
    assert not any(gone(pid) for pid in left)  # the run ended; they did not
    helper = agent.helper_pid
    started = time.monotonic()
    await agent.close()
    assert time.monotonic() - started < 2  # sleep dies of SIGTERM: no grace period waited for
    assert wait_until(lambda: all(gone(pid) for pid in [*left, helper]))


async def test_local_agent_cancel_kills_the_process_and_what_it_started(agent, tmp_path) -> None:
    output = Output()
    script = ESCAPING.format(folder=tmp_path) + f"echo $$ > {tmp_path}/main; exec sleep 303"
    task = asyncio.ensure_future(agent.run(["sh", "-c", script], on_output=output))
    assert await asyncio.to_thread(wait_until, lambda: output.out == ["ready"])
    assert await asyncio.to_thread(wait_until, lambda: (tmp_path / "main").exists())
    main = int((tmp_path / "main").read_text())
    setsid, forked = escaped(tmp_path)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone(main)
    assert await asyncio.to_thread(wait_until, lambda: gone(setsid))  # it was under the process
    await agent.close()  # the double-forked one had left it: the helper's, until the end
    assert await asyncio.to_thread(wait_until, lambda: gone(forked))


async def test_local_agent_cancel_waits_out_a_process_that_ignores_sigterm(agent) -> None:
    output = Output()
    script = "trap '' TERM; echo ready; while true; do sleep 0.1; done"
    task = asyncio.ensure_future(agent.run(["sh", "-c", script], on_output=output))
    assert await asyncio.to_thread(wait_until, lambda: output.out == ["ready"])
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 1.5 < time.monotonic() - started < 6  # SIGTERM, the grace period, SIGKILL


OWNER = """\
import asyncio, sys
from engine.agents import LocalAgent

async def main():
    agent = LocalAgent(working_directory={folder!r})
    await agent.stat("/")
    open({folder!r} + "/helper", "w").write(str(agent.helper_pid))
    await agent.run(["sh", "-c", {script!r}], on_output=lambda *_: None)

asyncio.run(main())
"""


def test_local_agent_helper_and_its_processes_die_with_their_owner(tmp_path) -> None:
    script = ESCAPING.format(folder=tmp_path) + f"echo $$ > {tmp_path}/main; exec sleep 304"
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER.format(folder=str(tmp_path), script=script)], cwd=ROOT
    )
    try:
        assert wait_until(lambda: (tmp_path / "main").exists(), 30)
        helper = int((tmp_path / "helper").read_text())
        main = int((tmp_path / "main").read_text())
        left = escaped(tmp_path)
        os.kill(owner.pid, signal.SIGKILL)  # nothing of the owner's clean-up runs
        owner.wait()
        doomed = [helper, main, *left]
        assert wait_until(lambda: all(gone(pid) for pid in doomed), 20), still_running(doomed)
    finally:
        owner.kill()
        owner.wait()


async def test_local_agent_helper_pipes_are_out_of_reach_of_the_runs_processes(run_user) -> None:
    """Processes of the run user (this run's, or another local run's) cannot write to the
    helper's pipes to forge its answers: the helper is not dumpable, so its /proc files are
    root's."""
    agent = LocalAgent(user=RUN_USER, working_directory="/")
    try:
        await agent.stat("/")
        helper = agent.helper_pid
        output = Output()
        code = await agent.run(
            ["sh", "-c", f'echo \'{{"id": 1, "result": null}}\' > /proc/{helper}/fd/1'],
            on_output=output,
        )
        assert await agent.stat("/") is not None  # still answering, and truly
    finally:
        await agent.close()
    assert code != 0 and "Permission denied" in output.lines[0][0]


async def test_local_agent_working_directory_missing_is_an_error_not_another_folder(
    tmp_path,
) -> None:
    agent = LocalAgent(working_directory=str(tmp_path / "none"))
    try:
        with pytest.raises(AgentError, match=r"no such program or directory \(.*/none\)"):
            await agent.run(["pwd"], on_output=lambda *_: None)
        (tmp_path / "none").mkdir()  # made later: used from then on
        output = Output()
        await agent.run(["pwd"], on_output=output)
    finally:
        await agent.close()
    assert output.out == [str(tmp_path / "none")]
