"""The OtterScript interpreter."""

from collections.abc import Sequence

from engine.interpreter.executor import ScriptRun, for_targets
from engine.interpreter.host import (
    CREDENTIAL_KINDS,
    PASSWORD,
    PRIVATE_KEY,
    SSH_CREDENTIAL_KINDS,
    TOKEN,
    CredentialRefused,
    Host,
    LockProvider,
    RunCredential,
    StandaloneHost,
    check_credential_kind,
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
    "CREDENTIAL_KINDS",
    "MASK",
    "PASSWORD",
    "PRIVATE_KEY",
    "SSH_CREDENTIAL_KINDS",
    "TOKEN",
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
    "check_credential_kind",
    "for_targets",
    "run",
]
