"""A tournament's hands are hands like any other (issue 31 item 4): in the
player's history, their detail, their replay step by step, and Poker's hand
export (PHH), through the REST API."""

from __future__ import annotations

import pytest

from games.models import HandPlayer

from ..tournaments.test_tables import filled, play_out

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("game", "seats"), [("holdem", 2), ("tienlen", 4)])
def test_a_sit_and_goes_hands_are_in_the_history_replays_and_export(
    tables, make_user, api, game, seats
):
    tournament, table, lan = filled(make_user, game, seats)
    play_out(tables, tournament, table)
    client = api(lan)

    listed = client.get("/api/v1/hands", {"game": game})
    assert listed.status_code == 200
    played = HandPlayer.objects.filter(user=lan, hand__table=table)
    mine = set(played.values_list("hand", flat=True))
    assert mine
    assert mine <= {h["id"] for h in listed.json()["results"]} or len(mine) > 20
    hand_id = min(mine)
    detail = client.get(f"/api/v1/hands/{hand_id}")
    assert detail.status_code == 200
    assert detail.json()["table"] == table.pk
    steps = client.get(f"/api/v1/hands/{hand_id}/replay/steps")
    assert steps.status_code == 200
    assert steps.json()["steps"]
    if game == "holdem":
        phh = client.get(f"/api/v1/hands/{hand_id}/phh")
        assert phh.status_code == 200
        assert b"blinds_or_straddles" in phh.content
