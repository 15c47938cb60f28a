"""Settings of the transport benchmark's app (bench/transport_app.py): the
product's own channel layer (its backend and configuration, read from
vipgame.settings under the same environment) and nothing else."""

from vipgame.settings import CHANNEL_LAYERS, SECRET_KEY  # noqa: F401

DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = ["channels"]
ASGI_APPLICATION = "bench.transport_app.application"
USE_TZ = True
