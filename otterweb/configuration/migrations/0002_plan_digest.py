"""Remediation plans keep a digest of what they will run; a plan made before has none, and
its approval is refused (make a new plan)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("configuration", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="remediationplan",
            name="digest",
            field=models.CharField(
                blank=True,
                help_text="HMAC-SHA256 of everything it will run (combined script text, the modules it calls, variables, targets) when it was made: approval refuses it when any changed.",
                max_length=64,
            ),
        ),
    ]
