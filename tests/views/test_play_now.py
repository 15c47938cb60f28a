"""Issue 32, item 1, through the pages: one tap on "play now" seats, readies
and deals; a second tap goes back to the seat; home shows "your seat" with
the chips held there."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Hand, Seat, Table
from wallet import services as wallet

from ..registry import GAMES
from ..seeds import ORDINARY

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("game", GAMES)
def test_two_taps_one_seat_dealt_and_shown_with_its_chips_at_home(game, make_user, tables, dealer):
    dealer.stack(*ORDINARY)  # no hand that ends at the deal (tới trắng)
    lan = make_user()
    client = client_for(lan)
    before = wallet.account_for_user(user=lan).available
    first = client.post(reverse("play-now", args=[game]))
    table = Table.objects.get()
    assert first["Location"] == f"/tables/{table.pk}/"
    assert table.status == Table.Status.PLAYING  # no Ready tap
    assert Hand.objects.filter(table=table).count() == 1
    available = wallet.account_for_user(user=lan).available

    second = client.post(reverse("play-now", args=[game]))
    assert second["Location"] == first["Location"]
    assert Table.objects.count() == 1
    assert Seat.objects.filter(user=lan).count() == 1
    assert wallet.account_for_user(user=lan).available == available  # no second buy-in

    held = before - available  # a buy-in to the seat, or a hold on the wallet
    assert held > 0
    page = client.get("/").content.decode()
    assert f'data-seat-chips="{held}"' in page
    assert "Ghế của bạn đang giữ" in page
    assert "data-back-to-seat" in page
    lobby = client.get(f"/tables/?game={game}").content.decode()
    assert f'"chips": {held}' in lobby  # the lobby's "your tables" data


def test_the_tap_posts_at_once_for_a_signed_in_player(make_user):
    """One request from the tap to the table page: the home tile and the lobby
    post to play now (no page in between); a visitor's link still goes by
    the log-in page and the page that posts once back."""
    client = client_for(make_user())
    home = client.get("/").content.decode()
    lobby = client.get("/tables/").content.decode()
    for game in GAMES:
        action = f'<form method="post" action="/tables/play/{game}/"'
        assert action in home
        assert action in lobby
        assert f'<button type="submit" class="button play" data-home-play-now="{game}">' in home
        assert f'<button type="submit" class="button big" data-play-now="{game}">' in lobby
    visitor = Client().get("/").content.decode()
    assert '<form method="post" action="/tables/play/' not in visitor
