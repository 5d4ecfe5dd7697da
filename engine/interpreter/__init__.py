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

__all__ = [
    "Credential", "Difference", "Drift", "Execution", "ExecutionResult", "Host", "Level", "ListSink",
    "LockProvider", "LogRecord", "LogScope", "LogSink", "Mode", "NullSink", "RunState", "StandaloneHost", "Status",
]  # fmt: skip
