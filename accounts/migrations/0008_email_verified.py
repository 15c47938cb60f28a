"""E-mail on the account (accounts.recovery): ``email`` becomes the verified
address, unique whatever its case; ``email_pending`` holds an address until the
link mailed to it is opened. Addresses set before (the admin, createsuperuser)
were never verified: each moves to ``email_pending``, so no unchecked address
can receive a reset mail and no two accounts hold one address. The column has a
database default, so the release before this one can still create accounts."""

import django.db.models.functions.text
from django.db import migrations, models


def addresses_pending(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.exclude(email="").update(email_pending=models.F("email"), email="")


def addresses_back(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.filter(email="").exclude(email_pending="").update(email=models.F("email_pending"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_legacy_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="email_pending",
            field=models.EmailField(
                blank=True,
                db_default="",
                default="",
                help_text="Becomes the account's address once the link mailed to it is opened.",
                max_length=254,
                verbose_name="e-mail address waiting for verification",
            ),
        ),
        migrations.RunPython(addresses_pending, addresses_back, elidable=True),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("email"),
                condition=models.Q(("email", ""), _negated=True),
                name="accounts_user_email_unique",
                violation_error_message="Another account already uses this e-mail address.",
            ),
        ),
    ]
