"""The transport alone (bench/transport.py): Channels and the product's channel
layer under Daphne, with no database and no game.

A socket ``/ws/?table=T&seat=S`` joins the group of its seat (``FANOUT=seat``,
as the product publishes one message per seated user) or of its table
(``FANOUT=table``). Every message a client sends is delivered to its table's
four seats: four group messages of ``PAYLOAD_BYTES`` each and one to the
table's public group (nobody listens to it here, as in bench.tables), sent the
product's way (``kernel.notify.send_all``: one pipelined round trip), or one
to the table's group; JSON-encoded per socket as the product's are.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import parse_qs

import django

django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from kernel.notify import send_all  # noqa: E402

SEATS = 4
PAYLOAD = "x" * int(os.environ.get("PAYLOAD_BYTES", "2000"))
FANOUT = os.environ.get("FANOUT", "seat")


class Seat(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        query = parse_qs(self.scope["query_string"].decode())
        self.table = int(query["table"][0])
        self.seat = int(query["seat"][0])
        group = f"b.{self.table}" if FANOUT == "table" else f"b.{self.table}.{self.seat}"
        await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        number = json.loads(text_data or "{}").get("n")
        event = {"type": "table.state", "n": number, "payload": PAYLOAD}
        if FANOUT == "table":
            await self.channel_layer.group_send(f"b.{self.table}", event)
            return
        groups = [f"b.{self.table}.{s}" for s in range(SEATS)] + [f"b.{self.table}.public"]
        await send_all(self.channel_layer, [(group, event) for group in groups])

    async def table_state(self, event: dict[str, Any]) -> None:
        await self.send(
            text_data=json.dumps({"type": "state", "n": event["n"], "p": event["payload"]})
        )


async def http(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """200 to anything: the benchmark waits for it before connecting."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


application = ProtocolTypeRouter(
    {"http": http, "websocket": URLRouter([path("ws/", Seat.as_asgi())])}
)
