"""The SSH agent: processes and files on a Linux (POSIX) server over SSH and SFTP, with asyncssh.

One connection per server and execution (``SshConnections``, in connections.py), shared by
every operation that runs there, with many channels on it at once, up to what OpenSSH allows by
default (``SshAgent``, in agent.py). Host keys are checked against the ones the host trusts,
never skipped (keys.py): an unknown key is refused with its fingerprint (``HostKeyUntrusted``)
unless the host trusts on first use, and a different key is refused with both fingerprints
(``HostKeyChanged``). ``probe`` is the server check."""

from engine.agents.ssh.agent import COMMAND_CHANNELS, KILL_GRACE_SECONDS, Connection, SshAgent
from engine.agents.ssh.connections import HostKeyHandler, SshConnections, probe
from engine.agents.ssh.keys import (
    HostKeyChanged,
    HostKeyUntrusted,
    fingerprint,
    key_line,
    known_host_keys,
    known_hosts_name,
)
from engine.agents.ssh.target import ServerFacts, SshTarget

__all__ = [
    "COMMAND_CHANNELS",
    "KILL_GRACE_SECONDS",
    "Connection",
    "HostKeyChanged",
    "HostKeyHandler",
    "HostKeyUntrusted",
    "ServerFacts",
    "SshAgent",
    "SshConnections",
    "SshTarget",
    "fingerprint",
    "key_line",
    "known_host_keys",
    "known_hosts_name",
    "probe",
]
