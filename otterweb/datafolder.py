"""The data folder (OTTERWEB_DATA_DIR) holds the keys, the SQLite database and the first
administrator's password: only OtterWeb's own user may read it. The folder is made 0700 when the
settings are read (otterweb.settings.keys.data_folder) and the database's files 0600 at startup
and whenever SQLite may have made one; a system check (run by `manage.py serve`, `migrate`,
`check`) refuses to start when either is still open to others, e.g. when owned by another user."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from django.conf import settings
from django.core import checks
from django.db import connections

# the database and the files SQLite keeps beside it (made with the database's mode)
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
OPEN_TO_OTHERS = 0o077


def sqlite_files(connection) -> list[Path]:
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return []
    name = str(connection.settings_dict["NAME"])
    return [Path(name + suffix) for suffix in SQLITE_SUFFIXES]


def owner_only(path: Path, mode: int) -> None:
    """Take group's and others' rights from ``path`` when it exists and is ours."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return
    if status.st_uid == os.getuid() and stat.S_IMODE(status.st_mode) & OPEN_TO_OTHERS:
        path.chmod(mode)


def secure_database(connection) -> None:
    for path in sqlite_files(connection):
        owner_only(path, 0o600)


def secure_on_connect(sender, connection, **kwargs) -> None:
    """connection_created: SQLite has just opened (or made) the database file."""
    secure_database(connection)


def secure_all() -> None:
    for alias in connections:
        secure_database(connections[alias])


@checks.register(checks.Tags.security)
def check_data_folder(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    problems: list[checks.CheckMessage] = []
    folder = Path(settings.DATA_DIR)
    if folder.exists() and stat.S_IMODE(folder.stat().st_mode) & OPEN_TO_OTHERS:
        problems.append(
            checks.Error(
                f"the data folder {folder} can be read by other users "
                f"(mode {stat.S_IMODE(folder.stat().st_mode):04o}): it holds the keys and the "
                "database",
                hint=f"make it OtterWeb's user's own and run: chmod 700 {folder}",
                id="otterweb.E001",
            )
        )
    for alias in connections:
        for path in sqlite_files(connections[alias]):
            if path.exists() and stat.S_IMODE(path.stat().st_mode) & OPEN_TO_OTHERS:
                problems.append(
                    checks.Error(
                        f"the database file {path} can be read by other users "
                        f"(mode {stat.S_IMODE(path.stat().st_mode):04o})",
                        hint=f"make it OtterWeb's user's own and run: chmod 600 {path}",
                        id="otterweb.E002",
                    )
                )
    return problems
