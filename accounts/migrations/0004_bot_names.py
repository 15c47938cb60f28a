"""Bots get ordinary Vietnamese names without numbers ("Minh Anh", not "An 1"):
the pool's bots, in the order they were created, take the names new bots
get (accounts.bots)."""

from django.db import migrations

from accounts.bots import bot_name


def rename_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for index, bot in enumerate(User.objects.filter(is_bot=True).order_by("pk")):
        bot.display_name = bot_name(index)
        bot.save(update_fields=["display_name"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_avatar")]

    operations = [migrations.RunPython(rename_bots, migrations.RunPython.noop)]
