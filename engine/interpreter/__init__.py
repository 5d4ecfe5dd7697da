"""The OtterScript interpreter."""

from engine.interpreter.executor import (
    Difference,
    Drift,
    Execution,
    ExecutionResult,
    Mode,
    RunState,
    Status,
)
from engine.interpreter.host import Credential, Host, LockProvider, StandaloneHost
from engine.interpreter.logs import Level, ListSink, LogRecord, LogScope, LogSink, NullSink


async def run(
    script,
    *,
    host: Host,
    mode: Mode | str = Mode.EXECUTE,
    simulate: bool = False,
    variables: dict | None = None,
) -> ExecutionResult:
    """Run a parsed script against ``host``; the result has its status, drift and duration. To
    cancel a run, make an ``Execution`` and call its ``cancel()``."""
    return await Execution(
        script, host=host, mode=mode, simulate=simulate, variables=variables
    ).run()


__all__ = [
    "Credential", "Difference", "Drift", "Execution", "ExecutionResult", "Host", "Level", "ListSink",
    "LockProvider", "LogRecord", "LogScope", "LogSink", "Mode", "NullSink", "RunState", "StandaloneHost", "Status", "run",
]  # fmt: skip
