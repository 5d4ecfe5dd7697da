"""Before 0.2, `make run` used the development settings, whose credential key was written in the
repository. Secrets saved that way are encrypted again with the installation's own key (from
the environment, or generated into the data folder); the old key is used here only to read them."""

from django.db import migrations

# The key otterweb/settings/dev.py had before 0.2. Public: it protects nothing any more.
OLD_DEVELOPMENT_KEY = "b3R0ZXJ3ZWItZGV2ZWxvcG1lbnQta2V5LTMyLWJ5dGU="


def reencrypt(apps, schema_editor) -> None:
    from otterweb import secrets

    Credential = apps.get_model("inventory", "Credential")
    secrets.reencrypt(Credential, "encrypted_secret", also_readable_with=(OLD_DEVELOPMENT_KEY,))


class Migration(migrations.Migration):
    dependencies = [("inventory", "0002_text_and_messages")]

    operations = [migrations.RunPython(reencrypt, migrations.RunPython.noop, elidable=True)]
