"""Shell and Python scripts."""

from __future__ import annotations

import json
import shlex

from engine.json_values import from_json_value
from engine.operations.process import (
    OUT_MARKER,
    OutputLevels,
    run_process,
    shell_command,
    shell_output,
    split_command,
)
from engine.registry import Kind, Operation, ParamType, operation, param
from engine.values import to_text


class Script(Operation):
    """What shell and Python scripts share: variables in and out, arguments, environment."""

    variables = param(
        "Variables",
        ParamType.MAP,
        default=None,
        description="Variables defined at the start of the script.",
    )
    out_variables = param(
        "OutVariables",
        ParamType.LIST,
        default=None,
        description="Script variables copied back to runtime variables when it ends.",
    )
    arguments = param("Arguments", description="The script's command-line arguments.")
    environment = param(
        "EnvironmentVariables",
        ParamType.MAP,
        default=None,
        description="Environment variables for the script.",
    )
    verbose = param(
        "Verbose", ParamType.BOOLEAN, default=False, description="Log how the script is staged."
    )
    success_exit_code = param(
        "SuccessExitCode",
        default="ignored",
        description="The exit codes that mean success; ignored by default.",
    )
    capture_debug = param(
        "CaptureDebug", ParamType.BOOLEAN, default=False, description="Accepted for compatibility."
    )

    def environment_variables(self) -> dict[str, str] | None:
        return {k: to_text(v) for k, v in (self.environment or {}).items()} or None


class ShellScript(Script, OutputLevels):
    async def script_text(self, run) -> str:
        raise NotImplementedError

    async def execute(self, run) -> None:
        text = await self.script_text(run)
        prelude = "".join(
            f"{_shell_name(k)}={shlex.quote(to_text(v))}\n"
            for k, v in (self.variables or {}).items()
        )
        epilogue = "".join(
            f'\nprintf "%s%s=%s\\n" {shlex.quote(OUT_MARKER)} {shlex.quote(name)} "${_shell_name(name)}"'
            for name in (to_text(n) for n in self.out_variables or [])
        )
        script = (
            prelude
            + text
            + (
                "\n__otterweb_status=$?" + epilogue + "\nexit $__otterweb_status"
                if epilogue
                else ""
            )
        )
        if self.verbose:
            run.debug(f"Running the script with /bin/sh ({len(script)} characters).")
        captured: list[str] = []
        await run_process(
            run,
            shell_command(script, split_command(self.arguments or "")),
            env=self.environment_variables(),
            **self.levels(),
            success=self.success_exit_code,
            capture=captured,
        )
        for line in captured:
            name, _, value = line.partition("=")
            run.set_variable(name, value)


def _shell_name(name: str) -> str:
    if not name.replace("_", "a").isalnum() or name[0].isdigit():
        raise ValueError(f"'{name}' cannot be a shell variable name")
    return name


@operation(
    "SHExec",
    "Execute-Shell",
    namespace="Linux",
    kind=Kind.EXECUTE,
    description="Runs a shell script on the server in context.",
)
class SHExec(ShellScript):
    text = param("Text", positional=True, required=True, description="The shell script.")

    async def script_text(self, run) -> str:
        return self.text


@operation(
    "SHCall",
    namespace="Linux",
    kind=Kind.EXECUTE,
    description="Runs a shell script kept in a raft on the server in context.",
)
class SHCall(ShellScript):
    name = param(
        "ScriptName",
        aliases=("Name",),
        positional=True,
        required=True,
        description="The script's name in the raft (raft::name for another raft).",
    )

    async def script_text(self, run) -> str:
        return await raft_script(run, self.name)


async def raft_script(run, name: str) -> str:
    """The text of the script ``name`` (raft::name for another raft) in the raft."""
    raft, _, item = name.rpartition("::")
    text = await run.host.raft_item(raft or None, item, "script")
    if text is None:
        raise ValueError(f"script '{name}' was not found in the raft")
    return text


@operation(
    "SHEnsure",
    "SHEnsure1",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a setting of the server in context with two shell scripts: the collect "
    "script prints the setting's value (or exits with it, with UseExitCode), and the configure "
    "script, run only when that is not Value, changes it.",
)
class SHEnsure(Operation):
    key = param("Key", required=True, description="The setting's name, as drift names it.")
    value = param(
        "Value",
        required=True,
        description="The expected value: what the collect script prints (spaces and line breaks "
        "around it ignored), or its exit code with UseExitCode.",
    )
    collect_text = param("Collect", description="The collect script's text.")
    configure_text = param("Configure", description="The configure script's text.")
    collect_script = param(
        "CollectScript", description="The collect script's name in the raft, instead of Collect."
    )
    configure_script = param(
        "ConfigureScript",
        description="The configure script's name in the raft, instead of Configure.",
    )
    use_exit_code = param(
        "UseExitCode",
        ParamType.BOOLEAN,
        default=False,
        description="Compare the collect script's exit code with Value, not what it prints.",
    )
    collect_arguments = param(
        "CollectScriptArgs", description="The collect script's command-line arguments."
    )
    configure_arguments = param(
        "ConfigureScriptArgs", description="The configure script's command-line arguments."
    )
    verbose = param(
        "Verbose",
        ParamType.BOOLEAN,
        default=False,
        description="Log what the collect script printed, and how the scripts are found.",
    )

    def summary(self) -> str:
        return f"SHEnsure {self.key}"

    def desired(self) -> dict:
        return {self.key: self.value.strip()}

    async def collect(self, run) -> dict:
        script = await self.script(run, self.collect_text, self.collect_script, "Collect")
        code, output, errors = await shell_output(
            run, script, split_command(self.collect_arguments or "")
        )
        for line in errors:
            run.warn(line)
        if self.verbose:
            run.debug(f"The collect script exited with code {code} and printed {output!r}.")
        if not self.use_exit_code and code != 0:
            raise ValueError(
                f"the collect script of {self.key} exited with code {code} on {run.server}; "
                "it must print the value and exit with 0 (or set UseExitCode: true)"
            )
        return {self.key: str(code) if self.use_exit_code else output.strip()}

    async def execute(self, run) -> None:
        expected = self.value.strip()
        found = (await self.collect(run))[self.key]
        if found == expected:
            run.debug(f"{self.key} is already {expected!r}: nothing to configure.")
            return
        script = await self.script(run, self.configure_text, self.configure_script, "Configure")
        run.info(f"{self.key} is {found!r}, not {expected!r}: running the configure script.")
        code = await run_process(
            run, shell_command(script, split_command(self.configure_arguments or ""))
        )
        if code != 0:
            return  # run_process logged the error, which fails the operation
        found = (await self.collect(run))[self.key]
        if found != expected:
            run.error(
                f"After the configure script, {self.key} is {found!r} on {run.server}; "
                f"expected {expected!r}."
            )

    async def script(self, run, text: str | None, name: str | None, argument: str) -> str:
        if (text is None) == (name is None):
            raise ValueError(f"SHEnsure needs {argument} or {argument}Script, and not both")
        if name is None:
            return text or ""
        if self.verbose:
            run.debug(f"The {argument.lower()} script is {name} in the raft.")
        return await raft_script(run, name)


@operation(
    "PYExec",
    namespace="Python",
    kind=Kind.EXECUTE,
    description="Runs a Python script on the server in context.",
)
class PYExec(Script):
    script = param("Script", positional=True, required=True, description="The Python script.")
    python = param(
        "PythonPath", default="python3", description="The Python interpreter on the server."
    )

    async def execute(self, run) -> None:
        prelude = "".join(f"{name} = {value!r}\n" for name, value in (self.variables or {}).items())
        outputs = [to_text(n) for n in self.out_variables or []]
        epilogue = ""
        if outputs:
            epilogue = "\nimport json as __json\n" + "".join(
                f"print({OUT_MARKER!r} + {name!r} + '=' + __json.dumps({name}))\n"
                for name in outputs
            )
        captured: list[str] = []
        await run_process(
            run,
            [
                self.python,
                "-c",
                prelude + self.script + epilogue,
                *split_command(self.arguments or ""),
            ],
            env=self.environment_variables(),
            success=self.success_exit_code,
            capture=captured,
        )
        for line in captured:
            name, _, value = line.partition("=")
            run.set_variable(name, from_json_value(json.loads(value)))
