"""Where and how to reach a server over SSH, and what a check of it found."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.inventory import Inventory


@dataclass(frozen=True)
class SshTarget:
    """How to reach one server: where, as whom, and which host keys to trust."""

    server: str  # the server's name, in every message
    address: str
    port: int = 22
    user: str = ""
    # the secrets stay out of the target's repr, so that no log or traceback shows them
    password: str | None = field(default=None, repr=False)
    private_key: str | None = field(default=None, repr=False)  # the key's text, never a path
    passphrase: str | None = field(default=None, repr=False)
    trusted_host_keys: tuple[str, ...] = ()  # "ssh-ed25519 AAAA... [comment]" lines
    trust_on_first_use: bool = False
    sudo: bool = False  # commands (not SFTP) run through `sudo -n`
    connect_timeout: float = 10.0
    keepalive_interval: float = 15.0

    @property
    def where(self) -> str:
        return f"{self.server} ({self.address}:{self.port})"


@dataclass(frozen=True)
class ServerFacts:
    """What a check of a server found."""

    latency_ms: float  # connecting, logging in and one command
    host_key: str
    os_name: str  # PRETTY_NAME of /etc/os-release ("" when there is none)
    kernel: str  # uname -srm
    inventory: Inventory | None = None  # None when the server did not answer the inventory script


def reason(error: BaseException) -> str:
    """What went wrong, in the words of asyncssh or the operating system."""
    return str(getattr(error, "reason", "") or getattr(error, "strerror", "") or error)
