from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbySocket.as_asgi()),
    path("ws/tables/<int:table_id>/", consumers.TableSocket.as_asgi()),
]
