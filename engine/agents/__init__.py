"""Agents: how operations reach the server in context. Operations use only this interface, so
the same operation runs on the local machine or, through the SSH agent, on any server."""

from engine.agents.base import Agent, AgentError, FileInfo
from engine.agents.local import LocalAgent

__all__ = ["Agent", "AgentError", "FileInfo", "LocalAgent"]
