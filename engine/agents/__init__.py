"""Agents: how operations reach the server in context. Operations use only this interface, so
the same operation runs on the local machine or, through the SSH agent, on any server."""

from engine.agents.base import Agent, AgentError, FileInfo, HttpAnswer, HttpRequest
from engine.agents.local import LocalAgent
from engine.agents.ssh import (
    HostKeyChanged,
    HostKeyUntrusted,
    ServerFacts,
    SshAgent,
    SshConnections,
    SshTarget,
    fingerprint,
    probe,
)

__all__ = [
    "Agent",
    "AgentError",
    "FileInfo",
    "HostKeyChanged",
    "HostKeyUntrusted",
    "HttpAnswer",
    "HttpRequest",
    "LocalAgent",
    "ServerFacts",
    "SshAgent",
    "SshConnections",
    "SshTarget",
    "fingerprint",
    "probe",
]
