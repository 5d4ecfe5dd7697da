"""The execution modes as one policy: what each operation does in the pass that runs (collect
its state, compare it, change it, or say why not), and the drift found while collecting.

In collect-execute mode the script runs twice: a collect pass, then, when anything drifted, an
execute pass. An ensure operation runs in it when it drifted itself; an execute operation when
an ensure operation of its block drifted (or the block says executionPolicy=always).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine import ast
from engine.interpreter.context import line_of
from engine.interpreter.results import Difference, Drift, Mode
from engine.registry import Kind


class Action(Enum):
    SIMULATE = "simulate"  # say what it would do, and do nothing
    COLLECT = "collect"  # read the state (a collect operation, in every mode)
    COMPARE = "compare"  # read the state and record how it drifted from the desired one
    EXECUTE = "execute"  # make the change
    SKIP = "skip"  # not in this pass: the step's reason says why


@dataclass(frozen=True, slots=True)
class Step:
    action: Action
    reason: str = ""  # of a skip: a debug line, where {summary} is the operation's


SIMULATE = Step(Action.SIMULATE)
COLLECT = Step(Action.COLLECT)
COMPARE = Step(Action.COMPARE)
EXECUTE = Step(Action.EXECUTE)
NOT_WHILE_COLLECTING = Step(Action.SKIP, "Not run while collecting: {summary}.")
NOT_DRIFTED = Step(Action.SKIP, "No drift was found here: nothing to change.")
BLOCK_NOT_DRIFTED = Step(Action.SKIP, "Not run: nothing in its block drifted.")


@dataclass(frozen=True, slots=True)
class Place:
    """One run of an operation statement: on a server, for the items of the enclosing loops."""

    statement: ast.Statement
    server: str
    iteration: tuple[int, ...]


class Ledger:
    """The mode, the pass that runs, and the drift found: what decides each operation's step."""

    __slots__ = ("_drifted_blocks", "_enclosing_block", "collecting", "drift", "mode", "simulate")

    def __init__(self, mode: Mode, *, simulate: bool, body: ast.Body) -> None:
        self.mode = mode
        self.simulate = simulate
        self.collecting = False  # the pass that runs: collect, or else execute
        self.drift: dict[tuple, Drift] = {}  # by the place of the ensure operation that drifted
        self._drifted_blocks: set[tuple] = set()
        self._enclosing_block: dict[int, int] = _enclosing_blocks(body)

    def add_body(self, body: ast.Body) -> None:
        """Learn the blocks of statements run from elsewhere (a raft's module)."""
        self._enclosing_block.update(_enclosing_blocks(body))

    def step(self, kind: Kind, place: Place, *, always_execute: bool) -> Step:
        """What an operation of ``kind`` does at ``place`` in this pass."""
        if self.simulate:
            return SIMULATE
        if kind == Kind.COLLECT:
            return COLLECT
        # in the execute pass of collect-execute, only what drifted runs
        remediating = self.mode == Mode.COLLECT_EXECUTE and not always_execute
        if kind == Kind.ENSURE:
            if self.collecting:
                return COMPARE
            if remediating and _operation_key(place) not in self.drift:
                return NOT_DRIFTED
            return EXECUTE
        if self.collecting:
            return NOT_WHILE_COLLECTING
        if remediating and self._block_key(place) not in self._drifted_blocks:
            return BLOCK_NOT_DRIFTED
        return EXECUTE

    def compare(
        self, place: Place, summary: str, desired: dict[str, Any], actual: dict[str, Any]
    ) -> tuple[Difference, ...]:
        """How the state ``actual`` differs from ``desired``; a difference is recorded as drift
        of the operation and of its block."""
        differences = tuple(_differences(desired, actual))
        if differences:
            drift = Drift(place.server, summary, line_of(place.statement), differences)
            self.drift[_operation_key(place)] = drift
            self._drifted_blocks.add(self._block_key(place))
        return differences

    def _block_key(self, place: Place) -> tuple:
        """The body the operation stands in, on the server, for the loop items: "the same
        scope" of an execute operation."""
        return (self._enclosing_block.get(id(place.statement)), place.server, place.iteration)


def _operation_key(place: Place) -> tuple:
    return (id(place.statement), place.server, place.iteration)


def _enclosing_blocks(body: ast.Body) -> dict[int, int]:
    """Statement id -> the id of the body it stands in, for every statement below ``body``."""
    found: dict[int, int] = {}
    pending = [body]
    while pending:
        statements = pending.pop()
        for statement in statements:
            found[id(statement)] = id(statements)
            for name in ast.BODY_FIELDS.get(type(statement), ()):
                inner = getattr(statement, name)
                if inner:
                    pending.append(inner)
            if isinstance(statement, ast.If):
                pending.extend(clause.body for clause in statement.else_ifs if clause.body)
    return found


def _differences(desired: dict[str, Any], actual: dict[str, Any]) -> list[Difference]:
    differences = []
    for name, expected in desired.items():
        if expected is None:
            continue
        current = actual.get(name)
        if _normalized(expected) != _normalized(current):
            differences.append(Difference(name, expected, current))
    return differences


def _normalized(value: Any) -> Any:
    return value.replace("\r\n", "\n") if isinstance(value, str) else value
