"""The first administrator of a fresh install: the user `admin`, with a random password written
to a file in the data folder that only OtterWeb's own user can read (never to the console or a
log). The file is removed when that password is changed."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password

logger = logging.getLogger("otterweb.accounts")

USERNAME = "admin"
FILE_NAME = "first-admin-password"


def password_file(data: Path) -> Path:
    return data / FILE_NAME


def create_if_none(*, data: Path) -> Path | None:
    """When no superuser exists, make `admin` and write its password to the data folder (mode
    0600); that file's path. None when there is a superuser already."""
    users = get_user_model()
    if users.objects.filter(is_superuser=True).exists():
        return None
    password = secrets.token_urlsafe(16)
    path = password_file(data)
    path.unlink(missing_ok=True)  # one left from an earlier install: its mode is not ours to trust
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(
            "# OtterWeb's first administrator. Log in with these, then change the password under\n"
            "# your name (/accounts/password_change/): this file is removed when you do.\n"
            f"username: {USERNAME}\npassword: {password}\n"
        )
    users.objects.create_superuser(USERNAME, password=password)
    logger.info("user=%s path=%s message='first administrator made'", USERNAME, path)
    return path


def read(path: Path) -> dict[str, str]:
    """The file's fields (username, password)."""
    fields = {}
    for line in path.read_text().splitlines():
        name, colon, value = line.partition(": ")
        if colon and not name.startswith("#"):
            fields[name] = value
    return fields


def forget_when_changed(sender, instance, created: bool, **kwargs) -> None:
    """post_save of a user: once the first administrator's password is no longer the one in the
    file, remove the file."""
    if created or getattr(instance, "_password", None) is None:  # the password was not set
        return
    path = password_file(settings.DATA_DIR)
    try:
        fields = read(path)
    except FileNotFoundError:
        return
    if fields.get("username") != instance.get_username():
        return
    if not check_password(fields.get("password", ""), instance.password):
        path.unlink(missing_ok=True)
        logger.info(
            "user=%s path=%s message='first password changed: file removed'",
            instance.get_username(),
            path,
        )
