"""A request that keeps losing to the player's other requests (deadlocks) is
answered 503 ``busy`` in the player's language, never 500."""

import pytest

from games import services
from games.models import Table
from games.services.work import TableWork

from ..services.test_retry import deadlock
from .helpers import url

pytestmark = pytest.mark.django_db(transaction=True)


def test_busy_is_a_503_in_the_players_language(api, make_user, monkeypatch, settings):
    # given: a seated player, and every table commit a deadlock's victim
    settings.DB_RETRY_BACKOFF_MS = 1
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=5, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    version = Table.objects.get(pk=table.pk).version

    def losing_commit(self):
        raise deadlock()

    monkeypatch.setattr(TableWork, "commit", losing_commit)
    # when
    vietnamese = api(lan).post(url(f"tables/{table.pk}/ready"), {})
    english = api(lan, language="en").post(url(f"tables/{table.pk}/ready"), {})
    # then
    assert vietnamese.status_code == english.status_code == 503
    assert vietnamese["Retry-After"] == "1"
    assert vietnamese.json() == {
        "code": "busy",
        "message": "Máy chủ đang bận xử lý các yêu cầu khác của bạn: chưa có gì thay đổi, "
        "bạn thử lại nha.",
        "details": {},
    }
    assert english.json()["message"] == (
        "The server is busy with your other requests: nothing was done, try again."
    )
    assert Table.objects.get(pk=table.pk).version == version
