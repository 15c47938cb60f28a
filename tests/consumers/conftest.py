import pytest

from games.consumers import RoomSocket

from .. import wire
from ..services.conftest import money_checked, wire_checked

__all__ = ["money_checked", "wire_checked"]


@pytest.fixture(autouse=True)
def socket_checked(monkeypatch):
    """Every message a socket sends matches the published schema."""
    checked = wire.Checked()
    original = RoomSocket.send_json

    async def send_json(self, content):
        wire.check("WsServerMessage", content)
        checked.count += 1
        await original(self, content)

    monkeypatch.setattr(RoomSocket, "send_json", send_json)
    return checked
