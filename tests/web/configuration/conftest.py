"""Fixtures of the configuration tests: roles whose desired state is a file in a temporary
folder, on servers of the local agent, checked and remediated by real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from otterweb.configuration.models import Check, ConfigurationRun
from otterweb.executions.models import Execution
from otterweb.executions.runner import run_execution
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts import services as rafts
from otterweb.rafts.models import RaftItem


class Desired:
    """Makes roles with configurations, and servers with roles, and runs what they start."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.raft = rafts.create_raft(name="config")

    def role(self, name: str, script: str, *, needs=(), remediation: str = "report") -> Role:
        item = rafts.create_item(
            raft=self.raft, name=f"{name}-config", kind=RaftItem.Kind.SCRIPT, content=script
        )
        return inventory.save_role(
            name=name, dependencies=list(needs), configuration=item, remediation=remediation
        )

    def file_role(self, name: str, text: str = "hello", **options) -> Role:
        """A role that wants ``<folder>/<server>-<name>.txt`` to hold ``text``."""
        script = f"Ensure-File {self.folder}/$ServerName-{name}.txt\n(\n    Text: {text}\n);\n"
        return self.role(name, script, **options)

    def server(self, name: str, *roles: Role, environments=(), remediation: str = "") -> Server:
        return inventory.save_server(
            name=name,
            roles=roles,
            environments=list(environments),
            remediation=remediation,
        )

    def environment(self, name: str, parent: Environment | None = None) -> Environment:
        return inventory.save_environment(name=name, parent=parent)

    def path(self, server: str, role: str) -> Path:
        return self.folder / f"{server}-{role}.txt"

    @staticmethod
    def run(executions: list[Execution]) -> list[Execution]:
        """Run ``executions`` to their end, here; the executions they started after, too."""
        done = []
        for execution in executions:
            run_execution(execution.pk, worker="test")
            execution.refresh_from_db()
            done.append(execution)
        return done

    @staticmethod
    def pending_runs() -> list[Execution]:
        return list(Execution.objects.filter(run_state=Execution.RunState.PENDING).order_by("pk"))

    @staticmethod
    def last_check(server: Server) -> Check:
        return Check.objects.filter(server=server, finished=True).order_by("-pk").first()

    @staticmethod
    def runs(purpose: str) -> list[ConfigurationRun]:
        return list(ConfigurationRun.objects.filter(purpose=purpose).order_by("pk"))


@pytest.fixture
def desired(transactional_db, tmp_path) -> Desired:
    return Desired(tmp_path)
