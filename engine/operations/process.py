"""Running processes through the agent, with output streamed to the log as it arrives."""

from __future__ import annotations

import operator
import re
import shlex
from collections.abc import Mapping
from typing import TypedDict

from engine.interpreter.logs import Level
from engine.patterns import compile as compile_pattern
from engine.registry import Operation, param

LEVELS = {
    "debug": Level.DEBUG,
    "information": Level.INFORMATION,
    "info": Level.INFORMATION,
    "warning": Level.WARNING,
    "error": Level.ERROR,
}
EXIT_RULE = re.compile(r"\s*(==|!=|<=|>=|<|>|=)?\s*(-?\d+)\s*")
COMPARISONS = {
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class StreamLevels(TypedDict):
    """The log levels of a process's standard output and standard error lines."""

    output_level: Level
    error_level: Level


class OutputLevels(Operation):
    """The log levels of a process's two output streams."""

    output_level = param(
        "OutputLogLevel",
        default="Information",
        description="The log level of standard output lines.",
    )
    error_level = param(
        "ErrorOutputLogLevel", default="Error", description="The log level of standard error lines."
    )

    def levels(self) -> StreamLevels:
        return {
            "output_level": level(self.output_level, Level.INFORMATION),
            "error_level": level(self.error_level, Level.ERROR),
        }


def level(name: str | None, default: Level) -> Level:
    if not name:
        return default
    found = LEVELS.get(name.strip().lower())
    if found is None:
        raise ValueError(f"'{name}' is not a log level: use Debug, Information, Warning or Error")
    return found


def exit_code_ok(rule: str | None, code: int) -> bool | None:
    """Whether ``code`` passes ``rule`` (like "== 0", ">= 0", "3"); None when the rule is to
    ignore the exit code."""
    if rule is None or rule.strip().lower() in ("", "ignored", "ignore", "any"):
        return None
    match = EXIT_RULE.fullmatch(rule)
    if match is None:
        raise ValueError(f"SuccessExitCode '{rule}' is not a rule like '== 0', '>= 0' or '3'")
    return COMPARISONS[match.group(1) or "=="](code, int(match.group(2)))


def split_command(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as error:
        raise ValueError(f"cannot split the command line '{text}': {error}") from None


async def run_process(
    run,
    command: list[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    output_level: Level = Level.INFORMATION,
    error_level: Level = Level.ERROR,
    warn_regex: str | None = None,
    debug_regex: str | None = None,
    filter_regex: str | None = None,
    success: str | None = "== 0",
    stdin: bytes | None = None,
    capture: list[str] | None = None,
) -> int:
    """Run ``command`` on the server in context, logging each line as it arrives. An exit code
    that fails ``success`` is logged as an error (which fails the operation)."""
    # each line is matched with the engine's time limit: one that takes longer fails the
    # operation (and stops the process)
    warn = compile_pattern(warn_regex, name="WarnRegex") if warn_regex else None
    debug = compile_pattern(debug_regex, name="DebugRegex") if debug_regex else None
    keep = compile_pattern(filter_regex, name="OutputFilterRegex") if filter_regex else None

    def on_output(line: str, is_error: bool) -> None:
        if capture is not None and capture_line(line, capture):
            return
        if keep is not None and not keep.search(line):
            return
        chosen = error_level if is_error else output_level
        if warn is not None and warn.search(line):
            chosen = Level.WARNING
        elif debug is not None and debug.search(line):
            chosen = Level.DEBUG
        run.log(chosen, line)

    agent = await run.agent()
    code = await agent.run(
        command, on_output=on_output, cwd=cwd or run.working_directory or None, env=env, stdin=stdin
    )
    verdict = exit_code_ok(success, code)
    if verdict is False and success is not None:
        run.error(
            f"{command[0]} exited with code {code} on {run.server}; expected an exit code {success.strip()}."
        )
    else:
        run.debug(f"{command[0]} exited with code {code}.")
    return code


OUT_MARKER = "__OTTERWEB_OUT__ "


def capture_line(line: str, captured: list[str]) -> bool:
    """Lines a script prints to hand variables back are kept out of the log."""
    if line.startswith(OUT_MARKER):
        captured.append(line[len(OUT_MARKER) :])
        return True
    return False


def shell_command(script: str, arguments: list[str]) -> list[str]:
    """The command that runs a shell script with its arguments ($1, $2...)."""
    return ["/bin/sh", "-c", script, "sh", *arguments]


async def shell_output(run, script: str, arguments: list[str]) -> tuple[int, str, list[str]]:
    """Run a shell script on the server in context for what it prints (see `output_of`)."""
    return await output_of(run, shell_command(script, arguments))


async def output_of(
    run, command: list[str], *, stdin: bytes | None = None, privileged: bool = True
) -> tuple[int, str, list[str]]:
    """Run a program on the server in context for what it prints: its exit code, its standard
    output (the last line break dropped) and its standard error lines. Nothing is logged: the
    caller says what the output means. ``privileged=False``: a read any user may make, which
    needs no sudo (see `Agent.run`)."""
    output: list[str] = []
    errors: list[str] = []

    def keep(line: str, is_error: bool) -> None:
        (errors if is_error else output).append(line)

    agent = await run.agent()
    code = await agent.run(
        command,
        on_output=keep,
        cwd=run.working_directory or None,
        stdin=stdin,
        privileged=privileged,
    )
    return code, "\n".join(output), errors


async def must_run(
    run, command: list[str], *, stdin: bytes | None = None, privileged: bool = True
) -> str:
    """Run a program on the server in context that must succeed: its standard output (see
    `output_of`), or an error naming the server and what the program said."""
    code, output, errors = await output_of(run, command, stdin=stdin, privileged=privileged)
    if code == 127 and any("not found" in line for line in errors):
        raise ValueError(
            f"{program(command)} was not found on {run.server}: it is not installed, or not on "
            "the PATH of the user the server is reached as (tools such as useradd are in "
            "/usr/sbin, on root's PATH: see the server's sudo setting)"
        )
    if code != 0:
        said = " ".join(errors or output.splitlines())[:500]
        raise ValueError(f"{program(command)} exited with code {code} on {run.server}: {said}")
    return output


def program(command: list[str]) -> str:
    """The program ``command`` runs: the first word after `env` and its variables, or the name a
    shell script is given (``sh -c <script> <name> ...``)."""
    if command[0] == "sh" and command[1:2] == ["-c"] and len(command) > 3:
        return command[3]
    words = command[1:] if command[0] == "env" else command
    return next((word for word in words if "=" not in word), command[0])
