"""The log models (LogScope, LogEntry, LogRun) move to the execution_logs app, their rows kept:
they name their execution by id alone, so their foreign keys lose the database's constraint
(their column and index stay), and their tables are renamed for the app; the models leave this
app's state here and enter execution_logs' in its 0001, which does nothing to the database.
Reversed, the tables take their old names and the constraints come back."""

import django.db.models.deletion
from django.db import migrations, models

MOVED = {"logscope": "scopes", "logentry": "log_entries", "logrun": "log_runs"}


def unconstrained(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(
        db_constraint=False,
        on_delete=django.db.models.deletion.CASCADE,
        related_name=related_name,
        to="executions.execution",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0012_job_origin"),
    ]

    operations = [
        *(
            migrations.AlterField(
                model_name=model, name="execution", field=unconstrained(related_name)
            )
            for model, related_name in MOVED.items()
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterModelTable(name=model, table=f"execution_logs_{model}")
                for model in MOVED
            ],
            state_operations=[migrations.DeleteModel(name=model) for model in MOVED],
        ),
    ]
