"""HTTP and WebSocket entry point (Daphne)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
django_asgi_app = get_asgi_application()

from vipgame.checks import refuse_to_start  # noqa: E402

refuse_to_start()  # DEBUG=0 on SQLite or the embedded Redis: Daphne does not start

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402
from games.ws_auth import websocket_stack  # noqa: E402
from games.ws_close import (  # noqa: E402
    allow_protocol_close_codes,
    bound_slow_readers,
    defer_debug_text,
)

allow_protocol_close_codes()
bound_slow_readers(settings.WS_MAX_PENDING_BYTES)
defer_debug_text()
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": websocket_stack(URLRouter(websocket_urlpatterns)),
    }
)

from kernel.ops.pauses import tune  # noqa: E402

tune(settings.GC_THRESHOLDS, freeze=settings.GC_FREEZE)  # what is loaded now stays
