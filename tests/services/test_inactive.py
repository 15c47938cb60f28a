"""A deactivated (banned) account cannot act at a table, whatever path its
request takes: the services read the account with the seat (no extra query on
a move) and refuse with ``account_banned``, changing nothing."""

import pytest

from games import services
from games.errors import AccountInactive
from games.models import Seat, Table

from ..seeds import ORDINARY
from .driver import ready_all

pytestmark = pytest.mark.django_db


def test_every_action_of_a_deactivated_account_is_refused_and_changes_nothing(
    tables, make_user, dealer
):
    dealer.stack(*ORDINARY)  # no tới trắng, which would end the hand at the deal
    players = [make_user() for _ in range(2)]
    table = services.table_create(owner=players[0], game="tienlen", stake=1)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    ready_all(table)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    banned = players[0]
    banned.is_active = False
    banned.save(update_fields=["is_active"])
    stranger = make_user()
    stranger.is_active = False
    stranger.save(update_fields=["is_active"])
    version = Table.objects.get(pk=table.pk).version
    calls = [
        lambda: services.table_act(table_id=table.pk, user=banned, action={"type": "pass"}),
        lambda: services.table_ready(table_id=table.pk, user=banned),
        lambda: services.table_seed(
            table_id=table.pk, user=banned, client_seed="x1", commitment=table.next_commitment
        ),
        lambda: services.table_leave(table_id=table.pk, user=banned),
        lambda: services.table_add_bot(table_id=table.pk, user=banned),
        lambda: services.chat_post(table_id=table.pk, user=banned, text="hello"),
        lambda: services.table_sit(table_id=table.pk, user=stranger),
    ]
    for call in calls:
        with pytest.raises(AccountInactive) as refused:
            call()
        assert refused.value.code == "account_banned"
    assert Table.objects.get(pk=table.pk).version == version
    assert Seat.objects.filter(table=table).count() == 2
    assert not Seat.objects.get(table=table, user=banned).leaving
