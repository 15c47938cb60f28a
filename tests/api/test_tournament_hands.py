"""A tournament's hands are hands like any other (issue 31 item 4): in the
player's history, their detail, their replay step by step, and Poker's hand
export (PHH), through the REST API."""

from __future__ import annotations

import pytest

from games.models import Hand, HandPlayer

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
    page = listed.json()
    shown = {h["id"] for h in page["results"]}
    assert shown <= mine  # (their only hands: this table's)
    assert shown == mine or page["next"]  # every one, or more on the next page
    # the person was away: every clock of theirs ran out and the rules played
    # for them; the hands where they had a turn say so (a hand can end before
    # their turn comes), as many times as the database counted; each hand
    # shows the stake it was dealt at (rising with the levels)
    rows = [h for h in listed.json()["results"] if h["table"] == table.pk]
    assert rows
    counted = dict(played.values_list("hand_id", "timeouts"))
    assert [h["timeouts"] for h in rows] == [counted[h["id"]] for h in rows]
    assert any(h["timeouts"] >= 1 for h in rows)
    dealt_at = dict(Hand.objects.filter(table=table).values_list("pk", "stake"))
    assert [h["stake"] for h in rows] == [dealt_at[h["id"]] for h in rows]
    assert len(set(dealt_at.values())) > 1  # the levels rose during the Sit & Go
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


def test_the_history_page_flags_the_hands_played_for_an_absent_player(tables, make_user, client):
    from ..tournaments.test_tables import SNG_GAMES

    game, seats = SNG_GAMES[0]
    tournament, table, lan = filled(make_user, game, seats)
    play_out(tables, tournament, table)
    client.force_login(lan)
    page = client.get("/tables/history/")
    assert page.status_code == 200
    assert b"data-history-away" in page.content
