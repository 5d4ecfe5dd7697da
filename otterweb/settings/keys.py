"""The installation's secret key and credential encryption key: from the environment, or
generated into the data folder on the first start (readable by its owner only) and read from
there afterwards. No key is ever written in the repository."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from cryptography.fernet import Fernet


def data_folder(path: Path) -> Path:
    """The data folder, readable by its owner only: it holds the keys and the database."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o700)
    return path


def read_or_create(path: Path, generate) -> str:
    """The key stored in ``path``; on the first call, a new one from ``generate()``, written
    with mode 0600 (O_EXCL: two processes starting at once agree on the one that won)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        value = path.read_text().strip()
        if value:
            return value
        # the winner has created the file but not yet written it
        for _ in range(50):
            time.sleep(0.02)
            value = path.read_text().strip()
            if value:
                return value
        raise RuntimeError(f"{path} is empty: remove it to generate a new key") from None
    with os.fdopen(descriptor, "w") as file:
        file.write(generate() + "\n")
    return path.read_text().strip()


def secret_key(data: Path) -> str:
    return os.environ.get("OTTERWEB_SECRET_KEY") or read_or_create(
        data / "secret_key", lambda: secrets.token_urlsafe(50)
    )


def encryption_key(data: Path) -> str:
    return os.environ.get("OTTERWEB_ENCRYPTION_KEY") or read_or_create(
        data / "encryption_key", lambda: Fernet.generate_key().decode()
    )
