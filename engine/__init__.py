"""The OtterScript language: parser, formatter, checks, block conversion and interpreter.

This package never imports Django; the web application plugs in through the host interface and
imports only the names of ``__all__`` (a test holds it to that).

    script = parse(text)                    # OtterSyntaxError(.diagnostics) if it does not parse
    text = format_script(script)            # canonical text
    diagnostics = check(script)             # warnings and static errors
    workspace = to_blocks(script)           # Blockly workspace JSON
    script = from_blocks(workspace)
    result = await run(script, host=Host()) # status, drift, duration
"""

from engine.agents import (
    Agent,
    AgentError,
    HostKeyChanged,
    HostKeyUntrusted,
    LocalAgent,
    ServerFacts,
    SshConnections,
    SshTarget,
    fingerprint,
    probe,
)
from engine.agents.local import run_environment
from engine.ast import Script, called_modules, named_targets, targets_servers
from engine.blocks import (
    RAW,
    STATEMENT_TYPES,
    BlocksError,
    from_blocks,
    text_of_blocks,
    to_blocks,
)
from engine.checks import check
from engine.configuration import (
    CombinedPlan,
    PlanPart,
    combine_plan,
    remediation_outline,
)
from engine.errors import Diagnostic, OtterError, OtterSyntaxError
from engine.formatter import format_script
from engine.interpreter import (
    CREDENTIAL_KINDS,
    MASK,
    SSH_CREDENTIAL_KINDS,
    CredentialRefused,
    ExecutionResult,
    Host,
    Level,
    LockProvider,
    LogRecord,
    Mode,
    RunCredential,
    RunScope,
    RunState,
    ScriptRun,
    check_credential_kind,
    run,
)
from engine.inventory import Inventory, inventory_script, read_inventory
from engine.json_text import json_dumps, json_loads
from engine.json_values import from_json_value
from engine.limits import MAX_NESTING, allow_deep_recursion
from engine.mail import SmtpServer
from engine.packages import Manager, Package, compare_versions
from engine.parser import parse
from engine.patterns import PatternError, PatternTimeout
from engine.patterns import compile as compile_pattern
from engine.patterns import escape as escape_pattern
from engine.registry import REGISTRY, FunctionSpec, OperationSpec, Param
from engine.values import Value, kind, literal_value, to_text

# Every walk over a script recurses per level of nesting; MAX_NESTING levels need more than
# Python's default 1,000 frames (see engine.limits).
allow_deep_recursion()

__all__ = [
    "CREDENTIAL_KINDS",
    "MASK",
    "MAX_NESTING",
    "RAW",
    "REGISTRY",
    "SSH_CREDENTIAL_KINDS",
    "STATEMENT_TYPES",
    "Agent",
    "AgentError",
    "BlocksError",
    "CombinedPlan",
    "CredentialRefused",
    "Diagnostic",
    "ExecutionResult",
    "FunctionSpec",
    "Host",
    "HostKeyChanged",
    "HostKeyUntrusted",
    "Inventory",
    "Level",
    "LocalAgent",
    "LockProvider",
    "LogRecord",
    "Manager",
    "Mode",
    "OperationSpec",
    "OtterError",
    "OtterSyntaxError",
    "Package",
    "Param",
    "PatternError",
    "PatternTimeout",
    "PlanPart",
    "RunCredential",
    "RunScope",
    "RunState",
    "Script",
    "ScriptRun",
    "ServerFacts",
    "SmtpServer",
    "SshConnections",
    "SshTarget",
    "Value",
    "called_modules",
    "check",
    "check_credential_kind",
    "combine_plan",
    "compare_versions",
    "compile_pattern",
    "escape_pattern",
    "fingerprint",
    "format_script",
    "from_blocks",
    "from_json_value",
    "inventory_script",
    "json_dumps",
    "json_loads",
    "kind",
    "literal_value",
    "named_targets",
    "parse",
    "probe",
    "read_inventory",
    "remediation_outline",
    "run",
    "run_environment",
    "targets_servers",
    "text_of_blocks",
    "to_blocks",
    "to_text",
]
