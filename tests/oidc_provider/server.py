"""Runs the test OpenID Connect provider (this folder's Django site) as its own process.

``OidcProvider(folder)``: a free port of 127.0.0.1, an RSA key generated now (owner-only, in
``folder``), a migrated database with one user (``USERNAME``, in the groups ``GROUPS``), then
Django's server in the foreground of a child process that stops with the test process.
``register(redirect_uri)`` makes OtterWeb its confidential client (authorization code, RS256,
consent asked); ``settings()`` is OtterWeb's OTTERWEB_OIDC_* environment for it.

    python -m tests.oidc_provider.server http://127.0.0.1:8000/accounts/oidc/callback/
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.children import ChildServer, free_port

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID = "otterweb-tests"
CLIENT_SECRET = "otterweb-tests-client-secret"
USERNAME = "dana"
PASSWORD = "dana-Password-1"
GROUPS = ("platform-team", "auditors")
PROVIDER_NAME = "Test Identity Provider"

SEED = f"""
from django.contrib.auth.models import Group, User
user = User.objects.create_user({USERNAME!r}, password={PASSWORD!r}, email="dana@provider.test",
                                first_name="Dana", last_name="Scully")
for name in {GROUPS!r}:
    user.groups.add(Group.objects.create(name=name))
"""

REGISTER = """
from oauth2_provider.models import Application
Application.objects.update_or_create(
    client_id={client_id!r},
    defaults=dict(
        name="OtterWeb", client_secret={client_secret!r}, redirect_uris={redirect_uri!r},
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        algorithm=Application.RS256_ALGORITHM, skip_authorization=False,
    ),
)
"""


def _rsa_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


class OidcProvider(ChildServer):
    name = "the OIDC provider"

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.issuer = f"{self.base}/o"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
            "OIDC_PROVIDER_DATA": str(self.folder),
            "OIDC_PROVIDER_ISSUER": self.issuer,
        }

    def settings(self) -> dict[str, str]:
        """OtterWeb's environment for this provider: endpoints from its discovery document."""
        return {
            "OTTERWEB_OIDC_ISSUER": self.issuer,
            "OTTERWEB_OIDC_CLIENT_ID": CLIENT_ID,
            "OTTERWEB_OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "OTTERWEB_OIDC_SCOPES": "openid email profile groups",
            "OTTERWEB_OIDC_PROVIDER_NAME": PROVIDER_NAME,
        }

    def django(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "django", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise AssertionError(f"django-admin {args[0]} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def register(self, redirect_uri: str) -> None:
        self.django(
            "shell",
            "-c",
            REGISTER.format(
                client_id=CLIENT_ID, client_secret=CLIENT_SECRET, redirect_uri=redirect_uri
            ),
        )

    def start(self) -> OidcProvider:
        self.folder.mkdir(parents=True, exist_ok=True)
        key = self.folder / "oidc.key"
        key.write_text(_rsa_key())
        key.chmod(0o600)
        self.django("migrate", "--noinput", "--verbosity", "0")
        self.django("shell", "-c", SEED)
        address = f"127.0.0.1:{self.port}"
        self.launch(
            [sys.executable, "-m", "django", "runserver", "--noreload", "--skip-checks", address],
            self.folder / "provider.log",
            self.answers,
            cwd=ROOT,
            env=self.env,
        )
        return self

    def answers(self) -> bool:
        try:
            urllib.request.urlopen(f"{self.issuer}/.well-known/openid-configuration", timeout=1)
        except OSError:
            return False
        return True


if __name__ == "__main__":
    import contextlib
    import tempfile

    with (
        tempfile.TemporaryDirectory(prefix="otterweb-oidc-") as folder,
        OidcProvider(folder) as provider,
    ):
        provider.register(sys.argv[1])
        for name, value in provider.settings().items():
            print(f"{name}={value}")
        with contextlib.suppress(KeyboardInterrupt):
            provider.process.wait()
