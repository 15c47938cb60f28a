"""Banning, unbanning and muting players (services)."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import DeviceSession, User
from accounts.sessions import token_issue
from games import services
from games.errors import ChatMuted
from games.models import ChatMessage, Seat
from kernel.errors import PermissionDenied
from moderation import services as moderation
from moderation.errors import (
    AlreadyBanned,
    BadMuteLength,
    CannotModerateSelf,
    NotBanned,
    NotMuted,
    ReasonRequired,
)
from moderation.models import AuditEntry

from ..registry import GAMES
from ..services.driver import play_until_finished
from .helpers import BUY_IN, deal, seated_table, wallets

pytestmark = pytest.mark.django_db
PASSWORD = "Bai-Tien-Len-42"


def sessions_of(user):
    return [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)
    ]


def account_picture(user):
    user.refresh_from_db()
    return (
        user.is_active,
        user.muted_until,
        list(Seat.objects.filter(user=user).values_list("table_id", "position", "leaving")),
        DeviceSession.objects.filter(user=user).count(),
        len(sessions_of(user)),
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_player_banned_between_hands_leaves_at_once_with_the_stack_cashed_out(
    tables, make_user, game, client
):
    staff = make_user(is_staff=True)
    table, (lan, minh, *_) = seated_table(make_user, game)
    token_issue(user=minh)
    client.force_login(minh)
    other = client.__class__()
    other.force_login(lan)

    entry = moderation.user_ban(by=staff, user=minh, reason="chip dumping")

    minh.refresh_from_db()
    assert minh.is_active is False
    assert not Seat.objects.filter(user=minh).exists()
    assert wallets([minh]) == {minh.pk: 10_000}
    assert not DeviceSession.objects.filter(user=minh).exists()
    assert sessions_of(minh) == []
    assert len(sessions_of(lan)) == 1
    assert client.get(reverse("home")).wsgi_request.user.is_authenticated is False
    position = 1
    assert (entry.actor, entry.action, entry.reason, entry.target_id) == (
        staff,
        "ban",
        "chip dumping",
        minh.pk,
    )
    assert entry.before == {
        "is_active": True,
        "seats": [{"table": table.pk, "position": position, "leaving": False}],
        "tokens": 1,
        "sessions": 1,
    }
    assert entry.after == {"is_active": False, "seats": [], "tokens": 0, "sessions": 0}


@pytest.mark.parametrize("game", GAMES)
def test_a_player_banned_mid_hand_plays_out_by_the_leave_rule_and_frees_the_seat_at_settlement(
    tables, make_user, game, monkeypatch
):
    staff = make_user(is_staff=True)
    table, (lan, minh, *_), _ = deal(make_user, game)
    held: list[int] = []
    monkeypatch.setattr(tables.scheduler, "settle", held.append)

    entry = moderation.user_ban(by=staff, user=minh, reason="abuse")

    seat = Seat.objects.get(table=table, user=minh)
    assert (seat.leaving, seat.ready) == (True, False)
    assert entry.after["seats"] == [{"table": table.pk, "position": 1, "leaving": True}]
    hand = play_until_finished(tables, table)
    assert held == [hand.pk]
    assert (hand.settled, Seat.objects.get(table=table, user=minh).leaving) == (False, True)
    services.hand_settle(hand_id=hand.pk)
    hand.refresh_from_db()
    assert hand.settled
    assert not Seat.objects.filter(table=table, user=minh).exists()
    assert Seat.objects.filter(table=table, user=lan).exists()
    if game == "holdem":
        minh_escrow = f"seat:{table.pk}:1"
        from wallet.models import Account

        assert Account.objects.get(key=minh_escrow).balance == 0
        assert hand.result is not None
        assert wallets([minh])[minh.pk] == 10_000 - BUY_IN + hand.result["chips"][1] + BUY_IN


def test_a_banned_player_cannot_log_in_and_an_unbanned_one_can(make_user, client):
    staff, minh = make_user(is_staff=True), make_user(username="minh")
    moderation.user_ban(by=staff, user=minh, reason="cheating")

    refused = client.post(reverse("login"), {"username": "minh", "password": PASSWORD})

    assert refused.status_code == 200
    assert refused.wsgi_request.user.is_authenticated is False
    moderation.user_unban(by=staff, user=minh, reason="appeal accepted")
    accepted = client.post(reverse("login"), {"username": "minh", "password": PASSWORD})
    assert accepted.status_code == 302
    assert accepted.wsgi_request.user == minh
    entry = AuditEntry.objects.get(action="unban")
    assert (entry.before, entry.after, entry.reason) == (
        {"is_active": False},
        {"is_active": True},
        "appeal accepted",
    )


def test_refused_bans_change_nothing(tables, make_user):
    staff, player = make_user(is_staff=True), make_user()
    _table, (_lan, minh, _) = seated_table(make_user, "holdem")
    token_issue(user=minh)
    plain_staff = make_user()
    plain_staff.is_staff = True
    plain_staff.save(update_fields=["is_staff"])
    before = account_picture(minh), account_picture(staff), wallets([minh])

    with pytest.raises(PermissionDenied):
        moderation.user_ban(by=player, user=minh, reason="I don't like him")
    with pytest.raises(ReasonRequired):
        moderation.user_ban(by=staff, user=minh, reason="   ")
    with pytest.raises(CannotModerateSelf):
        moderation.user_ban(by=staff, user=staff, reason="oops")
    with pytest.raises(PermissionDenied):
        moderation.user_ban(by=plain_staff, user=staff, reason="coup")
    with pytest.raises(NotBanned):
        moderation.user_unban(by=staff, user=minh, reason="not banned")

    assert (account_picture(minh), account_picture(staff), wallets([minh])) == before
    assert not AuditEntry.objects.exists()
    moderation.user_ban(by=staff, user=minh, reason="for real")
    with pytest.raises(AlreadyBanned):
        moderation.user_ban(by=staff, user=minh, reason="twice")
    assert AuditEntry.objects.count() == 1


def mute_message(until, reason):
    return f"Bạn bị cấm chat đến {timezone.localtime(until):%H:%M %d/%m/%Y}. Lý do: {reason}"


def test_a_muted_player_is_refused_in_vietnamese_until_the_mute_expires(tables, make_user):
    staff = make_user(is_staff=True)
    table, (lan, _, _) = seated_table(make_user, "tienlen")

    entry = moderation.user_mute(by=staff, user=lan, minutes=10, reason="spam")

    until = tables.clock.now() + timedelta(minutes=10)
    lan.refresh_from_db()
    assert (lan.muted_until, lan.muted_reason) == (until, "spam")
    assert entry.before == {"muted_until": None, "muted_reason": ""}
    assert entry.after == {"muted_until": until.isoformat(), "muted_reason": "spam", "minutes": 10}
    tables.clock.advance(minutes=9, seconds=59)
    with translation.override("vi"), pytest.raises(ChatMuted) as err:
        services.chat_post(table_id=table.pk, user=lan, text="mua chip rẻ")
    assert err.value.code == "chat_muted"
    with translation.override("vi"):
        assert err.value.message == mute_message(until, "spam")
    with translation.override("en"):
        assert err.value.as_dict() == {
            "code": "chat_muted",
            "message": f"You are muted in chat until "
            f"{timezone.localtime(until):%H:%M %d/%m/%Y}. Reason: spam",
            "details": {"until": int(until.timestamp() * 1000), "reason": "spam"},
        }
    assert not ChatMessage.objects.exists()

    tables.clock.advance(seconds=1)
    services.chat_post(table_id=table.pk, user=lan, text="xin chào")

    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["xin chào"]


def test_unmute_lets_the_player_chat_again(tables, make_user):
    staff = make_user(is_staff=True)
    table, (lan, _, _) = seated_table(make_user, "maubinh")
    moderation.user_mute(by=staff, user=lan, minutes=60, reason="insults")

    entry = moderation.user_unmute(by=staff, user=lan, reason="apologised")

    services.chat_post(table_id=table.pk, user=lan, text="xin lỗi")
    assert ChatMessage.objects.count() == 1
    assert entry.after == {"muted_until": None, "muted_reason": ""}
    assert entry.before["muted_reason"] == "insults"
    with pytest.raises(NotMuted):
        moderation.user_unmute(by=staff, user=lan, reason="again")


@pytest.mark.parametrize("minutes", [0, -5, 60 * 24 * 365 + 1, "10", True, None])
def test_bad_mute_lengths_are_refused_and_change_nothing(tables, make_user, minutes):
    staff, lan = make_user(is_staff=True), make_user()

    with pytest.raises(BadMuteLength) as err:
        moderation.user_mute(by=staff, user=lan, minutes=minutes, reason="spam")

    with translation.override("vi"):
        assert err.value.message == "Mỗi lần cấm chat kéo dài từ 1 đến 525600 phút."
    lan.refresh_from_db()
    assert (lan.muted_until, lan.muted_reason) == (None, "")
    assert not AuditEntry.objects.exists()


def test_players_cannot_mute(tables, make_user):
    lan, minh = make_user(), make_user()

    with pytest.raises(PermissionDenied):
        moderation.user_mute(by=lan, user=minh, minutes=5, reason="annoying")
    with pytest.raises(ReasonRequired):
        moderation.user_mute(by=make_user(is_staff=True), user=minh, minutes=5, reason="")

    minh.refresh_from_db()
    assert minh.muted_until is None
    assert not AuditEntry.objects.exists()
    assert User.objects.get(pk=minh.pk).is_active


def test_players_cannot_unban_unmute_or_adjust_balances(tables, make_user):
    staff, lan, minh = make_user(is_staff=True), make_user(), make_user()
    moderation.user_ban(by=staff, user=minh, reason="spam")
    moderation.user_mute(by=staff, user=lan, minutes=5, reason="spam")
    before = account_picture(lan), account_picture(minh), wallets([lan, minh])

    with pytest.raises(PermissionDenied):
        moderation.user_unban(by=lan, user=minh, reason="my friend")
    with pytest.raises(PermissionDenied):
        moderation.user_unmute(by=lan, user=lan, reason="let me talk")
    with pytest.raises(PermissionDenied):
        moderation.balance_adjust(by=lan, user=lan, amount=5_000, reason="gift", key="adj:1")

    assert (account_picture(lan), account_picture(minh), wallets([lan, minh])) == before
    assert list(AuditEntry.objects.values_list("action", flat=True)) == ["mute", "ban"]
