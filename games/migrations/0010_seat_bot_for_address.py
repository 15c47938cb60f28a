from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_table_hot_updates"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="bot_for_address",
            field=models.GenericIPAddressField(blank=True, null=True),
        ),
    ]
