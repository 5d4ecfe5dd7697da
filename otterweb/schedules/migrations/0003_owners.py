"""Schedules and triggers get an owner, on whose behalf their runs start: whoever made them,
where that is known (``created_by``). Those without one stop running until someone saves them
(a schedule) or makes them again (a trigger)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def owners_from_creators(apps, schema_editor) -> None:
    for model in ("Schedule", "Trigger"):
        rows = apps.get_model("schedules", model).objects
        rows.filter(owner__isnull=True, created_by__isnull=False).update(
            owner=models.F("created_by")
        )


class Migration(migrations.Migration):
    dependencies = [
        ("schedules", "0002_global_configuration_schedule"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="schedule",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                help_text="Whose behalf its runs start on, with whose rights (checked at every firing): who last saved it. A job schedule without one does not run.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="owned_schedules",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="trigger",
            name="last_error",
            field=models.TextField(blank=True, help_text="Why its last accepted call ran nothing."),
        ),
        migrations.AddField(
            model_name="trigger",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                help_text="Whose behalf its runs start on, with whose rights (checked at every call): who made it. A trigger without one does not run.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="owned_triggers",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(owners_from_creators, migrations.RunPython.noop),
    ]
