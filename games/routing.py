from django.urls import path, re_path

from . import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbySocket.as_asgi()),
    path("ws/tables/<int:table_id>/", consumers.TableSocket.as_asgi()),
    # Any other path: accepted, then closed with 4404 (not a 500 in the log).
    re_path(r"", consumers.NoSuchSocket.as_asgi()),
]
