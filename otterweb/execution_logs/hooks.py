"""What the log app asks of the executions app, which sits above it and whose executions the
logs are: whether a user may see an execution, its state, and keeping its counts of lines. The
executions app hands these down once, from its AppConfig.ready (``register``), so that nothing
here imports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured


class ExecutionState(Protocol):
    """An execution as its log's watchers see it (an executions.Execution is one)."""

    @property
    def pk(self) -> Any: ...

    @property
    def run_state(self) -> str: ...  # engine.RunState's value

    @property
    def status(self) -> str: ...

    @property
    def outcome(self) -> str: ...

    @property
    def outcome_label(self) -> str: ...

    @property
    def last_seq(self) -> int: ...  # the seq of the last stored entry

    @property
    def log_warnings(self) -> int: ...

    @property
    def log_errors(self) -> int: ...


@dataclass(frozen=True)
class Hooks:
    # (user=) -> whether the user may see executions at all (somewhere)
    may_view: Callable[..., bool]
    # (execution_id=, user=) -> the execution, if there is one and the user may see it
    find: Callable[..., ExecutionState | None]
    # (execution_id, last_seq=, lines=, warnings=, errors=): add a stored batch to the
    # execution's counts, in the transaction that stores it
    count: Callable[..., None]


_hooks: Hooks | None = None


def register(
    *,
    may_view: Callable[..., bool],
    find: Callable[..., ExecutionState | None],
    count: Callable[..., None],
) -> None:
    global _hooks
    _hooks = Hooks(may_view=may_view, find=find, count=count)


def _registered() -> Hooks:
    if _hooks is None:
        raise ImproperlyConfigured(
            "The execution logs have no executions: install otterweb.executions, which "
            "registers its hooks (otterweb.execution_logs.hooks.register) when it is ready."
        )
    return _hooks


def may_view(user) -> bool:
    """Whether ``user`` may see executions, and so their logs, anywhere."""
    return user is not None and user.is_authenticated and _registered().may_view(user=user)


def find(execution_id: int, user) -> ExecutionState | None:
    """The execution ``execution_id``, when there is one that ``user`` may see."""
    return _registered().find(execution_id=execution_id, user=user)


def count(execution_id: int, *, last_seq: int, lines: int, warnings: int, errors: int) -> None:
    """Add a stored batch to the execution's counts: its last seq, and how many lines,
    warnings and errors it stored."""
    _registered().count(
        execution_id, last_seq=last_seq, lines=lines, warnings=warnings, errors=errors
    )
