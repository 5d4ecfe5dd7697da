"""What stops or redirects a run: errors (catchable or not) and loop/module control."""

from __future__ import annotations

from engine.spans import Span


class ExecutionError(Exception):
    """A catchable error: the nearest `try` runs its `catch`; outside any `try` it ends the run
    with status error. ``span`` is where in the script it happened."""

    def __init__(self, message: str, span: Span | None = None, *, logged: bool = False):
        super().__init__(message)
        self.message = message
        self.span = span
        # whether the error was already written to the log (operations log their own failures)
        self.logged = logged

    def where(self) -> str:
        return f" (line {self.span.line}, column {self.span.column})" if self.span else ""


class FatalError(ExecutionError):
    """`fail`, a lock inside a lock, a misplaced global declaration: no `catch` runs."""


class Cancelled(FatalError):
    """The run was cancelled."""


class LoopControl(Exception):
    """`break` or `continue`, travelling to the enclosing loop."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


class ModuleReturn(Exception):
    """`return`, travelling to the module or script that is running."""


def unexpected(error: Exception) -> str:
    """The message of an exception no part of the engine expected."""
    if isinstance(error, RecursionError):
        return "the script nests too deeply to run (Python's recursion limit)"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
