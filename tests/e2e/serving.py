"""Running OtterWeb as a user would, for end-to-end tests and bench/logs.py: `manage.py serve`
(the embedded default), or daphne and Celery workers on PostgreSQL and Redis (the distributed
mode)."""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# The server the tests' scripts run on (a job names its servers): this machine, by the local agent.
LOCAL_SERVER = (
    "from otterweb.inventory.models import Server; Server.objects.create(name='localhost')"
)

# What a new site holds, made in one process (`manage.py shell`): the migrated database, the
# superuser "ops" (DJANGO_SUPERUSER_PASSWORD), their API token (`manage.py create_token`, printed
# last) and the local server. The management commands are called, not imitated.
SEED = f"""
import io
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("createsuperuser", interactive=False, username="ops", verbosity=0)
token = io.StringIO()
call_command("create_token", "ops", stdout=token, stderr=io.StringIO())
{LOCAL_SERVER}
from django.db import connections
connections.close_all()
print("TOKEN=" + token.getvalue().strip())
"""

# The environment that changes what the seed writes: a template is made once for each of their
# values (and each checkout, and each backend).
SEED_SETTINGS = ("OTTERWEB_SECRET_KEY", "OTTERWEB_ENCRYPTION_KEY", "OTTERWEB_TOKEN_TTL_DAYS")
KEY_FILES = ("secret_key", "encryption_key")  # what prod settings generate into the data folder
SQLITE_NAME = "otterweb.sqlite3"  # DATA_DIR / this, the embedded default (settings/base.py)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@functools.cache
def services() -> dict[str, str]:
    """Install and start PostgreSQL and Redis on 127.0.0.1 (scripts/services); their URLs. One
    test process at a time starts them (pytest-xdist's workers, other runs): two would both
    find them stopped and start them twice."""
    script = ROOT / "scripts" / "services"
    with open(Path(tempfile.gettempdir()) / "otterweb-services.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        started = subprocess.run([script, "start"], capture_output=True, text=True)
    if started.returncode:
        raise RuntimeError(f"scripts/services start failed:\n{started.stderr}")
    printed = subprocess.run([script, "env"], capture_output=True, text=True, check=True).stdout
    return dict(line.split("=", 1) for line in printed.splitlines())


@dataclass(frozen=True)
class Template:
    """A seeded site to copy: a data folder with the keys (and, for SQLite, the database), the
    PostgreSQL database to copy (distributed mode) and the superuser's token."""

    folder: Path
    token: str
    database: str = ""
    admin_url: str = ""


_templates: dict[tuple, Template] = {}
_templates_lock = threading.Lock()


def seed(env: dict[str, str]) -> str:
    """Seed the site that ``env`` names, in one process; the superuser's token."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", SEED],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode or "TOKEN=" not in done.stdout:
        raise RuntimeError(f"seeding a site failed:\n{done.stdout[-3000:]}{done.stderr[-6000:]}")
    return done.stdout.rsplit("TOKEN=", 1)[1].strip()


def process_folder(prefix: str) -> Path:
    """A new temporary folder, removed when this process ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def run_owner() -> int | None:
    """The main process of this pytest-xdist run (its workers' parent); None outside one."""
    return os.getppid() if os.environ.get("PYTEST_XDIST_TESTRUNUID") else None


def shared_templates(owner: int) -> list[Path]:
    """The folders of the templates that the workers of ``owner``'s run share."""
    return sorted(Path(tempfile.gettempdir()).glob(f"otterweb-site-template-{owner}-*"))


def remove_shared_templates(owner: int) -> None:
    """Remove the templates the workers of ``owner``'s run shared (and their databases): their
    main process does, when they are done (tests/conftest.py)."""
    for path in shared_templates(owner):
        if not path.is_dir():
            path.unlink(missing_ok=True)  # a lock
            continue
        if (path / TEMPLATE_JSON).is_file():
            template = json.loads((path / TEMPLATE_JSON).read_text())
            if template["database"]:
                drop = f"drop database if exists {template['database']} with (force)"
                _sql(template["admin_url"], drop)
        shutil.rmtree(path, ignore_errors=True)


TEMPLATE_JSON = "template.json"


def work_folder() -> Path:
    """A site's own OTTERWEB_WORK_DIR: its executions' folders are named by execution id, the
    same in every site, and sites run side by side (pytest-xdist). The run user passes through
    it to its folders, as it passes /tmp."""
    folder = process_folder("otterweb-site-work-")
    folder.chmod(0o711)
    return folder


def copy_keys(template: Template, data: Path) -> None:
    """The template's keys into a new data folder, readable by its owner only (as generated)."""
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    data.chmod(0o700)
    for name in KEY_FILES:
        if (template.folder / name).exists():
            shutil.copyfile(template.folder / name, data / name)
            (data / name).chmod(0o600)


class Site:
    """A fresh data directory with a migrated database, a superuser and their API token
    (`manage.py create_token`), and the local server.

    Each site has a data folder and a database of its own, copied from a template that is
    seeded once per process, or once per pytest-xdist run (per checkout, backend and
    SEED_SETTINGS): migrate alone takes seconds, a copy milliseconds."""

    def __init__(self, data: Path, **settings: str) -> None:
        self.data = data
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "otterweb.settings.prod",
            "OTTERWEB_DATA_DIR": str(data),
            "DJANGO_SUPERUSER_PASSWORD": "e2e-password-123",
            "DJANGO_SUPERUSER_EMAIL": "ops@example.org",
            "OTTERWEB_WORK_DIR": str(work_folder()),
            **settings,
        }
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = self.make_database()

    def template_key(self) -> tuple:
        return (type(self).__name__, str(ROOT), *(self.env.get(name) for name in SEED_SETTINGS))

    def template(self) -> Template:
        """This process's template for a site like this one, seeded on first use; under
        pytest-xdist, seeded by the first worker of the run that needs it, for them all."""
        key = self.template_key()
        with _templates_lock:
            if key not in _templates:
                owner = run_owner()
                if owner is None:
                    _templates[key] = self.make_template(process_folder("otterweb-site-template-"))
                else:
                    _templates[key] = self.shared_template(key, owner)
            return _templates[key]

    def shared_template(self, key: tuple, owner: int) -> Template:
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:12]
        folder = Path(tempfile.gettempdir()) / f"otterweb-site-template-{owner}-{digest}"
        with open(f"{folder}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait while the first seeds it
            made = folder / TEMPLATE_JSON
            if made.is_file():
                return Template(**{**json.loads(made.read_text()), "folder": folder})
            folder.mkdir(mode=0o700, exist_ok=True)  # or left by a seed that failed
            template = self.make_template(folder, owner=owner)
            made.write_text(json.dumps({**vars(template), "folder": str(folder)}))
            return template

    def make_template(self, folder: Path, owner: int | None = None) -> Template:
        """Seed a template in ``folder``."""
        token = seed({**self.env, "OTTERWEB_DATA_DIR": str(folder)})
        database = folder / SQLITE_NAME
        # one self-contained file: everything checkpointed from the write-ahead log
        with sqlite3.connect(database) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        return Template(folder, token)

    def make_database(self) -> str:
        """The seeded database and keys in the data folder; the superuser's token."""
        if self.env.get("OTTERWEB_DATABASE_URL"):
            # a database named by the environment (not one of its own): seeded where it is
            return seed(self.env)
        template = self.template()
        copy_keys(template, self.data)
        source = sqlite3.connect(template.folder / SQLITE_NAME)
        target = sqlite3.connect(self.data / SQLITE_NAME)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=WAL")  # as the settings ask, before any start
        finally:
            target.close()
            source.close()
        return template.token

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def start(self, *command: str, log=subprocess.DEVNULL) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-X", "faulthandler", *command],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def serve(self, log=subprocess.DEVNULL) -> subprocess.Popen:
        """Start the web server and wait until it answers: `manage.py serve` here, daphne in the
        distributed mode."""
        process = self.start("manage.py", "serve", f"127.0.0.1:{self.port}", log=log)
        self.wait_until_up(process)
        return process

    def up(self, log=subprocess.DEVNULL) -> list[subprocess.Popen]:
        """Every process the site needs to run executions: here, `manage.py serve`."""
        return [self.serve(log)]

    def wait_until_up(self, process: subprocess.Popen) -> None:
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/accounts/login/", timeout=1)
                return
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(0.1)
        process.kill()
        raise AssertionError("the web server did not start")

    def api(self, method: str, path: str, body: dict | None = None):
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = response.read()
        return json.loads(answer) if answer else None  # (204: nothing)

    def add_raft(self, name: str, scripts: dict[str, str]) -> None:
        """A raft with OtterScript scripts (item name -> text), made through the API."""
        self.api("POST", "/api/rafts/", {"name": name})
        for item, content in scripts.items():
            self.api(
                "POST",
                "/api/raft-items/",
                {"raft": name, "name": item, "kind": "script", "content": content},
            )

    def wait_for(self, execution_id: int, predicate, seconds: float = 30) -> dict:
        """The execution's detail once ``predicate(detail)`` holds."""
        deadline = time.monotonic() + seconds
        while True:
            detail = self.api("GET", f"/api/executions/{execution_id}/")
            if predicate(detail) or time.monotonic() > deadline:
                return detail
            time.sleep(0.1)

    def close(self) -> None:
        pass


class DistributedSite(Site):
    """The distributed mode on this machine: a database of its own in the services' PostgreSQL,
    names of its own in their Redis, daphne for the web and `celery -A otterweb worker`s."""

    def __init__(self, data: Path, **settings: str) -> None:
        urls = services()
        self.admin_url = urls["OTTERWEB_DATABASE_URL"]
        self.database = f"otterweb_{uuid.uuid4().hex[:12]}"
        super().__init__(
            data,
            OTTERWEB_DATABASE_URL=self.database_url(self.database),
            OTTERWEB_REDIS_URL=urls["OTTERWEB_REDIS_URL"],
            OTTERWEB_REDIS_PREFIX=self.database,
            **settings,
        )

    def database_url(self, name: str) -> str:
        return self.admin_url.rsplit("/", 1)[0] + "/" + name

    def template_key(self) -> tuple:
        return (*super().template_key(), self.admin_url)

    def make_template(self, folder: Path, owner: int | None = None) -> Template:
        """A seeded database of its own, dropped when this process ends (or, shared by a run's
        workers, when its ``owner`` does), and by the next process that finds it left by one
        that was killed."""
        drop_orphaned_templates(self.admin_url)
        database = f"otterweb_template_{owner or os.getpid()}_{uuid.uuid4().hex[:8]}"
        _sql(self.admin_url, f"create database {database}")
        if owner is None:
            atexit.register(
                _sql, self.admin_url, f"drop database if exists {database} with (force)"
            )
        token = seed(
            {
                **self.env,
                "OTTERWEB_DATA_DIR": str(folder),
                "OTTERWEB_DATABASE_URL": self.database_url(database),
            }
        )
        return Template(folder, token, database, self.admin_url)

    def make_database(self) -> str:
        from psycopg.errors import ObjectInUse

        template = self.template()
        copy_keys(template, self.data)
        for attempt in range(50):
            try:
                self._sql(f"create database {self.database} template {template.database}")
                break
            except ObjectInUse:  # the template still in use (a closing connection): again
                if attempt == 49:
                    raise
                time.sleep(0.1)
        return template.token

    def _sql(self, statement: str) -> None:
        _sql(self.admin_url, statement)

    def serve(self, log=subprocess.DEVNULL) -> subprocess.Popen:
        process = self.start(
            *("-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)),
            "otterweb.asgi:application",
            log=log,
        )
        self.wait_until_up(process)
        return process

    def up(self, log=subprocess.DEVNULL) -> list[subprocess.Popen]:
        """daphne and one Celery worker."""
        return [self.serve(log), self.worker("w1", log)]

    def worker(self, name: str, log=subprocess.DEVNULL) -> subprocess.Popen:
        """A Celery worker; returns once it is ready for tasks."""
        process = self.start(
            *("-m", "celery", "-A", "otterweb", "worker", "--hostname", f"{name}@%h"),
            *("--loglevel", "INFO", "--without-gossip", "--without-mingle"),
            log=subprocess.PIPE,
        )
        lines: list[str] = []
        for raw in process.stdout:
            lines.append(raw.decode(errors="replace"))
            if log is not subprocess.DEVNULL:
                log.write(raw)
            if " ready." in lines[-1]:
                break
        else:
            raise AssertionError("the Celery worker exited:\n" + "".join(lines[-40:]))
        # keep reading its output, so it never blocks on a full pipe
        threading.Thread(target=_drain, args=(process.stdout, log), daemon=True).start()
        return process

    def close(self) -> None:
        self._sql(f"drop database if exists {self.database} with (force)")


def _sql(admin_url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(statement)


def drop_orphaned_templates(admin_url: str) -> None:
    """Drop the template databases of processes that are gone (killed before their exit)."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        names = connection.execute(
            "select datname from pg_database where datname like 'otterweb\\_template\\_%'"
        ).fetchall()
        for (name,) in names:
            pid = name.split("_")[2]
            if pid.isdigit() and not alive(int(pid)):
                connection.execute(f"drop database if exists {name} with (force)")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make_site(mode: str, data: Path, **settings: str) -> Site:
    """A site in the embedded or the distributed mode."""
    return (DistributedSite if mode == "distributed" else Site)(data, **settings)


def _drain(stream, log) -> None:
    for raw in stream:
        if log is not subprocess.DEVNULL:
            log.write(raw)


def stop(process: subprocess.Popen, log_path: Path | None = None) -> None:
    """SIGTERM, and if that does not stop it, SIGABRT (faulthandler prints every thread)."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        process.wait(timeout=10)
        tail = log_path.read_text()[-6000:] if log_path else ""
        raise AssertionError(f"{process.args} did not stop on SIGTERM:\n{tail}") from None


@contextmanager
def running_site(mode: str, data: Path, **settings: str) -> Iterator[Site]:
    """A site in ``mode`` with every process it needs up (its log in ``data/server.log``);
    stopped and removed afterwards."""
    site = make_site(mode, data, **settings)
    log_path = data / "server.log"
    with open(log_path, "wb") as log:
        processes = site.up(log)
        try:
            yield site
        finally:
            for process in processes:
                stop(process, log_path)
            site.close()


@contextmanager
def served_with_raft(data: Path, raft: str, scripts: dict[str, str]) -> Iterator[Site]:
    """An embedded site serving on a free port, with a raft of OtterScript scripts (item name ->
    text); stopped afterwards. For the editor's browser tests."""
    site = Site(data)
    server = site.serve(subprocess.DEVNULL)
    try:
        site.add_raft(raft, scripts)
        yield site
    finally:
        stop(server)
