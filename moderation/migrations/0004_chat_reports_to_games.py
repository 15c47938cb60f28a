"""The reported chat lines moved to games (games 0011): moderation forgets
them, the tables stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_chat_reports_from_moderation"),
        ("moderation", "0003_chat_reports"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="ChatFlag"),
                migrations.DeleteModel(name="ChatReport"),
            ],
            database_operations=[],
        ),
    ]
