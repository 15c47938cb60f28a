"""A game's settings in one place: the per-game columns of Table and Seat and
the rule options move into ``Table.settings`` (the plugin's knobs), the
between-hands memory into ``Table.carry`` and ``Seat.carry``; the columns go.

The knobs each game had as columns are written down here (the plugins may
change later; a migration must not follow them)."""

from django.db import migrations, models

#: The columns each game's tables used, now knobs of its plugin.
TABLE_KNOBS = {
    "holdem": ("max_raise", "buy_in_min", "buy_in_max"),
    "maubinh": ("min_balance_units", "arrange_seconds", "reveal_seconds"),
    "tienlen": ("min_balance_units",),
}
#: The between-hands columns: game -> (column, key of the carry).
TABLE_CARRY = {
    "holdem": ("button_position", "button"),
    "tienlen": ("last_winner_position", "last_winner"),
}
#: The seat's column each game kept between hands: game -> (column, key).
SEAT_CARRY = {"holdem": ("time_bank_ms", "time_bank_ms")}
#: The columns' defaults (for the way back).
DEFAULTS = {
    "max_raise": None,
    "buy_in_min": 20,
    "buy_in_max": 100,
    "min_balance_units": 30,
    "arrange_seconds": 90,
    "reveal_seconds": 5,
}


def forward(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Seat = apps.get_model("games", "Seat")
    for table in Table.objects.all().iterator():
        settings = dict(table.options or {})
        for name in TABLE_KNOBS.get(table.game, ()):
            settings[name] = getattr(table, name)
        carry = {}
        if table.game in TABLE_CARRY:
            column, key = TABLE_CARRY[table.game]
            if getattr(table, column) is not None:
                carry[key] = getattr(table, column)
        Table.objects.filter(pk=table.pk).update(settings=settings, carry=carry)
    for game, (column, key) in SEAT_CARRY.items():
        for seat in Seat.objects.filter(table__game=game).only("pk", column).iterator():
            Seat.objects.filter(pk=seat.pk).update(carry={key: getattr(seat, column)})


def backward(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Seat = apps.get_model("games", "Seat")
    for table in Table.objects.all().iterator():
        settings = dict(table.settings or {})
        columns = {}
        for name in TABLE_KNOBS.get(table.game, ()):
            columns[name] = settings.pop(name, DEFAULTS[name])
        if table.game in TABLE_CARRY:
            column, key = TABLE_CARRY[table.game]
            columns[column] = (table.carry or {}).get(key)
        Table.objects.filter(pk=table.pk).update(options=settings, **columns)
    for game, (column, key) in SEAT_CARRY.items():
        for seat in Seat.objects.filter(table__game=game).only("pk", "carry").iterator():
            value = (seat.carry or {}).get(key)
            if value is not None:
                Seat.objects.filter(pk=seat.pk).update(**{column: value})


class Migration(migrations.Migration):
    dependencies = [("games", "0012_holdem_one_home_per_knob")]

    operations = [
        migrations.AddField(
            model_name="table",
            name="settings",
            field=models.JSONField(blank=True, default=dict, verbose_name="game settings"),
        ),
        migrations.AddField(
            model_name="table",
            name="carry",
            field=models.JSONField(blank=True, default=dict, verbose_name="kept between hands"),
        ),
        migrations.AddField(
            model_name="seat",
            name="carry",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(forward, backward),
        migrations.RemoveField(model_name="table", name="options"),
        migrations.RemoveField(model_name="table", name="max_raise"),
        migrations.RemoveField(model_name="table", name="buy_in_min"),
        migrations.RemoveField(model_name="table", name="buy_in_max"),
        migrations.RemoveField(model_name="table", name="min_balance_units"),
        migrations.RemoveField(model_name="table", name="arrange_seconds"),
        migrations.RemoveField(model_name="table", name="reveal_seconds"),
        migrations.RemoveField(model_name="table", name="last_winner_position"),
        migrations.RemoveField(model_name="table", name="button_position"),
        migrations.RemoveField(model_name="seat", name="time_bank_ms"),
        migrations.AlterField(
            model_name="table",
            name="clock",
            field=models.CharField(blank=True, max_length=10, verbose_name="clock"),
        ),
    ]
