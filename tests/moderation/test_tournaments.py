"""A moderator cancels a tournament (issue 31): a reason first, every entry
refunded exactly, in the audit log (before and after) and on its admin page."""

import pytest
from django.urls import reverse

from kernel.errors import PermissionDenied
from moderation import services as moderation
from moderation.errors import ReasonRequired
from moderation.models import AuditEntry
from tournaments import services
from tournaments.errors import TournamentNotFound, TournamentOver
from tournaments.models import Entry, Tournament

from ..tournaments.helpers import balance, pool

pytestmark = pytest.mark.django_db


def registered(make_user, count=3, seats=6):
    players = [make_user() for _ in range(count)]
    tournament = services.tournament_create(game="holdem", seats=seats, buy_in=100, fee=10)
    before = {p.pk: balance(p) for p in players}
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    return tournament, players, before


def test_cancelling_refunds_every_entry_and_is_audited(make_user):
    staff = make_user(is_staff=True)
    tournament, players, before = registered(make_user)

    entry = moderation.tournament_cancel(by=staff, tournament_id=tournament.pk, reason="bug")

    assert {p.pk: balance(p) for p in players} == before
    assert (entry.actor, entry.action, entry.reason, entry.target_id) == (
        staff,
        "tourney_cancel",
        "bug",
        tournament.pk,
    )
    assert entry.before["status"] == "registering"
    assert entry.before["pool"] == 330
    assert [e["status"] for e in entry.before["entries"]] == ["registered"] * 3
    assert (entry.after["status"], entry.after["pool"]) == ("cancelled", 0)
    assert [e["status"] for e in entry.after["entries"]] == ["refunded"] * 3


def test_only_staff_with_a_reason_and_only_once(make_user):
    staff, lan = make_user(is_staff=True), make_user()
    tournament, _players, _ = registered(make_user)

    with pytest.raises(PermissionDenied):
        moderation.tournament_cancel(by=lan, tournament_id=tournament.pk, reason="mine")
    with pytest.raises(ReasonRequired):
        moderation.tournament_cancel(by=staff, tournament_id=tournament.pk, reason="  ")
    with pytest.raises(TournamentNotFound):
        moderation.tournament_cancel(by=staff, tournament_id=tournament.pk + 99, reason="x")
    moderation.tournament_cancel(by=staff, tournament_id=tournament.pk, reason="x")
    with pytest.raises(TournamentOver):
        moderation.tournament_cancel(by=staff, tournament_id=tournament.pk, reason="again")
    assert AuditEntry.objects.count() == 1


def test_the_admin_cancels_after_asking_why_and_shows_the_audit(make_user, client):
    staff = make_user(is_staff=True)
    tournament, players, before = registered(make_user, count=2, seats=2)  # running
    client.force_login(staff)
    url = reverse("admin:tournaments_tournament_changelist")
    data = {"action": "cancel", "_selected_action": [str(tournament.pk)]}

    asked = client.post(url, data)
    done = client.post(url, {**data, "apply": "1", "reason": "treo bàn"})
    page = client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))

    assert asked.status_code == 200
    assert list(asked.context["queryset"]) == [tournament]
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert {p.pk: balance(p) for p in players} == before
    assert pool(tournament) == 0
    assert set(tournament.entries.values_list("status", flat=True)) == {Entry.Status.REFUNDED}
    text = page.content.decode()
    assert page.status_code == 200
    assert "treo bàn" in text
    assert players[0].shown_name in text
    assert client.get(url).status_code == 200
