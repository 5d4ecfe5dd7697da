"""Fixtures the end-to-end tests share."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from pathlib import Path

import pytest

RUN_USER = "otterweb-run"


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where a test keeps its screenshots for a person to look at: OTTERWEB_SCREENSHOTS, or the
    test's own folder."""
    folder = Path(os.environ.get("OTTERWEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def run_user_folder():
    """A folder local runs may read and write: they act as the run user (`otterweb-run` when the
    tests run as root), to whom pytest's own temporary folders (root's, 0700) are closed."""
    folder = Path(tempfile.mkdtemp(prefix="otterweb-e2e-"))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        try:
            account = pwd.getpwnam(RUN_USER)
        except KeyError:
            pass  # no run user: runs act as root
        else:
            os.chown(folder, account.pw_uid, account.pw_gid)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
