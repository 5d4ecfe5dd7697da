"""Host keys: fingerprints as ssh-keygen shows them, OpenSSH's known_hosts files, the key types
to ask a server for, and the errors of a key not yet trusted or changed."""

from __future__ import annotations

import base64
import hashlib
import hmac

import asyncssh
from asyncssh.public_key import get_default_public_key_algs, get_public_key_algs

from engine.agents.base import AgentError
from engine.agents.ssh.target import SshTarget

# The host key types asked for when no key of a server is trusted yet, best first (OpenSSH's
# own order): the key trusted at first contact is the server's Ed25519 key when it has one.
HOST_KEY_PREFERENCE = (
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "rsa-sha2-512",
    "rsa-sha2-256",
)


def key_line(key: asyncssh.SSHKey) -> str:
    """A public key as a known_hosts line's key part: ``ssh-ed25519 AAAA...``."""
    return " ".join(key.export_public_key("openssh").decode("ascii").split()[:2])


def fingerprint(public_key_line: str) -> str:
    """``SHA256:...``, as ``ssh-keygen -l`` shows a key."""
    try:
        blob = base64.b64decode(public_key_line.split()[1], validate=True)
    except (IndexError, ValueError):
        raise ValueError(f"'{public_key_line[:40]}' is not an OpenSSH public key") from None
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def known_hosts_name(address: str, port: int) -> str:
    """How OpenSSH's known_hosts names a server: ``host``, or ``[host]:port`` off port 22."""
    return address if port == 22 else f"[{address}]:{port}"


def known_host_keys(text: str, address: str, port: int) -> tuple[str, ...]:
    """The keys an OpenSSH known_hosts file trusts for ``address``:``port`` (hashed names
    too; ``@cert-authority`` and ``@revoked`` lines are not keys of a host and are skipped)."""
    name = known_hosts_name(address, port)
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@")):
            continue
        if any(_names(pattern, name) for pattern in fields[0].split(",")):
            found.append(" ".join(fields[1:3]))
    return tuple(found)


def _names(pattern: str, name: str) -> bool:
    if not pattern.startswith("|1|"):
        return pattern == name
    try:
        salt, digest = (base64.b64decode(part) for part in pattern[3:].split("|", 1))
    except ValueError:
        return False
    return hmac.compare_digest(hmac.new(salt, name.encode(), hashlib.sha1).digest(), digest)


def host_key_algorithms(trusted: list[asyncssh.SSHKey]) -> list[str]:
    """The trusted keys' types first, so that a server with several keys shows a trusted one;
    then every other type, so that a server with none of the trusted types is found changed
    (asyncssh would otherwise ask only for the trusted types, and the handshake would fail)."""
    known = {name.decode() for name in get_public_key_algs()}
    wanted = [name.decode() for key in trusted for name in key.sig_algorithms]
    wanted += HOST_KEY_PREFERENCE
    wanted += [name.decode() for name in get_default_public_key_algs()]
    return [name for name in dict.fromkeys(wanted) if name in known]


class HostKeyUntrusted(AgentError):
    """The server offered a key, and no key of it is trusted yet."""

    def __init__(self, target: SshTarget, offered: str) -> None:
        self.offered = offered
        self.fingerprint = fingerprint(offered)
        super().__init__(
            f"the host key of {target.where} is not trusted yet: it offered "
            f"{offered.split()[0]} {self.fingerprint}. Check that fingerprint on the server "
            "(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and trust it, then run again"
        )


class HostKeyChanged(AgentError):
    """The server offered a key other than the ones trusted: another machine, or a reinstall."""

    def __init__(self, target: SshTarget, offered: str) -> None:
        self.offered = offered
        self.fingerprint = fingerprint(offered)
        self.trusted_fingerprints = tuple(fingerprint(k) for k in target.trusted_host_keys)
        super().__init__(
            f"the host key of {target.where} has changed: it offered {self.fingerprint}, and "
            f"the trusted key is {', '.join(self.trusted_fingerprints)}. Nothing was run. If "
            "the server was reinstalled, forget its old key and trust the new one"
        )
