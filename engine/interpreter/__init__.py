"""The OtterScript interpreter."""

from collections.abc import Sequence

from engine.interpreter.executor import ScriptRun, for_targets
from engine.interpreter.host import (
    CredentialRefused,
    Host,
    LockProvider,
    RunCredential,
    StandaloneHost,
)
from engine.interpreter.logs import MASK, Level, ListSink, LogRecord, LogSink, NullSink, RunScope
from engine.interpreter.results import Difference, Drift, ExecutionResult, Mode, RunState, Status


async def run(
    script,
    *,
    host: Host,
    mode: Mode | str = Mode.EXECUTE,
    simulate: bool = False,
    variables: dict | None = None,
    targets: Sequence[str] = (),
) -> ExecutionResult:
    """Run a parsed script against ``host`` (on every server of ``targets`` at once, when given);
    the result has its status, drift and duration. To cancel a run, make a ``ScriptRun`` and
    call its ``cancel()``."""
    return await ScriptRun(
        script, host=host, mode=mode, simulate=simulate, variables=variables, targets=targets
    ).run()


__all__ = [
    "MASK",
    "CredentialRefused",
    "Difference",
    "Drift",
    "ExecutionResult",
    "Host",
    "Level",
    "ListSink",
    "LockProvider",
    "LogRecord",
    "LogSink",
    "Mode",
    "NullSink",
    "RunCredential",
    "RunScope",
    "RunState",
    "ScriptRun",
    "StandaloneHost",
    "Status",
    "for_targets",
    "run",
]
