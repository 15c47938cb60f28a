"""Reported chat lines: a player reports a line (API and socket, one service),
the line waits in the moderators' queue, a moderator dismisses it or mutes its
author, with a reason, in the audit log."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.urls import reverse

from games import services
from games.errors import ChatMuted
from games.models import ChatFlag, ChatMessage, ChatReport
from kernel.errors import PermissionDenied
from moderation import services as moderation
from moderation.errors import CannotModerateSelf, ReasonRequired, ReportNotOpen
from moderation.models import AuditEntry

from ..api.helpers import client_for, throttles_off
from .helpers import deal, seated_table

pytestmark = pytest.mark.django_db
QUEUE = "admin:games_chatreport_changelist"


@pytest.fixture
def api(settings):
    throttles_off(settings)
    return client_for


def report_url(message: ChatMessage | int) -> str:
    return f"/api/v1/chat/{getattr(message, 'pk', message)}/report"


def queue_state() -> list[tuple]:
    return [
        *ChatReport.objects.order_by("pk").values_list("message_id", "status", "flag_count"),
        *ChatFlag.objects.order_by("pk").values_list("report_id", "reporter_id", "category"),
        *AuditEntry.objects.order_by("pk").values_list("action", "target_id"),
    ]


def public_line(make_user, text="đồ ngu, cút đi"):
    table, (lan, minh, hoa) = seated_table(make_user, "tienlen")
    line = services.chat_post(table_id=table.pk, user=lan, text=text)
    return table, line, (lan, minh, hoa)


def test_a_seated_player_and_a_spectator_report_a_line_and_it_waits_in_the_queue(
    tables, make_user, api
):
    _table, line, (_lan, minh, _hoa) = public_line(make_user)
    spectator = make_user()

    first = api(minh).post(report_url(line), {"category": "abuse", "note": "chửi bậy"})
    tables.clock.advance(minutes=2)
    second = api(spectator).post(report_url(line), {})

    assert (first.status_code, first.json()) == (
        201,
        {"message_id": line.pk, "category": "abuse"},
    )
    assert (second.status_code, second.json()["category"]) == (201, "abuse")
    report = ChatReport.objects.get()
    assert (report.message, report.status, report.flag_count) == (line, "open", 2)
    assert report.last_reported_at - report.first_reported_at == timedelta(minutes=2)
    assert list(report.flags.values_list("reporter", "category", "note")) == [
        (minh.pk, "abuse", "chửi bậy"),
        (spectator.pk, "abuse", ""),
    ]
    assert not AuditEntry.objects.exists()  # a player's report is no moderation action


@pytest.mark.parametrize(
    ("who", "body", "status", "code"),
    [
        ("author", {}, 409, "cannot_report_own"),
        ("minh", {"category": "rude"}, 400, "bad_report"),
        ("minh", {"note": "x" * 201}, 400, "bad_report"),
    ],
)
def test_refused_reports_change_nothing(tables, make_user, api, who, body, status, code):
    _table, line, (lan, minh, _hoa) = public_line(make_user)
    before = queue_state()

    response = api(lan if who == "author" else minh).post(report_url(line), body)

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert queue_state() == before == []


def test_a_player_reports_a_line_once(tables, make_user, api):
    _table, line, (_lan, minh, _hoa) = public_line(make_user)
    api(minh).post(report_url(line), {"category": "spam"})
    before = queue_state()

    again = api(minh, "en").post(report_url(line), {"category": "abuse"})

    assert again.status_code == 409
    assert again.json() == {
        "code": "already_reported",
        "message": "You have already reported this line: a moderator will look at it.",
        "details": {},
    }
    assert queue_state() == before


def test_a_bots_line_an_unknown_line_and_an_old_line_cannot_be_reported(tables, make_user, api):
    table, line, (_lan, minh, _hoa) = public_line(make_user)
    bot = make_user()
    bot.is_bot = True
    bot.save(update_fields=["is_bot"])
    bot_line = ChatMessage.objects.create(table=table, user=bot, text="chúc may mắn")

    bots = api(minh).post(report_url(bot_line), {})
    unknown = api(minh).post(report_url(bot_line.pk + 100), {})
    tables.clock.advance(hours=24, seconds=1)
    old = api(minh).post(report_url(line), {})

    assert (bots.status_code, bots.json()["code"]) == (409, "cannot_report_bot")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "chat_line_not_found")
    assert (old.status_code, old.json()["code"]) == (409, "chat_line_too_old")
    assert old.json()["message"] == "Không thể báo cáo tin nhắn cũ hơn 24 giờ."
    assert queue_state() == []


def test_a_private_tables_lines_only_for_those_who_could_read_them(tables, make_user, api):
    owner, guest, stranger, played = make_user(), make_user(), make_user(), make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1, is_private=True)
    services.table_sit(table_id=table.pk, user=played, invite_code=table.invite_code)
    services.table_leave(table_id=table.pk, user=played)
    services.table_sit(table_id=table.pk, user=guest, invite_code=table.invite_code)
    line = services.chat_post(table_id=table.pk, user=guest, text="mua chip giá rẻ ở web khác")

    refused = api(stranger).post(report_url(line), {"category": "spam"})
    assert (refused.status_code, refused.json()["code"]) == (404, "chat_line_not_found")
    assert queue_state() == []
    by_invite = api(stranger).post(report_url(line), {"invite": table.invite_code})
    by_owner = api(owner).post(report_url(line), {"category": "spam"})

    assert (by_invite.status_code, by_owner.status_code) == (201, 201)
    assert ChatReport.objects.get().flag_count == 2
    # One who sat there with the invite code and left played no hand, but is one
    # of its invited players (docs/protocol.md "Your tables"): they may open
    # the table and read its chat, so they may report a line of it.
    left = api(played).post(report_url(line), {})
    assert left.status_code == 201
    assert ChatReport.objects.get().flag_count == 3


def test_a_player_who_played_a_hand_at_a_private_table_may_report_after_leaving(
    tables, make_user, api
):
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1, is_private=True)
    players = [make_user() for _ in range(2)]
    for user in players:
        services.table_sit(table_id=table.pk, user=user, invite_code=table.invite_code)
    for user in players:
        services.table_ready(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    line = services.chat_post(table_id=table.pk, user=owner, text="thua đi đồ ngốc")

    response = api(players[0]).post(report_url(line), {})

    assert response.status_code == 201


def test_reports_are_rate_limited_per_player_and_refusals_do_not_count(
    tables, make_user, api, settings
):
    settings.CHAT_REPORT_RATE = "2/hour"
    table, _own, (lan, minh, hoa) = public_line(make_user)
    lines = [
        services.chat_post(table_id=table.pk, user=author, text=f"rác {n}")
        for n, author in enumerate([lan, hoa, lan])
    ]
    client = api(minh)

    mine = services.chat_post(table_id=table.pk, user=minh, text="tôi")
    refused_own = client.post(report_url(mine), {})
    answers = [client.post(report_url(line), {}) for line in lines]
    other = api(hoa).post(report_url(lines[0]), {})

    assert refused_own.json()["code"] == "cannot_report_own"
    assert [a.status_code for a in answers] == [201, 201, 429]
    limited = answers[2].json()
    assert limited["code"] == "report_rate_limited"
    assert 3590 <= limited["details"]["wait"] <= 3600
    wait = limited["details"]["wait"]
    assert limited["message"] == f"Bạn báo cáo quá nhanh: hãy chờ {wait} giây."
    assert other.status_code == 201  # per player
    assert sorted(ChatFlag.objects.values_list("reporter_id", "report__message_id")) == sorted(
        [(minh.pk, lines[0].pk), (minh.pk, lines[1].pk), (hoa.pk, lines[0].pk)]
    )


def test_an_anonymous_caller_cannot_report(tables, make_user, api):
    _table, line, _users = public_line(make_user)

    response = api().post(report_url(line), {})

    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")
    assert queue_state() == []


# -- the queue -----------------------------------------------------------------


def reported(make_user, count=1):
    """``count`` reported lines at one public table: (table, lines, reporter)."""
    table, (lan, minh, hoa) = seated_table(make_user, "tienlen")
    services.chat_post(table_id=table.pk, user=hoa, text="chào cả nhà")
    lines = []
    for n in range(count):
        line = services.chat_post(table_id=table.pk, user=lan, text=f"đồ ngu {n}")
        services.chat_report(user=minh, message_id=line.pk, category="abuse")
        lines.append(line)
    services.chat_post(table_id=table.pk, user=hoa, text="bình tĩnh nào")
    return table, lines, (lan, minh, hoa)


def act(client, action, reports, query="", **form):
    return client.post(
        reverse(QUEUE) + query,
        {"action": action, "_selected_action": [str(r.pk) for r in reports], **form},
    )


def test_the_queue_lists_waiting_lines_oldest_first(tables, make_user, client):
    staff = make_user(is_staff=True)
    _table, lines, (_lan, _minh, hoa) = reported(make_user, count=2)
    first, second = ChatReport.objects.order_by("pk")
    services.chat_report(user=hoa, message_id=lines[1].pk, category="spam")
    client.force_login(staff)

    waiting = client.get(reverse(QUEUE))
    moderation.chat_report_dismiss(by=staff, report_id=first.pk, reason="đùa giữa bạn bè")
    after = client.get(reverse(QUEUE))
    dismissed = client.get(reverse(QUEUE), {"state": "dismissed"})

    assert [r.pk for r in waiting.context["cl"].result_list] == [first.pk, second.pk]
    page = waiting.content.decode()
    assert "đồ ngu 0" in page
    assert "đồ ngu 1" in page
    assert "Lăng mạ, quấy rối, Quảng cáo, spam" in page  # the second line's reasons
    assert [r.pk for r in after.context["cl"].result_list] == [second.pk]
    assert [r.pk for r in dismissed.context["cl"].result_list] == [first.pk]


def test_a_reported_line_is_shown_among_its_neighbours_with_its_reporters(
    tables, make_user, client
):
    staff = make_user(is_staff=True)
    _table, _lines, (_lan, minh, _hoa) = reported(make_user)
    report = ChatReport.objects.get()
    client.force_login(staff)

    page = client.get(reverse("admin:games_chatreport_change", args=[report.pk]))

    body = page.content.decode()
    assert page.status_code == 200
    conversation = body[body.index('<table class="chat-context">') :]
    order = [conversation.index(text) for text in ("chào cả nhà", "đồ ngu 0", "bình tĩnh nào")]
    assert order == sorted(order)
    assert '<tr class="reported">' in body
    assert str(minh) in body
    assert "Lăng mạ, quấy rối" in body


def test_a_moderator_dismisses_a_report_with_a_reason(tables, make_user, client):
    staff = make_user(is_staff=True)
    _table, (line,), (lan, _minh, _hoa) = reported(make_user)
    report = ChatReport.objects.get()
    client.force_login(staff)

    asked = act(client, "dismiss", [report])
    empty = act(client, "dismiss", [report], apply="1", reason=" ")
    report.refresh_from_db()
    assert report.status == "open"
    done = act(client, "dismiss", [report], apply="1", reason="không vi phạm")

    assert asked.status_code == 200
    assert list(asked.context["queryset"]) == [report]
    assert empty.context["form"].errors == {"reason": ["Hãy ghi lý do cho việc này."]}
    assert done.status_code == 302
    report.refresh_from_db()
    assert (report.status, report.resolved_by, report.resolution) == (
        "dismissed",
        staff,
        "không vi phạm",
    )
    lan.refresh_from_db()
    assert lan.muted_until is None
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor, entry.target_id, entry.reason) == (
        "report_dismiss",
        staff,
        report.pk,
        "không vi phạm",
    )
    assert entry.before == {
        "status": "open",
        "line": line.pk,
        "author": lan.pk,
        "text": "đồ ngu 0",
        "reports": 1,
    }
    assert entry.after == {**entry.before, "status": "dismissed"}


def test_a_moderator_mutes_the_author_from_the_queue(tables, make_user, client):
    staff = make_user(is_staff=True)
    table, (line,), (lan, _minh, _hoa) = reported(make_user)
    report = ChatReport.objects.get()
    client.force_login(staff)

    done = act(client, "mute_author", [report], apply="1", reason="lăng mạ", minutes="30")
    stale = act(client, "mute_author", [report], apply="1", reason="lần nữa", minutes="30")
    again = act(
        client, "mute_author", [report], "?state=all", apply="1", reason="lần nữa", minutes="30"
    )

    assert done.status_code == 302
    lan.refresh_from_db()
    assert lan.muted_until == tables.clock.now() + timedelta(minutes=30)
    assert lan.muted_reason == "lăng mạ"
    report.refresh_from_db()
    assert (report.status, report.resolution) == ("muted", "lăng mạ")
    mute, upheld = AuditEntry.objects.order_by("pk")
    assert (mute.action, mute.target_id, upheld.action, upheld.target_id) == (
        "mute",
        lan.pk,
        "report_mute",
        report.pk,
    )
    assert upheld.after == {
        "status": "muted",
        "line": line.pk,
        "author": lan.pk,
        "text": "đồ ngu 0",
        "reports": 1,
        "minutes": 30,
        "mute_entry": mute.pk,
    }
    # From the queue (waiting lines only) a line dealt with meanwhile is not
    # selectable; from the list of every line it is refused.
    assert stale.status_code == 302
    assert [str(m) for m in again.wsgi_request._messages][-1] == (
        f"{report}: Báo cáo này đã được xử lý rồi."
    )
    assert AuditEntry.objects.count() == 2
    with pytest.raises(ChatMuted):
        services.chat_post(table_id=table.pk, user=lan, text="lại đây")


def test_only_staff_resolve_reports_with_a_reason_and_only_once(tables, make_user):
    staff = make_user(is_staff=True)
    _table, (_line,), (lan, minh, _hoa) = reported(make_user)
    report = ChatReport.objects.get()
    before = queue_state()

    with pytest.raises(PermissionDenied):
        moderation.chat_report_dismiss(by=minh, report_id=report.pk, reason="tôi là mod")
    with pytest.raises(PermissionDenied):
        moderation.chat_report_mute(by=minh, report_id=report.pk, minutes=5, reason="x")
    with pytest.raises(ReasonRequired):
        moderation.chat_report_mute(by=staff, report_id=report.pk, minutes=5, reason="")
    with pytest.raises(ReportNotOpen):
        moderation.chat_report_dismiss(by=staff, report_id=report.pk + 1, reason="none")

    assert queue_state() == before
    lan.refresh_from_db()
    assert lan.muted_until is None
    moderation.chat_report_dismiss(by=staff, report_id=report.pk, reason="ok")
    with pytest.raises(ReportNotOpen):
        moderation.chat_report_mute(by=staff, report_id=report.pk, minutes=5, reason="late")


def test_a_line_already_dealt_with_keeps_its_decision_when_reported_again(tables, make_user, api):
    staff = make_user(is_staff=True)
    _table, (line,), (_lan, _minh, hoa) = reported(make_user)
    report = ChatReport.objects.get()
    moderation.chat_report_dismiss(by=staff, report_id=report.pk, reason="không sao")

    response = api(hoa).post(report_url(line), {"category": "abuse"})

    assert response.status_code == 201
    report.refresh_from_db()
    assert (report.status, report.flag_count) == ("dismissed", 2)


def test_the_hand_in_play_is_untouched_by_reports(tables, make_user, api):
    """A report reads chat only: the table and its hand are as they were."""
    table, (lan, minh, _), _ = deal(make_user, "maubinh")
    line = services.chat_post(table_id=table.pk, user=lan, text="nhanh lên")
    table.refresh_from_db()
    version = table.version

    assert api(minh).post(report_url(line), {}).status_code == 201
    table.refresh_from_db()
    assert table.version == version


def test_a_moderator_cannot_dismiss_a_report_of_their_own_line(tables, make_user, client):
    # Given a reported line written by a player who is also a moderator.
    _table, (_line,), (lan, _minh, _hoa) = reported(make_user)
    lan.is_staff = True
    lan.save(update_fields=["is_staff"])
    lan.user_permissions.add(Permission.objects.get(codename="view_chatreport"))
    report = ChatReport.objects.get()
    before = queue_state()

    # When they dismiss it, in the service or from the queue...
    with pytest.raises(CannotModerateSelf) as refused:
        moderation.chat_report_dismiss(by=lan, report_id=report.pk, reason="tôi không sai")
    client.force_login(lan)
    page = act(client, "dismiss", [report], apply="1", reason="tôi không sai")

    # ... it is refused like every other decision about oneself: nothing changed.
    assert refused.value.code == "cannot_moderate_self"
    assert page.status_code == 302
    shown = [str(m) for m in get_messages(page.wsgi_request)]
    assert shown == [f"{report}: Bạn không thể làm việc này với chính tài khoản của mình."]
    report.refresh_from_db()
    assert (report.status, report.resolved_by) == ("open", None)
    assert queue_state() == before
    assert not AuditEntry.objects.exists()
