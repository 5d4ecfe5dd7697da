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
