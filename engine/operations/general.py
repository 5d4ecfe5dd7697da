"""Exec and Sleep."""

from __future__ import annotations

import asyncio

from engine.operations.process import OutputLevels, run_process, split_command
from engine.registry import Kind, Operation, ParamType, brief, operation, param


@operation(
    "Exec",
    "Execute-Process",
    namespace="InedoCore",
    kind=Kind.EXECUTE,
    description="Runs a process on the server in context, logs its output as it arrives, and waits for it to exit.",
)
class Exec(OutputLevels):
    target = param(
        "Target",
        positional=True,
        description='The program, with its arguments: Exec "make install";',
    )
    file_name = param(
        "FileName", description="The program (when the positional argument is not used)."
    )
    arguments = param(
        "Arguments", description="The program's arguments, split as a POSIX shell would."
    )
    working_directory = param(
        "WorkingDirectory",
        description="Where the program runs (the working directory in context by default).",
    )
    success_exit_code = param(
        "SuccessExitCode",
        default="== 0",
        description="The exit codes that mean success: '== 0', '>= 0', '!= 3', or 'ignored'.",
    )
    import_variables = param(
        "ImportVariables",
        ParamType.BOOLEAN,
        default=False,
        description="Pass every text variable in scope to the program as an environment variable.",
    )
    warn_regex = param("WarnRegex", description="Output lines that match are logged as warnings.")
    debug_regex = param("DebugRegex", description="Output lines that match are logged as debug.")
    log_arguments = param(
        "LogArguments",
        ParamType.BOOLEAN,
        default=True,
        description="Log the command line before running it.",
    )
    progress_regex = param(
        "ReportProgressRegex", description="Accepted for compatibility; progress is not reported."
    )
    filter_regex = param(
        "OutputFilterRegex", description="Only output lines that match are logged."
    )

    def command(self) -> list[str]:
        if self.file_name:
            return [self.file_name, *split_command(self.arguments or "")]
        if not self.target:
            raise ValueError(
                "Exec needs a program: Exec program (Arguments: ...) or Exec (FileName: program)"
            )
        return [*split_command(self.target), *split_command(self.arguments or "")]

    def summary(self) -> str:
        return "Exec " + brief(" ".join(self.command()))

    async def execute(self, run) -> None:
        command = self.command()
        if self.log_arguments:
            run.info("Running " + " ".join(command))
        env = run.scalar_variables() if self.import_variables else None
        await run_process(
            run,
            command,
            cwd=run.resolve(self.working_directory) if self.working_directory else None,
            env=env,
            **self.levels(),
            warn_regex=self.warn_regex,
            debug_regex=self.debug_regex,
            filter_regex=self.filter_regex,
            success=self.success_exit_code,
        )


@operation(
    "Sleep",
    "Wait",
    namespace="InedoCore",
    kind=Kind.EXECUTE,
    description="Waits for a number of seconds.",
)
class Sleep(Operation):
    seconds = param(
        "Seconds",
        ParamType.INTEGER,
        positional=True,
        required=True,
        description="How long to wait, in seconds.",
    )

    def summary(self) -> str:
        return f"Sleep {self.seconds} seconds"

    async def execute(self, run) -> None:
        if self.seconds < 0:
            raise ValueError(
                f"Sleep takes a number of seconds that is not negative, not {self.seconds}"
            )
        run.debug(f"Sleeping for {self.seconds} seconds.")
        await asyncio.sleep(self.seconds)
