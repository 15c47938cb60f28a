"""Hold'em's player count and buy-in have one home each (the seat count, the
buy_in_min/max fields): the rule options that duplicated them leave the
tables that were opened with them. A table opened with ``min_players`` above
2 could never deal at two ready players (the engine refused every Ready)."""

from django.db import migrations

DUPLICATES = ("min_players", "max_players", "buy_in_min_big_blinds", "buy_in_max_big_blinds")


def forward(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for table in Table.objects.filter(game="holdem").only("pk", "options").iterator():
        options = dict(table.options or {})
        if any(key in options for key in DUPLICATES):
            for key in DUPLICATES:
                options.pop(key, None)
            Table.objects.filter(pk=table.pk).update(options=options)


class Migration(migrations.Migration):
    dependencies = [("games", "0011_chat_reports_from_moderation")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
