"""Real OpenSSH servers on 127.0.0.1 for the SSH agent's tests and bench/fanout.py.

``SshdCluster(count, folder)`` starts enough sshd instances (one listens on at most 16 ports) for
``count`` servers, each server one port. Everything is in ``folder``: each daemon's config, host
key, log and pid file, the client's key, the authorized keys and the known hosts. Commands run
with HOME at a clean folder (``SetEnv``), so no shell start-up file (root's ``pyenv init`` on
these machines) slows them down.

Run as root (as here and in CI), the servers log in a test user, ``TEST_USER``, made once with a
password (``TEST_PASSWORD``) and a clean home; otherwise the current user, by key only.

    python -m tests.sshd 10      # start 10 servers, print them, stop on Ctrl-C
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = "/usr/sbin/sshd"
# the daemons stop with the test process that started them, even one that was killed
DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "TERM", "--"] if shutil.which("setpriv") else []
PORTS_PER_DAEMON = 15  # sshd listens on 16 addresses at most
TEST_USER = "otterweb-ssh"
TEST_PASSWORD = "otter-Test-password-1"


@dataclass(frozen=True)
class TestServer:
    name: str
    address: str
    port: int
    user: str
    host_key: str  # the server's public host key, as in known_hosts: "ssh-ed25519 AAAA..."

    @property
    def url(self) -> str:
        return f"ssh://{self.user}@{self.address}:{self.port}"


def free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            handle = socket.socket()
            handle.bind(("127.0.0.1", 0))
            sockets.append(handle)
        return [handle.getsockname()[1] for handle in sockets]
    finally:
        for handle in sockets:
            handle.close()


def answers_ssh(address: str, port: int) -> bool:
    """Whether an SSH server greets on ``address:port``."""
    with (
        contextlib.suppress(OSError),
        socket.create_connection((address, port), timeout=1) as connection,
    ):
        return connection.recv(4).startswith(b"SSH-")
    return False


def keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
        check=True,
    )
    return path.with_suffix(".pub").read_text().strip()


def _test_user() -> str:
    """The user the servers log in: the test user (made when missing, password set) as root.
    One process at a time (pytest-xdist's workers, other runs): useradd and chpasswd fail on
    the account files another one holds locked."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid()).pw_name
    with open(Path(tempfile.gettempdir()) / "otterweb-ssh-user.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            pwd.getpwnam(TEST_USER)
        except KeyError:
            subprocess.run(
                ["useradd", "--create-home", "--shell", "/bin/bash", TEST_USER],
                check=True,
            )
        subprocess.run(["chpasswd"], input=f"{TEST_USER}:{TEST_PASSWORD}", text=True, check=True)
    return TEST_USER


class SshdCluster:
    def __init__(self, count: int, folder: str | os.PathLike, *, max_sessions: int = 10) -> None:
        if not os.access(SSHD, os.X_OK):
            raise RuntimeError(f"{SSHD} is missing: scripts/services start installs openssh-server")
        self.folder = Path(folder)
        self.user = _test_user()
        self.password = TEST_PASSWORD if self.user == TEST_USER else None
        self.home = self.folder / "home"
        self.client_key = self.folder / "client_ed25519"
        self.known_hosts = self.folder / "known_hosts"
        self.servers: list[TestServer] = []
        self._daemons: list[subprocess.Popen] = []
        self._asyncssh_key = None  # the client key, read for `connect`
        self._start(count, max_sessions)

    def _start(self, count: int, max_sessions: int) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o755)
        self.home.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.home, self.user)
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation
        authorized = self.folder / "authorized_keys"
        authorized.write_text(keygen(self.client_key) + "\n")
        authorized.chmod(0o644)
        known = []
        for first in range(0, count, PORTS_PER_DAEMON):
            number = len(self._daemons)
            daemon = self.folder / f"sshd{number}"
            daemon.mkdir(exist_ok=True)
            host_key = keygen(daemon / "host_ed25519")
            ports = free_ports(min(PORTS_PER_DAEMON, count - first))
            config = daemon / "sshd_config"
            config.write_text(
                "".join(f"ListenAddress 127.0.0.1:{port}\n" for port in ports)
                + f"HostKey {daemon / 'host_ed25519'}\n"
                f"PidFile {daemon / 'sshd.pid'}\n"
                f"AuthorizedKeysFile {authorized}\n"
                f"AllowUsers {self.user}\n"
                "PasswordAuthentication yes\n"
                "KbdInteractiveAuthentication no\n"
                "UsePAM no\n"
                "PermitRootLogin no\n"
                "StrictModes no\n"
                "UseDNS no\n"
                f"MaxSessions {max_sessions}\n"
                "MaxStartups 200\n"
                f"SetEnv HOME={self.home}\n"
                "Subsystem sftp internal-sftp\n"
                "LogLevel INFO\n"
            )
            log = open(daemon / "sshd.log", "ab")  # noqa: SIM115 (the daemon writes it)
            self._daemons.append(
                subprocess.Popen(
                    [*DIE_WITH_PARENT, SSHD, "-D", "-e", "-f", str(config)], stderr=log, stdout=log
                )
            )
            for port in ports:
                name = f"ssh{len(self.servers) + 1}"
                self.servers.append(TestServer(name, "127.0.0.1", port, self.user, host_key))
                known.append(f"[127.0.0.1]:{port} {host_key}")
        self.known_hosts.write_text("\n".join(known) + "\n")
        self._wait()

    def _wait(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        for server in self.servers:
            while not answers_ssh(server.address, server.port):
                if time.monotonic() > deadline or any(d.poll() is not None for d in self._daemons):
                    self.stop()
                    raise RuntimeError(
                        f"sshd did not answer on {server.address}:{server.port}; "
                        f"see the logs in {self.folder}/sshd*/sshd.log"
                    )
                time.sleep(0.05)

    def target(self, index: int = 0, **changes):
        """How the engine reaches server ``index`` by key, its host key trusted (an
        ``engine.SshTarget``; ``changes`` replace its fields)."""
        from engine import SshTarget

        server = self.servers[index]
        fields = {
            "server": server.name,
            "address": server.address,
            "port": server.port,
            "user": server.user,
            "private_key": self.client_key.read_text(),
            "trusted_host_keys": (server.host_key,),
        }
        fields.update(changes)
        return SshTarget(**fields)

    def connect(self, server: TestServer):
        """A plain asyncssh connection to ``server`` by key, its host key trusted, with no SSH
        agent or config file: the floor the benchmarks hold OtterWeb to."""
        import asyncssh

        if self._asyncssh_key is None:
            self._asyncssh_key = asyncssh.import_private_key(self.client_key.read_text())
        return asyncssh.connect(
            server.address,
            server.port,
            username=server.user,
            client_keys=[self._asyncssh_key],
            known_hosts=([asyncssh.import_public_key(server.host_key)], [], []),
            agent_path=None,
            config=None,
        )

    def stop(self) -> None:
        for daemon in self._daemons:
            daemon.terminate()
        for daemon in self._daemons:
            try:
                daemon.wait(5)
            except subprocess.TimeoutExpired:
                daemon.kill()
        self._daemons.clear()

    def __enter__(self) -> SshdCluster:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder, SshdCluster(int(sys.argv[1]), folder) as cluster:
        print(f"client key: {cluster.client_key}\nknown hosts: {cluster.known_hosts}")
        for server in cluster.servers:
            print(server.name, server.url)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
