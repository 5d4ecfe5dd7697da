"""Runs on the local server (a server whose agent is ``local``: this machine): which OS user
they run as, the working folder of each execution, and the processes they start.

Running on the local server is a permission of its own (``executions.run_on_local_server``):
"may start executions" does not imply it. Everything a local run does to the machine (processes,
files, HTTP requests) is done by the local agent's helper process, which runs as an unprivileged
OS user (``OTTERWEB_RUN_AS_USER``; ``otterweb-run``, made by ``make setup``, when OtterWeb runs
as root) with that user's groups only, in a folder of its execution's own, with none of the
server's ``OTTERWEB_*``, ``DJANGO_*`` or ``CELERY_*`` variables (engine/agents/local.py).

Every local process carries its execution's id (``OTTER_EXECUTION_ID``) and this OtterWeb's
(``OTTER_INSTANCE``) in its environment, and each process group is recorded in the data folder
while it runs: the helper kills what a run started when it ends, and the housekeeper kills what
a killed worker left behind once its execution is closed, wherever it went (``kill_orphans``)."""

from __future__ import annotations

import hashlib
import logging
import os
import pwd
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import connection

from engine import AgentError, LocalAgent, run_environment

logger = logging.getLogger(__name__)

DEFAULT_RUN_USER = "otterweb-run"
PERMISSION = "executions.run_on_local_server"
# in the environment of every local process: which execution started it, and which OtterWeb (its
# data folder and database: several can share a machine, and test runs share execution ids)
MARKER = "OTTER_EXECUTION_ID"
INSTANCE = "OTTER_INSTANCE"


def may_run_locally(user, server=None) -> bool:
    """Whether ``user`` (None: OtterWeb itself) may run on the local server (``server``, when it
    is in the inventory: then in its environments)."""
    from otterweb.privileges.checks import may

    return may(user, PERMISSION, server)


def run_as_user() -> str | None:
    """The OS user local processes run as; None for the server's own user."""
    configured = settings.OTTERWEB_RUN_AS_USER
    if configured is None:
        return DEFAULT_RUN_USER if os.geteuid() == 0 else None
    if not configured or configured == pwd.getpwuid(os.geteuid()).pw_name:
        return None
    return configured


def run_as_summary() -> dict:
    """Whom runs on the local server act as, for its page: the OS user, whether that is
    OtterWeb's own (who can read its data folder), and whether OtterWeb can switch to it."""
    run_user = run_as_user()
    return {
        "user": run_user or pwd.getpwuid(os.geteuid()).pw_name,
        "own": run_user is None,
        "as_root": os.geteuid() == 0,
        "cannot_switch": run_user is not None and os.geteuid() != 0,
    }


def local_agent(server: str, execution_id: str, working_directory: str) -> LocalAgent:
    """The agent of ``server`` on this machine for one execution."""
    user = run_as_user()
    if user is not None and os.geteuid() != 0:
        raise AgentError(
            f"local runs are set to run as the user '{user}' (OTTERWEB_RUN_AS_USER), and only "
            "an OtterWeb that runs as root can switch to another user"
        )
    environment = run_environment(user=user)
    environment[MARKER] = execution_id
    environment[INSTANCE] = instance()
    return LocalAgent(
        server,
        user=user,
        environment=environment,
        working_directory=working_directory,
        on_process=process_recorder(execution_id),
    )


# ---- working folders


def work_folder(execution_id: int) -> str:
    """A folder of the execution's own, owned by the user its local processes run as."""
    root = Path(settings.OTTERWEB_WORK_DIR)
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o711)  # the run user reaches its own folder, and lists no other
    folder = root / f"execution-{execution_id}"
    folder.mkdir(mode=0o700, exist_ok=True)
    user = run_as_user()
    if user is not None and os.geteuid() == 0:
        try:
            account = pwd.getpwnam(user)
        except KeyError:
            pass  # the run says so when it starts a process
        else:
            os.chown(folder, account.pw_uid, account.pw_gid)
    return str(folder)


def remove_work_folder(execution_id: int) -> None:
    shutil.rmtree(
        Path(settings.OTTERWEB_WORK_DIR) / f"execution-{execution_id}", ignore_errors=True
    )


def instance() -> str:
    """This OtterWeb's mark: its data folder and its database, hashed."""
    database = connection.settings_dict
    where = "|".join(
        str(part)
        for part in (
            Path(settings.DATA_DIR).resolve(),
            connection.vendor,
            database.get("NAME"),
            database.get("HOST"),
            database.get("PORT"),
        )
    )
    return hashlib.sha256(where.encode()).hexdigest()[:16]


# ---- processes


def _records() -> Path:
    return Path(settings.DATA_DIR) / "processes"


def process_recorder(execution_id: str) -> Callable[[int, bool], None]:
    """A handler for ``LocalAgent.on_process``: the execution's running process groups in
    ``DATA_DIR/processes/execution-<id>``, one per line."""
    path = _records() / f"execution-{execution_id}"
    running: set[int] = set()

    def record(pid: int, started: bool) -> None:
        if started:
            running.add(pid)
        else:
            running.discard(pid)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if running:
            path.write_text("".join(f"{pid}\n" for pid in sorted(running)))
        else:
            path.unlink(missing_ok=True)

    return record


def kill_orphans(is_running: Callable[[int], bool]) -> list[int]:
    """Kill the processes left by executions that are no longer running (``is_running`` says
    which still are): every process whose environment carries such an execution's marker and
    this OtterWeb's (wherever it went: another process group, another session), and the marked
    members of the execution's recorded process groups. A process of another OtterWeb, or a
    group number used again by an unrelated process, is never touched. Returns the process ids
    killed."""
    folder = _records()
    recorded: dict[str, set[int]] = {}
    for path in folder.glob("execution-*") if folder.is_dir() else []:
        execution_id = path.name.removeprefix("execution-")
        if execution_id.isdigit():
            recorded[execution_id] = {
                int(line) for line in path.read_text().split() if line.isdigit()
            }
    verdicts: dict[str, bool] = {}

    def lost(execution_id: str) -> bool:
        if execution_id not in verdicts:
            verdicts[execution_id] = not is_running(int(execution_id))
        return verdicts[execution_id]

    ours = instance()
    killed: dict[str, list[int]] = {}
    for pid, group, environment in _marked():
        execution_id = environment.get(MARKER, "")
        if not execution_id.isdigit() or not lost(execution_id):
            continue
        if environment.get(INSTANCE) == ours or group in recorded.get(execution_id, ()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed.setdefault(execution_id, []).append(pid)
    for execution_id, pids in killed.items():
        logger.warning(
            "execution=%s processes=%s message='killed processes left by an execution that "
            "is no longer running'",
            execution_id,
            ",".join(map(str, pids)),
        )
    for execution_id in recorded:
        if lost(execution_id):
            (folder / f"execution-{execution_id}").unlink(missing_ok=True)
    return [pid for pids in killed.values() for pid in pids]


def _marked() -> list[tuple[int, int, dict[str, str]]]:
    """Each process (but this one) whose environment names an execution: its id, its process
    group and the marker variables (Linux's /proc)."""
    found = []
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else []:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            raw = (entry / "environ").read_bytes()
            if MARKER.encode() not in raw:
                continue
            group = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to read
        variables = {}
        for item in raw.split(b"\0"):
            name, _, value = item.partition(b"=")
            if name in (MARKER.encode(), INSTANCE.encode()):
                variables[name.decode()] = value.decode("utf-8", "replace")
        found.append((int(entry.name), group, variables))
    return found
