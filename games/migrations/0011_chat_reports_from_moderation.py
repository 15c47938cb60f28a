"""The reported chat lines (``ChatReport``, ``ChatFlag``) move from moderation to
games (chat is the games'; moderation reads the queue): the state only, the
tables keep their names. Their content types follow, so the audit entries about
a report still point at it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def content_types_follow(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    content_type.objects.filter(
        app_label="moderation", model__in=["chatreport", "chatflag"]
    ).update(app_label="games")


def content_types_return(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    content_type.objects.filter(app_label="games", model__in=["chatreport", "chatflag"]).update(
        app_label="moderation"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0010_seat_bot_for_address"),
        ("moderation", "0003_chat_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ChatReport",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("open", "Waiting for a moderator"),
                                    ("dismissed", "Dismissed"),
                                    ("muted", "Author muted"),
                                ],
                                default="open",
                                max_length=10,
                                verbose_name="status",
                            ),
                        ),
                        ("first_reported_at", models.DateTimeField(verbose_name="first reported")),
                        ("last_reported_at", models.DateTimeField(verbose_name="last reported")),
                        (
                            "flag_count",
                            models.PositiveIntegerField(default=0, verbose_name="reports"),
                        ),
                        (
                            "resolved_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="resolved"),
                        ),
                        (
                            "resolution",
                            models.TextField(blank=True, verbose_name="moderator's reason"),
                        ),
                        (
                            "message",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="report",
                                to="games.chatmessage",
                                verbose_name="chat line",
                            ),
                        ),
                        (
                            "resolved_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="resolved by",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "reported chat line",
                        "verbose_name_plural": "reported chat lines",
                        "db_table": "moderation_chatreport",
                        "ordering": ["first_reported_at", "id"],
                    },
                ),
                migrations.CreateModel(
                    name="ChatFlag",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "category",
                            models.CharField(
                                choices=[
                                    ("abuse", "Insults or harassment"),
                                    ("spam", "Spam or advertising"),
                                    ("cheating", "Cheating or collusion"),
                                    ("other", "Something else"),
                                ],
                                max_length=10,
                                verbose_name="why",
                            ),
                        ),
                        ("note", models.CharField(blank=True, max_length=200, verbose_name="note")),
                        ("created_at", models.DateTimeField(verbose_name="time")),
                        (
                            "reporter",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="reported by",
                            ),
                        ),
                        (
                            "report",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="flags",
                                to="games.chatreport",
                                verbose_name="reported chat line",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "chat line report",
                        "verbose_name_plural": "chat line reports",
                        "db_table": "moderation_chatflag",
                        "ordering": ["id"],
                    },
                ),
                migrations.AddIndex(
                    model_name="chatreport",
                    index=models.Index(
                        fields=["status", "first_reported_at"], name="chat_report_queue"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="chatflag",
                    constraint=models.UniqueConstraint(
                        fields=("report", "reporter"), name="one_flag_per_reporter"
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_follow, content_types_return),
    ]
