"""API tokens move from Django REST framework's authtoken (keys stored as they are) to knox
(SHA-512 digests). Each old key is carried over as its digest: knox finds a token by its first
15 characters and compares the digest of the whole, so clients keep sending the same key. Carried
over tokens expire OTTERWEB_TOKEN_TTL_DAYS after this migration, like new ones. Then the old table,
with every key in clear, is dropped."""

from django.conf import settings
from django.db import migrations
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

OLD_TABLE = "authtoken_token"


def hash_old_tokens(apps, schema_editor) -> None:
    from knox.crypto import hash_token
    from knox.settings import CONSTANTS, knox_settings

    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    AuthToken = apps.get_model("knox", "AuthToken")
    table = schema_editor.quote_name(OLD_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {schema_editor.quote_name('key')}, user_id FROM {table}")
        rows = cursor.fetchall()
    ttl = knox_settings.TOKEN_TTL
    expiry = timezone.now() + ttl if ttl is not None else None
    AuthToken.objects.bulk_create(
        AuthToken(
            digest=hash_token(key),
            token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH],
            user_id=user_id,
            expiry=expiry,
        )
        for key, user_id in rows
    )
    schema_editor.execute(f"DROP TABLE {table}")
    MigrationRecorder(connection).migration_qs.filter(app="authtoken").delete()
    # the old model's permissions ("Can add Token", ...) would still be offered in the admin
    apps.get_model("contenttypes", "ContentType").objects.filter(app_label="authtoken").delete()


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(hash_old_tokens, migrations.RunPython.noop)]
