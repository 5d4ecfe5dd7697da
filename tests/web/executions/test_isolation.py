"""A run on the local server acts as the run user, not as OtterWeb: someone with only the right to
run there tries every file operation and every function that reads the disk against OtterWeb's
data folder (its keys, its database, the first administrator's password) and against a 0700 root
folder. All are refused with an error naming the path, nothing is read, nothing is written. The
local server's page says whom runs act as; the housekeeper kills what a lost run left wherever it
went. (The local agent's helper: engine/agents/local.py; tests/engine/test_local_agent.py.)"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from otterweb.accounts import first_admin
from otterweb.execution_logs.models import LogEntry
from otterweb.executions.local_runs import INSTANCE, MARKER, instance
from otterweb.executions.models import Execution
from otterweb.executions.runner import kill_orphans, run_execution
from otterweb.executions.services import create_job
from otterweb.inventory.models import Server
from otterweb.settings.keys import data_folder, encryption_key, secret_key

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root (CI is root)"),
]

RUN_USER = "otterweb-run"  # made by scripts/run-user (make setup) when the tests run as root


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"downloaded")

    def do_POST(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"uploaded " + self.rfile.read(int(self.headers["Content-Length"])))

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def web():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def machine(settings, monkeypatch):
    """A data folder made as the product makes it (0700, keys 0600, a database, the first
    administrator's password), a 0700 root folder, and a work folder for the runs, all under a
    folder anyone can reach; runs as the run user."""
    pwd.getpwnam(RUN_USER)  # made by make setup (scripts/run-user)
    base = Path(tempfile.mkdtemp(prefix="otter-isolation-"))
    base.chmod(0o755)
    monkeypatch.delenv("OTTERWEB_SECRET_KEY", raising=False)
    monkeypatch.delenv("OTTERWEB_ENCRYPTION_KEY", raising=False)
    data = data_folder(base / "data")
    secrets = [secret_key(data), encryption_key(data)]
    database = data / "otterweb.sqlite3"  # as SQLite makes it: 0644, in the 0700 folder
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE tokens (token TEXT)")
        db.execute("INSERT INTO tokens VALUES ('database-token-7d1f')")
    database.chmod(0o644)
    secrets.append("database-token-7d1f")
    password = first_admin.create_if_none(data=data)
    secrets.append(first_admin.read(password)["password"])
    closed = base / "closed"
    closed.mkdir(mode=0o700)
    (closed / "notes.txt").write_text("root-only-notes-5c2e")
    (closed / "notes.txt").chmod(0o644)
    secrets.append("root-only-notes-5c2e")
    settings.DATA_DIR = data
    settings.OTTERWEB_RUN_AS_USER = None  # the default: otterweb-run, since this is root
    settings.OTTERWEB_WORK_DIR = base / "work"
    Server.objects.create(name="here")
    monkeypatch.setenv("OTTERWEB_SECRET_KEY", secrets[0])  # as a server started with it has
    yield {"data": data, "closed": closed, "secrets": secrets, "base": base}
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def runner(user_with):
    """Someone who may run scripts, on the local server too, and nothing more."""
    return user_with("executions.add_execution", "executions.run_on_local_server")


def run(script: str, requested_by) -> tuple[Execution, str]:
    execution = create_job(script=script, servers=["here"], requested_by=requested_by)
    run_execution(execution.pk, worker="test")
    execution.refresh_from_db()
    lines = LogEntry.objects.filter(execution_id=execution.pk).order_by("seq")
    return execution, "\n".join(line.message for line in lines)


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder``: mode, modification time, content (but OtterWeb's own record
    of the processes its runs start)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_relative_to(folder / "processes"):
            continue
        info = path.lstat()
        found[str(path)] = (
            info.st_mode,
            info.st_mtime_ns,
            path.read_bytes() if path.is_file() else b"",
        )
    return found


def attempts(files: list[Path], folder: Path, web: str) -> list[tuple[str, str]]:
    """Each way a script can touch the disk, aimed at ``files`` and ``folder``: (the statement,
    the start of the error it must give)."""
    tried = []
    for file in files:
        tried += [
            (f"Log-Information $FileContents({file});", f"cannot read '{file}'"),
            (f"Log-Information $FileExists({file});", f"cannot look at '{file}'"),
            (f"Log-Information $DirectoryExists({file}/x);", f"cannot look at '{file}/x'"),
            (f"Rename-File (Name: {file}, To: stolen);", f"cannot look at '{file}'"),
            (f"Apply-Template (InputFile: {file});", f"cannot read '{file}'"),
            (f"Upload-Http {file} (Url: {web}/);", f"cannot read '{file}'"),
            (f"Ensure-File {file} (Text: replaced);", f"cannot look at '{file}'"),
            (f"Create-File {file} (Text: replaced, Overwrite: true);", f"cannot write '{file}'"),
            (f"Download-Http {web}/ (FileName: {file});", f"cannot write '{file}'"),
            (f"Apply-Template (Literal: replaced, OutputFile: {file});", f"cannot write '{file}'"),
        ]
    tried += [
        (f"set @found = @FilesOnDisk(@(*), @(), {folder});", f"cannot list '{folder}'"),
        (f"Create-File {folder}/new.txt (Text: planted);", f"cannot look at '{folder}/new.txt'"),
        (f"Ensure-Directory {folder}/new;", f"cannot create directory '{folder}/new'"),
        (f"Delete-Files @(*) (Directory: {folder});", f"cannot list '{folder}'"),
        (f"Copy-Files (From: {folder}, To: copied);", f"cannot list '{folder}'"),
        (f"Copy-Files (From: mine, To: {folder}/planted);", f"cannot look at '{folder}/planted"),
        (
            f"Copy-Files (From: mine, To: {folder}/p, Overwrite: true);",
            f"cannot write '{folder}/p/",
        ),
        (f"Replace-Text (Directory: {folder}, SearchText: a);", f"cannot list '{folder}'"),
        (
            f"Concatenate-Files (Directory: {folder}, OutputFile: all.txt);",
            f"cannot list '{folder}'",
        ),
        (f"Create-ZipFile (Name: all.zip, Directory: {folder});", f"cannot list '{folder}'"),
        (f"Create-ZipFile (Name: {folder}/z.zip, Directory: mine);", f"cannot look at '{folder}"),
        (f"Extract-ZipFile mine.zip (Directory: {folder}/x);", f"cannot look at '{folder}/x/"),
        (f"Set-FileAttributes (Directory: {folder}, FileMode: 666);", f"cannot list '{folder}'"),
    ]
    return tried


def script_of(tried: list[tuple[str, str]]) -> str:
    """A script that makes a folder and a zip of its own, then tries each statement, going on
    after each refusal."""
    lines = [
        "Create-File mine/a.txt (Text: mine);",
        "Create-ZipFile (Name: mine.zip, Directory: mine);",
    ]
    for number, (statement, _) in enumerate(tried):
        lines.append(
            f"try {{ {statement} Log-Information reached-{number}; }} "
            f"catch {{ Log-Information refused-{number}; }}"
        )
    return "\n".join(lines)


@pytest.mark.parametrize("where", ["data", "closed"])
def test_isolation_every_file_action_of_a_local_run_is_refused(machine, runner, web, where) -> None:
    folder = machine[where]
    files = sorted(path for path in folder.iterdir() if path.is_file())
    if where == "data":
        assert {p.name for p in files} >= {
            "secret_key",
            "encryption_key",
            "otterweb.sqlite3",
            "first-admin-password",
        }
    before = snapshot(folder)
    tried = attempts(files, folder, web)
    execution, log = run(script_of(tried), runner)
    for number, (statement, error) in enumerate(tried):
        assert f"refused-{number}" in log and f"reached-{number}" not in log, statement
        assert f"{error}" in log, f"{statement}: no '{error}' in the log"
    assert log.count("on here: permission denied") >= len(tried)
    for secret in machine["secrets"]:
        assert secret not in log
    assert snapshot(folder) == before  # nothing written, changed, moved or deleted
    assert execution.status == "error"


def test_isolation_processes_of_a_local_run_read_nothing_of_otterweb(machine, runner) -> None:
    data, closed = machine["data"], machine["closed"]
    groups = {g.gr_name for g in grp.getgrall() if RUN_USER in g.gr_mem} | {RUN_USER}
    execution, log = run(
        "SHExec id;\n"
        f"try {{ SHExec cat {data}/secret_key {data}/otterweb.sqlite3 {closed}/notes.txt; }}"
        " catch { Log-Information refused; }\n"
        f"try {{ SHExec ls {data}; }} catch {{ Log-Information refused; }}\n"
        f"try {{ SHExec touch {data}/planted; }} catch {{ Log-Information refused; }}\n"
        f"try {{ SHExec cat {connection.settings_dict['NAME']}; }}"
        " catch { Log-Information refused; }\n"
        "Log-Information key=$EnvironmentVariable(OTTERWEB_SECRET_KEY);\n"
        "Log-Information user=$EnvironmentVariable(USER);",
        runner,
    )
    identity = next(line for line in log.splitlines() if line.startswith("uid="))
    account = pwd.getpwnam(RUN_USER)
    assert identity.startswith(f"uid={account.pw_uid}({RUN_USER}) gid={account.pw_gid}(")
    assert {part.split("(")[1].rstrip(")") for part in identity.split("=")[3].split(",")} == groups
    assert "(root)" not in identity
    assert log.count("Permission denied") >= 4 and log.count("refused") == 4
    for secret in machine["secrets"]:
        assert secret not in log
    assert "key=\n" in log + "\n" and f"user={RUN_USER}" in log
    assert not (data / "planted").exists()
    assert execution.status == "error"


def test_isolation_the_local_server_page_says_whom_runs_act_as(client_with, settings) -> None:
    Server.objects.create(name="here")
    ssh = Server.objects.create(name="far", agent_type=Server.AgentType.SSH, host="192.0.2.1")
    client = client_with("inventory.view_server")
    settings.OTTERWEB_RUN_AS_USER = ""  # OtterWeb's own user
    page = client.get(reverse("server-detail", args=["here"])).content.decode()
    assert "Scripts run on here act as OtterWeb's own OS user" in page
    assert "its database, its keys, the first administrator" in page
    assert "is set empty" in page  # why, when OtterWeb runs as root (as here)
    settings.OTTERWEB_RUN_AS_USER = None  # the default: otterweb-run, since this is root
    page = client.get(reverse("server-detail", args=["here"])).content.decode()
    assert f'<span class="mono">{RUN_USER}</span> <span class="muted">an unprivileged' in page
    assert "own OS user" not in page
    page = client.get(reverse("server-detail", args=[ssh.name])).content.decode()
    assert "Runs act as" not in page


def test_isolation_kill_orphans_finds_marked_processes_in_any_group_or_session() -> None:
    Server.objects.create(name="here")
    execution = create_job(script="SHExec sleep 60;", servers=["here"])
    Execution.objects.filter(pk=execution.pk).update(run_state=Execution.RunState.COMPLETED)
    marked = {**os.environ, MARKER: str(execution.pk)}
    # left by a lost execution, in a session of its own that no record names
    escaped = subprocess.Popen(
        ["sleep", "60"], start_new_session=True, env={**marked, INSTANCE: instance()}
    )
    # the same execution id, of another OtterWeb on this machine: not ours to kill
    foreign = subprocess.Popen(
        ["sleep", "60"], start_new_session=True, env={**marked, INSTANCE: "another-otterweb"}
    )
    try:
        assert kill_orphans() == [escaped.pid]
        assert escaped.wait(timeout=5) == -9
        time.sleep(0.1)
        assert foreign.poll() is None
    finally:
        for process in (escaped, foreign):
            process.kill()
            process.wait()
