"""The table harness runs a service's after-commit work as production does:
once, after the service's transaction ended, and not at all when it rolled back."""

from datetime import timedelta

import pytest
from django.db import connection

from games import publish, services, tasks
from games.errors import AlreadySeated
from games.models import Seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """Each publication, with how deep in transactions it was sent."""
    sent = []
    monkeypatch.setattr(
        publish, "send", lambda messages, **_: sent.append(len(connection.atomic_blocks))
    )
    return sent


def test_a_service_publishes_once_after_its_transaction_and_not_when_refused(
    tables, make_user, sent
):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    outside = len(connection.atomic_blocks)  # the test's own transaction
    before = len(sent)

    services.table_sit(table_id=table.pk, user=lan)
    assert sent[before:] == [outside]  # once, outside the service's transaction

    with pytest.raises(AlreadySeated):
        services.table_sit(table_id=table.pk, user=lan)
    assert len(sent) == before + 1


def test_the_sweeper_runs_each_fired_clocks_work_once(tables, make_user, sent):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    assert table.deadline is not None  # the ready clock
    outside = len(connection.atomic_blocks)
    before = len(sent)

    tables.clock.moment = table.deadline + timedelta(seconds=5)  # Minh never readies
    assert tasks.sweeper()["fired"] == 1

    assert not Seat.objects.filter(table=table, user=minh).exists()
    assert sent[before:] == [outside]
