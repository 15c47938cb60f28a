import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")

app = Celery("vipgame")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Our log format on Celery's handlers, the log context per task (vipgame/ops).
import vipgame.ops.celery_hooks  # noqa: E402, F401
