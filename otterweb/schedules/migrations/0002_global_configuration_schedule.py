"""The default schedule of routine configuration checks: every hour, in UTC, of the servers no
environment's own configuration schedule covers."""

from datetime import UTC, datetime

from croniter import croniter
from django.db import migrations

NAME = "Configuration check"
CRON = "0 * * * *"


def create(apps, schema_editor) -> None:
    Schedule = apps.get_model("schedules", "Schedule")
    if Schedule.objects.filter(kind="configuration", environment__isnull=True).exists():
        return
    name = NAME
    if Schedule.objects.filter(name=name).exists():
        name = f"{NAME} (global)"
    Schedule.objects.create(
        name=name,
        description="Checks the configuration of every server that no environment's own "
        "configuration schedule covers.",
        kind="configuration",
        cron=CRON,
        time_zone="UTC",
        enabled=True,
        next_run=croniter(CRON, datetime.now(UTC)).get_next(datetime),
    )


def remove(apps, schema_editor) -> None:
    Schedule = apps.get_model("schedules", "Schedule")
    Schedule.objects.filter(kind="configuration", environment__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("schedules", "0001_initial")]

    operations = [migrations.RunPython(create, remove)]
