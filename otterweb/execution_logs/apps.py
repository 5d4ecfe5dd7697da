from django.apps import AppConfig


class ExecutionLogsConfig(AppConfig):
    """The logs of executions, keyed by the execution's id alone: what an execution is, and who
    may see one, the executions app hands down (otterweb.execution_logs.hooks)."""

    name = "otterweb.execution_logs"
    verbose_name = "Execution logs"
