"""The log models, moved here from the executions app with their rows (executions' migration
0013 renamed their tables and dropped their foreign keys' constraints): only the state is made
here, the tables are there already. ``execution_id`` is the column the foreign key had."""

from django.db import migrations, models


def execution_id() -> models.BigIntegerField:
    return models.BigIntegerField(db_index=True)


def primary_key() -> models.BigAutoField:
    return models.BigAutoField(
        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
    )


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("executions", "0013_logs_to_execution_logs"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LogEntry",
                    fields=[
                        ("id", primary_key()),
                        ("execution_id", execution_id()),
                        ("seq", models.PositiveIntegerField()),
                        ("scope_id", models.PositiveIntegerField(blank=True, null=True)),
                        (
                            "level",
                            models.PositiveSmallIntegerField(
                                choices=[
                                    (0, "debug"),
                                    (10, "information"),
                                    (20, "warning"),
                                    (30, "error"),
                                ]
                            ),
                        ),
                        ("message", models.TextField()),
                        ("line", models.PositiveIntegerField(blank=True, null=True)),
                        ("time", models.DateTimeField()),
                    ],
                    options={
                        "ordering": ["execution_id", "seq"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("execution_id", "seq"),
                                name="log_entry_seq_unique_in_execution",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="LogRun",
                    fields=[
                        ("id", primary_key()),
                        ("execution_id", execution_id()),
                        (
                            "scope_id",
                            models.PositiveIntegerField(
                                help_text="0: the top level, outside every scope."
                            ),
                        ),
                        ("first_seq", models.PositiveIntegerField()),
                        ("last_seq", models.PositiveIntegerField()),
                        (
                            "count",
                            models.PositiveIntegerField(help_text="Entries stored in the run."),
                        ),
                    ],
                    options={
                        "ordering": ["execution_id", "first_seq"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("execution_id", "first_seq"),
                                name="log_run_unique_in_execution",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="LogScope",
                    fields=[
                        ("id", primary_key()),
                        ("execution_id", execution_id()),
                        ("scope_id", models.PositiveIntegerField()),
                        ("parent_id", models.PositiveIntegerField(blank=True, null=True)),
                        ("name", models.CharField(max_length=500)),
                        ("line", models.PositiveIntegerField(blank=True, null=True)),
                        ("started", models.DateTimeField()),
                        ("ended", models.DateTimeField(blank=True, null=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("normal", "Normal"),
                                    ("warning", "Warning"),
                                    ("error", "Error"),
                                ],
                                default="normal",
                                max_length=10,
                            ),
                        ),
                        (
                            "after_seq",
                            models.PositiveIntegerField(
                                default=0,
                                help_text="The seq logged last before the scope opened (0: "
                                "none): the scope comes after its parent's own lines up to it.",
                            ),
                        ),
                        ("lines", models.PositiveIntegerField(default=0)),
                        ("warnings", models.PositiveIntegerField(default=0)),
                        ("errors", models.PositiveIntegerField(default=0)),
                    ],
                    options={
                        "ordering": ["execution_id", "scope_id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("execution_id", "scope_id"),
                                name="log_scope_unique_in_execution",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
