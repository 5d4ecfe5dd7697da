"""Shared test fixtures. The corpus is read in place from ../shared, never copied.

Test processes run side by side (pytest-xdist's workers, other checkouts, other people's runs on
the same machine): each keeps what it writes to itself. See tests/README.md."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A regular expression from a script is stopped after this long (engine.limits; 2 s in the
# product): the tests of catastrophic patterns spend a whole limit of CPU each, a few dozen of them.
os.environ.setdefault("OTTERWEB_REGEX_SECONDS", "0.5")
CORPUS = ROOT.parent / "shared" / "otterscript" / "corpus"


def corpus_index() -> dict[str, str]:
    """File name -> flags, from the corpus's INDEX.tsv."""
    index = {}
    for line in (CORPUS / "INDEX.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        columns = line.split("\t")
        index[columns[0]] = columns[2] if len(columns) > 2 else ""
    return index


def worker() -> str:
    """The pytest-xdist worker this process is ("gw0", "gw1"...); "main" without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def pytest_configure(config: pytest.Config) -> None:
    """This process's own data folder (DATA_DIR: the records of local runs' processes, keyed by
    execution id, which every test database starts at 1) and work folder (OTTERWEB_WORK_DIR:
    the executions' folders, by id too), for its tests and the processes they start; removed at
    the end. The folder above them lets the run user through to its work folders."""
    from django.conf import settings

    folder = Path(tempfile.mkdtemp(prefix=f"otterweb-tests-{worker()}-"))
    folder.chmod(0o711)
    config.stash[process_folder_key] = folder
    settings.DATA_DIR = folder / "data"
    settings.OTTERWEB_WORK_DIR = folder / "work"
    os.environ["OTTERWEB_DATA_DIR"] = str(settings.DATA_DIR)
    os.environ["OTTERWEB_WORK_DIR"] = str(settings.OTTERWEB_WORK_DIR)
    config.pluginmanager.register(LongestFirst(), "otterweb-longest-first")


class LongestFirst:
    """Runs the long tests first: those of whole sites (tests/e2e) and of the browser, seconds
    to minutes each. pytest-django puts the tests without the database last, and that is most
    of them: the run ended with one process walking every page while the others had nothing
    left to do. Handed out first, a few at a time (``--maxschedchunk``), they run beside the
    short ones. Only tests that do not use the database move, so those that do keep
    pytest-django's order (the transactional ones, which empty the tables, last); within each
    of its groups, those marked `slow` go first (the PostgreSQL pass ended with one process
    fuzzing the API for 13 s while the others had nothing left to do)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        first = [
            item
            for item in items
            if (uses_browser(item) or "e2e" in item.path.parts) and not uses_database(item)
        ]
        chosen = set(first)
        rest = [item for item in items if item not in chosen]
        items[:] = first + [
            item
            for _group, tests in itertools.groupby(rest, key=django_group)
            for item in sorted(tests, key=lambda test: test.get_closest_marker("slow") is None)
        ]


def django_group(item: pytest.Item) -> int:
    """pytest-django's group of a test, by its own rule: 0 uses the database, 1 transactionally,
    2 not at all. Tests move only within a run of one group in its order, so a test this judged
    otherwise than pytest-django would stay where it was put."""
    from pytest_django.plugin import validate_django_db

    fixtures = getattr(item, "fixturenames", ())
    marker = item.get_closest_marker("django_db")
    transactional = "transactional_db" in fixtures or "live_server" in fixtures
    if marker is not None:
        transaction, reset_sequences, *_ = validate_django_db(marker)
        transactional = transactional or transaction or reset_sequences
    if transactional:
        return 1
    return 0 if marker is not None or "db" in fixtures else 2


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(process_folder_key, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    if not hasattr(config, "workerinput"):  # the main process: its workers are done
        from tests.e2e.serving import remove_shared_templates

        remove_shared_templates(os.getpid())


process_folder_key = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix) -> None:
    """On PostgreSQL, the test database is named after this process too (pytest-django names
    it after the xdist worker: test_otterweb_gw0), so runs side by side never drop each
    other's; those of processes that are gone (killed before they dropped theirs) are dropped."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        return  # SQLite: a file per process already (settings/test.py)
    test = database.setdefault("TEST", {})
    test["NAME"] = f"{test.get('NAME') or 'test_' + database['NAME']}_p{os.getpid()}"
    drop_orphaned_test_databases(database)


def drop_orphaned_test_databases(database: dict) -> None:
    import psycopg

    from tests.e2e.serving import alive

    with psycopg.connect(
        dbname=database["NAME"],
        user=database["USER"],
        password=database["PASSWORD"],
        host=database["HOST"],
        port=database["PORT"],
        autocommit=True,
    ) as connection:
        escaped = database["NAME"].replace("_", "\\_")
        names = connection.execute(
            "select datname from pg_database where datname like %s", [f"test\\_{escaped}%\\_p%"]
        ).fetchall()
        for (name,) in names:
            pid = name.rsplit("_p", 1)[1]
            if pid.isdigit() and not alive(int(pid)):
                connection.execute(f'drop database if exists "{name}" with (force)')


@pytest.fixture(scope="session")
def corpus() -> dict[str, tuple[str, str]]:
    """File name -> (text, flags) for every corpus file. Fails, never skips, without it."""
    assert CORPUS.is_dir(), (
        f"the OtterScript corpus must be at {CORPUS} (../shared beside the repository)"
    )
    return {
        name: ((CORPUS / name).read_text(encoding="utf-8"), flags)
        for name, flags in corpus_index().items()
    }


@pytest.fixture(scope="session")
def services() -> dict[str, str]:
    """PostgreSQL and Redis on 127.0.0.1, installed and started by scripts/services (as `make
    test` does). Tests that need them fail, never skip, when they can't be had."""
    from tests.e2e.serving import services

    return services()


@pytest.fixture(scope="session")
def sshd():
    """Three real OpenSSH servers on 127.0.0.1 (tests/sshd.py), for the session. Fails, never
    skips, when sshd is missing (scripts/services start installs it)."""
    import shutil
    import tempfile

    from tests.sshd import SshdCluster

    folder = tempfile.mkdtemp(prefix="otterweb-sshd-")
    try:
        with SshdCluster(3, folder) as cluster:
            yield cluster
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _sudo_decided():
    """Whether the sshd's user has sudo is the machine's to say, for every pytest-xdist worker:
    one test at a time decides it."""
    with open(Path(tempfile.gettempdir()) / "otterweb-sudo-rule.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture
def sudo_rule(sshd):
    """The sshd's user may run anything as root with `sudo -n`, until the test ends."""
    assert Path("/usr/bin/sudo").exists(), "sudo is missing: scripts/services start installs it"
    with _sudo_decided():
        rule = Path("/etc/sudoers.d") / f"otterweb-test-{uuid.uuid4().hex[:10]}"
        rule.write_text(f"{sshd.servers[0].user} ALL=(root) NOPASSWD: ALL\n")
        rule.chmod(0o440)
        try:
            yield
        finally:
            rule.unlink()


@pytest.fixture
def no_sudo_rule(sshd):
    """The sshd's user has no sudo rule while the test runs (the tests that give it one wait)."""
    with _sudo_decided():
        yield


# pytest-django's fixtures that open the test database: a test that uses none of them (nor the
# django_db mark) cannot reach the database, which pytest-django blocks.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)


def uses_database(item: pytest.Item) -> bool:
    """Whether the test reaches the test database (SQLite, or PostgreSQL when the environment
    names it): its behaviour may differ between the two, so `make test` runs it on both."""
    return item.get_closest_marker("django_db") is not None or bool(
        DATABASE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    )


def uses_browser(item: pytest.Item) -> bool:
    """Whether the test's module drives Chromium (through tests/e2e/browser.py or Playwright)."""
    return drives_browser(getattr(item, "module", None))


def drives_browser(module) -> bool:
    return module is not None and any(
        getattr(value, "__module__", "").startswith(("tests.e2e.browser", "playwright"))
        for value in vars(module).values()
    )


@pytest.fixture(scope="module", autouse=True)
def chromium_of_the_module(request):
    """The tests of a module that drives the browser open their contexts in one Chromium."""
    if not drives_browser(request.module):
        yield
        return
    from tests.e2e.browser import shared_chromium

    with shared_chromium():
        yield


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks each test `database` and `browser` as it is (before `-m` selects by them)."""
    for item in items:
        if uses_database(item):
            item.add_marker(pytest.mark.database)
        if uses_browser(item):
            item.add_marker(pytest.mark.browser)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """How pytest-xdist hands tests out (``--dist load``): one at a time, in the order collected
    (see `LongestFirst`), but the tests of a module of tests/e2e all to one process. Such a
    module builds its site (a module fixture: migrations, a user, a server, seconds) and its
    Chromium once in each process that runs some of its tests: once, then. No test there uses
    the test database, so none leaves its place in pytest-django's order."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesOfSitesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module.startswith("tests/e2e/") else nodeid

    config.option.loadscopereorder = False  # the collection's order, not the biggest first
    return ModulesOfSitesTogether(config, log)
