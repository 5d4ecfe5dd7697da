"""Sensitive variables are encrypted at rest, like credentials: their literal moves from `value`
(left empty) to `encrypted_value`, under the installation's encryption key. Going back decrypts
them into `value` again."""

from django.db import migrations, models

import otterweb.fields


def encrypt_sensitive(apps, schema_editor) -> None:
    from otterweb import secrets

    Variable = apps.get_model("inventory", "Variable")
    for pk, value in (
        Variable.objects.filter(sensitive=True).exclude(value="").values_list("pk", "value")
    ):
        Variable.objects.filter(pk=pk).update(value="", encrypted_value=secrets.encrypt(value))


def decrypt_sensitive(apps, schema_editor) -> None:
    from otterweb import secrets

    Variable = apps.get_model("inventory", "Variable")
    for pk, token in Variable.objects.exclude(encrypted_value="").values_list(
        "pk", "encrypted_value"
    ):
        Variable.objects.filter(pk=pk).update(value=secrets.decrypt(token), encrypted_value="")


class Migration(migrations.Migration):
    dependencies = [("inventory", "0003_reencrypt_development_key")]

    operations = [
        migrations.AddField(
            model_name="variable",
            name="encrypted_value",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AlterField(
            model_name="variable",
            name="value",
            field=otterweb.fields.TextField(
                blank=True, help_text="An OtterScript literal: text, @(a, b) or %(key: value)."
            ),
        ),
        migrations.RunPython(encrypt_sensitive, decrypt_sensitive),
    ]
