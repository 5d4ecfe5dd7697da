"""Log counts and runs (issue 12): executions and scopes count their lines, warnings and
errors, scopes know the seq logged last before they opened (after_seq), and LogRun rows hold
the log's skeleton. The log sink keeps them from now on; the logs stored before are counted
here, once. after_seq was not recorded then: it is taken from the times (the last entry logged
at or before the scope started), and never past the scope's first line or its nested scopes'."""

import django.db.models.deletion
from django.db import migrations, models

WARNING, ERROR = 20, 30
CHUNK = 2000


def count_stored_logs(apps, schema_editor) -> None:
    Execution = apps.get_model("executions", "Execution")
    for execution in Execution.objects.filter(last_seq__gt=0).only("pk").iterator():
        _count_log(apps, execution.pk)


def _count_log(apps, execution_id: int) -> None:
    Execution = apps.get_model("executions", "Execution")
    LogEntry = apps.get_model("executions", "LogEntry")
    LogScope = apps.get_model("executions", "LogScope")
    LogRun = apps.get_model("executions", "LogRun")
    scopes = {s.scope_id: s for s in LogScope.objects.filter(execution_id=execution_id)}
    waiting = sorted(scopes.values(), key=lambda s: (s.started, s.scope_id))  # not placed yet
    placed: set[int] = set()
    counts = {scope_id: [0, 0, 0] for scope_id in [0, *scopes]}
    runs: list[list[int]] = []  # [scope id, first seq, last seq, count]
    previous = 0  # the seq of the entry before

    def place(scope, after_seq: int) -> None:
        placed.add(scope.scope_id)
        scope.after_seq = after_seq

    entries = (
        LogEntry.objects.filter(execution_id=execution_id)
        .order_by("seq")
        .values_list("seq", "scope_id", "level", "time")
    )
    for seq, scope_id, level, time in entries.iterator(chunk_size=CHUNK):
        while waiting and waiting[0].started < time:
            scope = waiting.pop(0)
            if scope.scope_id not in placed:
                place(scope, previous)
        enclosing = scopes.get(scope_id)
        while enclosing is not None and enclosing.scope_id not in placed:
            place(enclosing, previous)  # a scope opens before its first line, and its parents too
            enclosing = scopes.get(enclosing.parent_id)
        scope_id = scope_id or 0
        own = counts.setdefault(scope_id, [0, 0, 0])
        own[0] += 1
        own[1] += WARNING <= level < ERROR
        own[2] += level >= ERROR
        if runs and runs[-1][0] == scope_id:
            runs[-1][2:] = [seq, runs[-1][3] + 1]
        else:
            runs.append([scope_id, seq, seq, 1])
        previous = seq
    for scope in waiting:
        if scope.scope_id not in placed:
            place(scope, previous)
    for scope in scopes.values():
        scope.lines, scope.warnings, scope.errors = counts[scope.scope_id]
    LogScope.objects.bulk_update(
        scopes.values(), ["after_seq", "lines", "warnings", "errors"], batch_size=CHUNK
    )
    LogRun.objects.bulk_create(
        (
            LogRun(
                execution_id=execution_id, scope_id=r[0], first_seq=r[1], last_seq=r[2], count=r[3]
            )
            for r in runs
        ),
        batch_size=CHUNK,
    )
    totals = [sum(c[i] for c in counts.values()) for i in range(3)]
    Execution.objects.filter(pk=execution_id).update(
        log_lines=totals[0], log_warnings=totals[1], log_errors=totals[2]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0008_run_on_local_server"),
    ]

    operations = [
        migrations.AddField(
            model_name="execution",
            name="log_errors",
            field=models.PositiveIntegerField(default=0, help_text="Of them, errors."),
        ),
        migrations.AddField(
            model_name="execution",
            name="log_lines",
            field=models.PositiveIntegerField(default=0, help_text="Log entries stored."),
        ),
        migrations.AddField(
            model_name="execution",
            name="log_warnings",
            field=models.PositiveIntegerField(default=0, help_text="Of them, warnings."),
        ),
        migrations.AddField(
            model_name="logscope",
            name="after_seq",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The seq logged last before the scope opened (0: none): the scope comes after its parent's own lines up to it.",
            ),
        ),
        migrations.AddField(
            model_name="logscope",
            name="errors",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="logscope",
            name="lines",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="logscope",
            name="warnings",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="LogRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "scope_id",
                    models.PositiveIntegerField(help_text="0: the top level, outside every scope."),
                ),
                ("first_seq", models.PositiveIntegerField()),
                ("last_seq", models.PositiveIntegerField()),
                ("count", models.PositiveIntegerField(help_text="Entries stored in the run.")),
                (
                    "execution",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="log_runs",
                        to="executions.execution",
                    ),
                ),
            ],
            options={
                "ordering": ["execution", "first_seq"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("execution", "first_seq"), name="log_run_unique_in_execution"
                    )
                ],
            },
        ),
        migrations.RunPython(count_stored_logs, migrations.RunPython.noop, elidable=True),
    ]
