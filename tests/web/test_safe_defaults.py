"""The embedded default is safe to run: production settings unless developers ask by name, keys
generated into an owner-only data folder (never one from the repository), the product's own
error pages, check --deploy clean, and text stored with \\n line endings."""

from __future__ import annotations

import importlib
import io
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.test import RequestFactory

from otterweb import secrets, views
from otterweb.executions.models import JobTemplate
from otterweb.inventory.models import Credential
from otterweb.rafts import services as rafts
from otterweb.rafts.models import Raft, RaftItem
from otterweb.schedules.models import Trigger
from otterweb.settings import keys

ROOT = Path(__file__).resolve().parents[2]


def manage(data: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """manage.py as a user runs it: no DJANGO_SETTINGS_MODULE, a data folder of its own."""
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "OTTERWEB_"))
    }
    environment.update(OTTERWEB_DATA_DIR=str(data), **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )


def shell(data: Path, code: str) -> list[str]:
    """What ``code`` prints in `manage.py shell`, line by line."""
    ran = manage(data, "shell", "--no-imports", "-c", code)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.split()


def test_keys_read_or_create_writes_an_owner_only_file_and_reuses_it(tmp_path) -> None:
    path = tmp_path / "secret_key"
    first = keys.read_or_create(path, lambda: "generated-1")
    again = keys.read_or_create(path, lambda: "generated-2")
    assert first == again == "generated-1"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_keys_come_from_the_environment_when_set(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OTTERWEB_SECRET_KEY", "from-the-environment")
    assert keys.secret_key(tmp_path) == "from-the-environment"
    assert not (tmp_path / "secret_key").exists()


def test_data_folder_is_made_owner_only_even_when_it_existed(tmp_path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    keys.data_folder(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.slow
def test_data_folder_database_files_are_made_owner_only_at_startup(tmp_path) -> None:
    data = tmp_path / "data"
    migrated = manage(data, "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr
    database = data / "otterweb.sqlite3"
    assert stat.S_IMODE(database.stat().st_mode) == 0o600  # from the moment SQLite made it
    # one left readable by an older version (or a copy) is closed at the next start
    for path in (database, data / "otterweb.sqlite3-wal"):
        path.touch()
        path.chmod(0o644)
    data.chmod(0o755)
    checked = manage(data, "check")
    assert checked.returncode == 0, checked.stderr
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for path in (database, data / "otterweb.sqlite3-wal"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_data_folder_check_refuses_a_folder_or_database_others_can_read(
    tmp_path, settings, monkeypatch
) -> None:
    """What startup cannot close (another user's folder, say) stops `serve` and `migrate`."""
    from otterweb import datafolder

    settings.DATA_DIR = tmp_path
    database = tmp_path / "otterweb.sqlite3"
    database.touch()
    monkeypatch.setattr(datafolder, "sqlite_files", lambda connection: [database])
    tmp_path.chmod(0o700)
    database.chmod(0o600)
    assert datafolder.check_data_folder() == []
    tmp_path.chmod(0o750)
    database.chmod(0o644)
    problems = datafolder.check_data_folder()
    assert [p.id for p in problems] == ["otterweb.E001", "otterweb.E002"]
    assert "can be read by other users (mode 0750)" in problems[0].msg
    assert problems[1].hint.startswith("make it OtterWeb's user's own and run: chmod 600")


def test_entry_points_use_the_production_settings_unless_told_otherwise(tmp_path) -> None:
    printed = shell(
        tmp_path,
        "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)",
    )
    assert printed == ["otterweb.settings.prod", "False"]
    for module in ("otterweb.asgi", "otterweb.celery"):
        code = f"import {module}; from django.conf import settings; print(settings.SETTINGS_MODULE)"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
        environment["OTTERWEB_DATA_DIR"] = str(tmp_path)
        ran = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True
        )
        assert ran.stdout.strip() == "otterweb.settings.prod", ran.stderr


def test_production_settings_generate_their_keys_in_the_data_folder(tmp_path) -> None:
    code = "from django.conf import settings; print(settings.SECRET_KEY); print(settings.ENCRYPTION_KEY)"
    first = shell(tmp_path / "data", code)
    second = shell(tmp_path / "data", code)
    assert first == second and len(first) == 2
    assert (tmp_path / "data" / "secret_key").read_text().strip() == first[0]
    Fernet(first[1].encode())  # a valid key
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    repository = subprocess.run(
        ["git", "grep", "-l", "-F", "-e", first[1]], cwd=ROOT, capture_output=True
    )
    assert repository.returncode == 1  # the key is not written anywhere in the repository


@pytest.mark.parametrize("https", ["0", "1"])
def test_check_deploy_passes_for_the_embedded_default_and_behind_https(tmp_path, https) -> None:
    checked = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", OTTERWEB_HTTPS=https)
    assert checked.returncode == 0, checked.stderr + checked.stdout


def test_previous_keys_still_decrypt_until_secrets_are_encrypted_again(db, settings) -> None:
    old = settings.ENCRYPTION_KEY
    credential = Credential.objects.create(name="deploy")
    credential.set_secret("hunter2")
    credential.set_passphrase("open sesame")
    credential.save()
    raft = Raft.objects.create(name="ops")
    template = JobTemplate.objects.create(
        name="deploy", raft_item=RaftItem.objects.create(raft=raft, name="deploy")
    )
    trigger = Trigger.objects.create(
        template=template,
        name="ci",
        kind=Trigger.Kind.WEBHOOK,
        encrypted_secret=secrets.encrypt("hook"),
    )
    settings.ENCRYPTION_KEY = Fernet.generate_key().decode()
    settings.PREVIOUS_ENCRYPTION_KEYS = [old]
    assert Credential.objects.get(name="deploy").secret() == "hunter2"
    output = io.StringIO()
    call_command("reencrypt_secrets", stdout=output)
    assert "1 private key passphrases" in output.getvalue()
    assert "1 webhook trigger secrets" in output.getvalue()
    settings.PREVIOUS_ENCRYPTION_KEYS = []
    assert Credential.objects.get(name="deploy").secret() == "hunter2"
    assert Credential.objects.get(name="deploy").passphrase() == "open sesame"
    trigger.refresh_from_db()
    assert secrets.decrypt(trigger.encrypted_secret) == "hook"


def test_migration_encrypts_secrets_of_the_old_development_key_again(db) -> None:
    migration = importlib.import_module(
        "otterweb.inventory.migrations.0003_reencrypt_development_key"
    )
    token = Fernet(migration.OLD_DEVELOPMENT_KEY.encode()).encrypt(b"from-before").decode()
    Credential.objects.create(name="old", encrypted_secret=token)
    from django.apps import apps

    migration.reencrypt(apps, None)
    stored = Credential.objects.get(name="old")
    assert stored.encrypted_secret != token and stored.secret() == "from-before"
    with pytest.raises(Exception, match="cannot be decrypted"):
        secrets.decrypt(token)  # the old key is no longer used to read


def test_error_pages_are_the_products_own(client_with) -> None:
    missing = client_with().get("/no/such/page/")
    page = missing.content.decode()
    assert missing.status_code == 404 and "Page not found" in page and "site.css" in page
    assert "URLconf" not in page and "Traceback" not in page
    failed = views.server_error(RequestFactory().get("/"))
    assert failed.status_code == 500 and b"Something went wrong" in failed.content


def test_text_is_stored_with_unix_line_endings_on_every_path(admin_client, db) -> None:
    raft = Raft.objects.create(name="ops")
    item = rafts.save_item(
        raft=raft,
        name="setup.sh",
        kind="shell_script",
        content="if true; then\r\n  echo ok\r\nfi\r\n",
    )
    assert item.content == "if true; then\n  echo ok\nfi\n"
    assert item.versions.get().content == item.content
    posted = admin_client.post(
        "/api/raft-items/",
        {"raft": "ops", "name": "other.sh", "kind": "shell_script", "content": "a\r\nb\rc"},
        content_type="application/json",
    )
    assert posted.status_code == 201, posted.content
    assert raft.items.get(name="other.sh").content == "a\nb\nc"


def test_static_files_resolve_to_hashed_names_in_the_production_storage(tmp_path) -> None:
    [name] = shell(
        tmp_path,
        "from django.templatetags.static import static; print(static('otterweb/site.css'))",
    )
    assert re.fullmatch(r"/static/otterweb/site\.[0-9a-f]{12}\.css", name)


def test_favicon_redirects_to_the_products_icon(client) -> None:
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"].endswith("otterweb/otter.svg")


def test_accounts_offer_no_password_reset_by_mail(client) -> None:
    """OtterWeb sends no mail: a reset form would say "check your email" and send nothing."""
    assert client.get("/accounts/password_reset/").status_code == 404
    assert client.get("/accounts/login/").status_code == 200
