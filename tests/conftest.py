"""Shared test fixtures. The corpus is read in place from ../shared, never copied."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "otterscript" / "corpus"


def corpus_index() -> dict[str, str]:
    """File name -> flags, from the corpus's INDEX.tsv."""
    index = {}
    for line in (CORPUS / "INDEX.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        columns = line.split("\t")
        index[columns[0]] = columns[2] if len(columns) > 2 else ""
    return index


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
    module = getattr(item, "module", None)
    return module is not None and any(
        getattr(value, "__module__", "").startswith(("tests.e2e.browser", "playwright"))
        for value in vars(module).values()
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks each test `database` and `browser` as it is (before `-m` selects by them)."""
    for item in items:
        if uses_database(item):
            item.add_marker(pytest.mark.database)
        if uses_browser(item):
            item.add_marker(pytest.mark.browser)
