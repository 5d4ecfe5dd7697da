"""Runs on the local server (a server whose agent is ``local``: this machine): which OS user
they run as, the working folder of each execution, and the process groups they start.

Running on the local server is a permission of its own (``executions.run_on_local_server``):
"may start executions" does not imply it. Local processes run as an unprivileged OS user
(``OTTERWEB_RUN_AS_USER``; ``otterweb-run``, made by ``make setup``, when OtterWeb runs as root),
in a folder of their execution's own, with none of the server's ``OTTERWEB_*``, ``DJANGO_*`` or
``CELERY_*`` variables. Each process group is recorded in the data folder while it runs, so that
the housekeeper kills what a killed worker left behind once its execution is closed."""

from __future__ import annotations

import logging
import os
import pwd
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from engine import AgentError, LocalAgent, run_environment

logger = logging.getLogger(__name__)

DEFAULT_RUN_USER = "otterweb-run"
PERMISSION = "executions.run_on_local_server"
# in the environment of every local process: which execution started it
MARKER = "OTTER_EXECUTION_ID"


def may_run_locally(user) -> bool:
    """Whether ``user`` (None: OtterWeb itself, e.g. a schedule) may run on the local server."""
    return user is None or user.has_perm(PERMISSION)


def run_as_user() -> str | None:
    """The OS user local processes run as; None for the server's own user."""
    configured = settings.OTTERWEB_RUN_AS_USER
    if configured is None:
        return DEFAULT_RUN_USER if os.geteuid() == 0 else None
    if not configured or configured == pwd.getpwuid(os.geteuid()).pw_name:
        return None
    return configured


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


# ---- process groups


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
    which still are): the members of their recorded process groups that carry the execution's
    marker, so that a group number used again by an unrelated process is never touched.
    Returns the process ids killed."""
    folder = _records()
    if not folder.is_dir():
        return []
    killed: list[int] = []
    for path in folder.glob("execution-*"):
        execution_id = path.name.removeprefix("execution-")
        if not execution_id.isdigit() or is_running(int(execution_id)):
            continue
        groups = {int(line) for line in path.read_text().split() if line.isdigit()}
        left = []
        for pid in _members(groups, f"{MARKER}={execution_id}"):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            left.append(pid)
        if left:
            logger.warning(
                "execution=%s processes=%s message='killed processes left by a lost execution'",
                execution_id,
                ",".join(map(str, left)),
            )
        killed.extend(left)
        path.unlink(missing_ok=True)
    return killed


def _members(groups: set[int], marker: str) -> list[int]:
    """The processes in ``groups`` whose environment has ``marker`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            group = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2])
            if group in groups and marker in (entry / "environ").read_bytes().decode(
                "utf-8", "replace"
            ).split("\0"):
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to read
    return found
