"""The OtterScript language: parser, formatter, checks, block conversion and interpreter.

This package never imports Django; the web application plugs in through the host interface.

    script = parse(text)                    # OtterSyntaxError(.diagnostics) if it does not parse
    text = format_script(script)            # canonical text
    diagnostics = check(script)             # warnings and static errors
    workspace = to_blocks(script)           # Blockly workspace JSON
    script = from_blocks(workspace)
    result = await run(script, host=Host()) # status, drift, duration
"""

from engine.ast import Script
from engine.blocks import from_blocks, to_blocks
from engine.checks import check
from engine.errors import Diagnostic, OtterError, OtterSyntaxError
from engine.formatter import format_script
from engine.interpreter import ExecutionResult, Host, Mode, run
from engine.limits import MAX_NESTING, allow_deep_recursion
from engine.parser import parse

# Every walk over a script recurses per level of nesting; MAX_NESTING levels need more than
# Python's default 1,000 frames (see engine.limits).
allow_deep_recursion()

__all__ = [
    "MAX_NESTING",
    "Diagnostic",
    "ExecutionResult",
    "Host",
    "Mode",
    "OtterError",
    "OtterSyntaxError",
    "Script",
    "check",
    "format_script",
    "from_blocks",
    "parse",
    "run",
    "to_blocks",
]
