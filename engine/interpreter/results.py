"""What a run ends with: its status, the drift it found and how long it took; and the modes a run
can be in."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any


class Mode(StrEnum):
    COLLECT = "collect"
    COLLECT_EXECUTE = "collect-execute"
    EXECUTE = "execute"


class Status(IntEnum):
    NORMAL = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


class RunState(StrEnum):
    PENDING = "pending"
    EXECUTING = "executing"
    COMPLETED = "completed"


@dataclass(frozen=True)
class Difference:
    property: str
    expected: Any
    actual: Any


@dataclass(frozen=True)
class Drift:
    server: str
    operation: str
    line: int | None
    differences: tuple[Difference, ...]


@dataclass
class ExecutionResult:
    status: Status
    drifted: list[Drift]
    duration: float
    error: str | None = None
    cancelled: bool = False
