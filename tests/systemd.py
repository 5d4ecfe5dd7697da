"""A real systemd for the service operations' tests: this machine's own systemd, booted by
``systemd-nspawn`` in a container whose root file system the test makes, reached over SSH.

The container's root is a folder of the test's: the machine's ``/usr`` bound into it read-only
(Debian's merged /usr holds every program, systemd and sshd among them), and an ``/etc``, ``/var``
and ``/root`` of its own, written here: no unit is enabled but an sshd that lets root in by key
on 127.0.0.1, for root and for a user with sudo. The container shares the machine's network (so that the sshd listens on its
loopback) and nothing else: its systemd cleans and mounts only what is inside the folder, never
the machine's ``/tmp`` (booted in the machine's own root, it emptied it). Booting takes about a
second.

    python -m tests.systemd      # boot one, print how to reach it, stop on Ctrl-C
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from tests.sshd import DIE_WITH_PARENT, answers_ssh, free_ports, keygen

NSPAWN = "/usr/bin/systemd-nspawn"
# The account files the container starts with (root's and sshd's, for privilege separation),
# and what sudo reads.
ACCOUNT_FILES = ("passwd", "group", "shadow", "gshadow")
SUDO_FILES = ("pam.d", "security", "sudo.conf")
# The user who is let in too, and may run anything as root with `sudo -n`.
SUDO_USER = "otterops"
SUDO_UID = 4242
MERGED_USR = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
SSHD_UNIT = """\
[Unit]
Description=OpenSSH for OtterWeb's tests
After=basic.target

[Service]
ExecStart=/usr/sbin/sshd -D -e -f /etc/ssh/sshd_config
RuntimeDirectory=sshd
RuntimeDirectoryMode=0755

[Install]
WantedBy=multi-user.target
"""


class SystemdMachine:
    """One container running systemd as its PID 1, with an sshd on 127.0.0.1:``port`` that
    lets in ``root`` and ``SUDO_USER`` with ``client_key``; ``stop()`` powers it off."""

    def __init__(self, folder: str | os.PathLike) -> None:
        if not os.access(NSPAWN, os.X_OK):
            raise RuntimeError(
                f"{NSPAWN} is missing: scripts/services start installs systemd-container"
            )
        if os.geteuid() != 0:
            raise RuntimeError("systemd-nspawn boots a container as root only")
        self.folder = Path(folder)
        self.root = self.folder / "root"
        self.name = f"otterweb-{uuid.uuid4().hex[:8]}"
        self.client_key = self.folder / "client_ed25519"
        self.port = free_ports(1)[0]
        self.log = self.folder / "boot.log"
        self._make_root()
        log = open(self.log, "ab")  # noqa: SIM115 (the container writes it)
        self._process = subprocess.Popen(
            [
                *DIE_WITH_PARENT,
                NSPAWN,
                f"--directory={self.root}",
                f"--machine={self.name}",
                "--bind-ro=/usr",
                "--register=no",  # the machine runs no machined, nor a systemd to make a scope
                "--keep-unit",
                "--console=passive",
                "--boot",
            ],
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
        )
        self._wait()

    def _make_root(self) -> None:
        root = self.root
        for folder in ("usr", "etc/ssh", "etc/systemd/system/multi-user.target.wants", "var"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        for folder in ("root", "tmp", "run", "proc", "sys", "dev", "home"):
            (root / folder).mkdir(exist_ok=True)
        (root / "root").chmod(0o700)
        for link, target in MERGED_USR.items():
            (root / link).symlink_to(target)
        etc = root / "etc"
        shutil.copy2("/usr/lib/os-release", etc / "os-release")  # nspawn reads it before /usr
        (etc / "machine-id").write_text(uuid.uuid4().hex + "\n")  # not a first boot: no presets
        (etc / "hostname").write_text(self.name + "\n")
        (etc / "hosts").write_text(f"127.0.0.1\tlocalhost {self.name}\n")
        for name in (*ACCOUNT_FILES, *SUDO_FILES, "nsswitch.conf", "shells", "login.defs"):
            source = Path("/etc") / name
            if source.is_dir():
                shutil.copytree(source, etc / name, symlinks=True)
            elif source.exists():
                shutil.copy2(source, etc / name)
        units = etc / "systemd" / "system"
        (units / "default.target").symlink_to("/usr/lib/systemd/system/multi-user.target")
        (units / "otterweb-sshd.service").write_text(SSHD_UNIT)
        (units / "multi-user.target.wants" / "otterweb-sshd.service").symlink_to(
            "../otterweb-sshd.service"
        )
        self.host_key = keygen(etc / "ssh" / "ssh_host_ed25519_key")
        client_key = keygen(self.client_key) + "\n"
        authorized = root / "root" / ".ssh" / "authorized_keys"
        authorized.parent.mkdir(mode=0o700)
        authorized.write_text(client_key)
        self._add_sudo_user(client_key)
        (etc / "ssh" / "sshd_config").write_text(
            f"ListenAddress 127.0.0.1:{self.port}\n"
            "HostKey /etc/ssh/ssh_host_ed25519_key\n"
            "PermitRootLogin prohibit-password\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "UsePAM no\n"
            "UseDNS no\n"
            "Subsystem sftp internal-sftp\n"
        )

    def _add_sudo_user(self, client_key: str) -> None:
        etc, home = self.root / "etc", self.root / "home" / SUDO_USER
        with open(etc / "passwd", "a") as passwd:
            passwd.write(f"{SUDO_USER}:x:{SUDO_UID}:{SUDO_UID}::/home/{SUDO_USER}:/bin/sh\n")
        with open(etc / "group", "a") as group:
            group.write(f"{SUDO_USER}:x:{SUDO_UID}:\n")
        with open(etc / "shadow", "a") as shadow:
            shadow.write(f"{SUDO_USER}:*:20000:0:99999:7:::\n")  # no password, not locked
        sudoers = etc / "sudoers"
        sudoers.write_text(f"root ALL=(ALL:ALL) ALL\n{SUDO_USER} ALL=(root) NOPASSWD: ALL\n")
        sudoers.chmod(0o440)
        (home / ".ssh").mkdir(parents=True)
        (home / ".ssh" / "authorized_keys").write_text(client_key)
        for path in (home, home / ".ssh", home / ".ssh" / "authorized_keys"):
            os.chown(path, SUDO_UID, SUDO_UID)

    def _wait(self, timeout: float = 60.0) -> None:
        """Until systemd has booted and the sshd answers."""
        deadline = time.monotonic() + timeout
        while not answers_ssh("127.0.0.1", self.port):
            if time.monotonic() > deadline or self._process.poll() is not None:
                self.stop()
                raise RuntimeError(
                    f"the container {self.name} did not boot to its sshd on 127.0.0.1:"
                    f"{self.port}: {self.log.read_text(errors='replace')[-3000:]}"
                )
            time.sleep(0.1)

    def target(self, **changes):
        """How the engine reaches the container as root by key (an ``engine.SshTarget``;
        ``changes`` replace its fields: ``user=SUDO_USER, sudo=True``)."""
        from engine import SshTarget

        fields = {
            "server": self.name,
            "address": "127.0.0.1",
            "port": self.port,
            "user": "root",
            "private_key": self.client_key.read_text(),
            "trusted_host_keys": (self.host_key,),
        }
        fields.update(changes)
        return SshTarget(**fields)

    def shell(self, command: str) -> str:
        """What ``command`` prints, run as root in the container by OpenSSH's own client (not
        the engine's): how the tests see the container's state for themselves."""
        known_hosts = self.folder / "known_hosts"
        known_hosts.write_text(f"[127.0.0.1]:{self.port} {self.host_key}\n")
        return subprocess.run(
            [
                "ssh",
                "-F",
                "none",
                "-o",
                f"UserKnownHostsFile={known_hosts}",
                "-o",
                "BatchMode=yes",
                "-i",
                str(self.client_key),
                "-p",
                str(self.port),
                "root@127.0.0.1",
                command,
            ],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout

    def stop(self) -> None:
        """Powers the container off (nspawn asks its systemd to), killed if it takes over 20 s."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(20)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> SystemdMachine:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


if __name__ == "__main__":
    with (
        tempfile.TemporaryDirectory() as folder,
        SystemdMachine(folder) as machine,
    ):
        print(f"ssh -i {machine.client_key} -p {machine.port} root@127.0.0.1  ({machine.name})")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
