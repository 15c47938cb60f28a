"""Expand: a nullable column on games_hand, with no default in the table (no
rewrite, one short ACCESS EXCLUSIVE lock); the previous release's INSERTs do
not name it and keep working. Reversed (contract) only once no process runs
this release."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0017_room_outages")]

    operations = [
        migrations.RunSQL(
            'ALTER TABLE "games_hand" ADD COLUMN "release_next" text NULL',
            reverse_sql='ALTER TABLE "games_hand" DROP COLUMN "release_next"',
        )
    ]
