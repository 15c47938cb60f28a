"""The one DRF token per user of before: each becomes a device session of its
own (platform "other", no name) whose access token is the old key, hashed
(django-rest-knox's digest), good for LEGACY_DAYS from the migration, with no
usable refresh token: the app keeps working until then, and logs in again
after. The plain keys are deleted."""

import secrets
from datetime import timedelta

from django.db import migrations
from django.utils import timezone
from knox.crypto import hash_token
from knox.settings import CONSTANTS

LEGACY_DAYS = 30


def forwards(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    DeviceSession = apps.get_model("accounts", "DeviceSession")
    AccessToken = apps.get_model("accounts", "AccessToken")
    now = timezone.now()
    until = now + timedelta(days=LEGACY_DAYS)
    for token in Token.objects.all().iterator():
        session = DeviceSession.objects.create(
            user_id=token.user_id,
            last_seen=token.created,
            # no one holds a refresh token for it: a random digest, already expired
            refresh_digest=hash_token(secrets.token_hex(32)),
            refresh_expiry=now,
        )
        AccessToken(
            digest=hash_token(token.key),
            token_key=token.key[: CONSTANTS.TOKEN_KEY_LENGTH],
            user_id=token.user_id,
            session=session,
            expiry=until,
        ).save(force_insert=True)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_device_sessions"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
