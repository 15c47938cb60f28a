"""Names compared on their skeletons (accounts.names): ``display_key``
and ``username_key``, each under a unique index. Existing display names are
put in NFC with their control, text-direction and invisible characters
removed; where two accounts' names already look alike, the older account
keeps the key and the later one's is left NULL (grandfathered until renamed:
docs/security.md, "Names and player cards")."""

import unicodedata

from django.db import migrations, models

from accounts.names import display_key, username_key, visible


def backfill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    usernames: set[str] = set()
    players: set[str] = set()
    for user in User.objects.order_by("pk").iterator():
        name = " ".join(visible(unicodedata.normalize("NFC", user.display_name)).split())
        user.display_name = name or user.display_name
        key = display_key(user.display_name) or None
        if key is not None and not user.is_bot:
            key = None if key in players else key
            players.add(key or "")
        user.display_key = key
        login = username_key(user.username)
        user.username_key = None if login in usernames else login
        usernames.add(login)
        user.save(update_fields=["display_name", "display_key", "username_key"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_bot_names")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_key",
            field=models.CharField(blank=True, editable=False, max_length=200, null=True),
        ),
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.CharField(blank=True, editable=False, max_length=600, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(is_bot=False),
                fields=("display_key",),
                name="accounts_user_display_key_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                fields=("username_key",), name="accounts_user_username_key_unique"
            ),
        ),
    ]
