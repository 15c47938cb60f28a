"""The integrity report: one-way chip flows between regulars, shared addresses and devices."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Hand, HandPlayer
from moderation.models import Sighting
from moderation.selectors import PairRow, Thresholds, shared_sightings, suspicious_pairs
from moderation.services import sighting_record

pytestmark = pytest.mark.django_db
PASSWORD = "Bai-Tien-Len-42"
LOOSE = Thresholds(days=30, min_hands=1, min_chips=1, min_share=0.0)


class Hands:
    """Settled hands with given results, straight into the tables."""

    def __init__(self, owner):
        self.table = services.table_create(owner=owner, game="tienlen", stake=10, seat_count=4)
        self.number = 0

    def add(self, nets, *, ended=None, voided=False):
        self.number += 1
        hand = Hand.objects.create(
            table=self.table,
            number=self.number,
            game="tienlen",
            commitment="0" * 64,
            server_seed="1" * 64,
            players=[{"position": i, "user_id": u.pk} for i, (u, _) in enumerate(nets)],
            ended_at=ended or timezone.now(),
            settled=True,
            voided=voided,
            result={"chips": [n for _, n in nets]},
        )
        HandPlayer.objects.bulk_create(
            HandPlayer(hand=hand, user=u, index=i, position=i, net=None if voided else n)
            for i, (u, n) in enumerate(nets)
        )
        return hand


def test_a_planted_chip_dumping_pair_is_found_and_fair_regulars_are_not(make_user, settings):
    dumper, receiver, lan, minh = (
        make_user(username=n) for n in ("dumper", "receiver", "lan", "minh")
    )
    hands = Hands(dumper)
    planted = [hands.add([(dumper, -100), (receiver, 100)]) for _ in range(24)]
    planted.append(hands.add([(dumper, 50), (receiver, -50)]))
    for i in range(30):  # regulars trading chips back and forth
        hands.add([(lan, 100 if i % 2 else -100), (minh, -100 if i % 2 else 100)])
    for _ in range(30):  # too few chips apart: under the threshold
        hands.add([(lan, -1), (receiver, 1)])
    for _ in range(5):  # voided and old hands do not count
        hands.add([(dumper, -100), (receiver, 100)], voided=True)
        hands.add([(dumper, -100), (receiver, 100)], ended=timezone.now() - timedelta(days=31))

    found = suspicious_pairs(
        thresholds=Thresholds(days=30, min_hands=20, min_chips=1_000, min_share=0.8)
    )

    assert found == [PairRow(dumper, receiver, hands=25, net=2_350, gross=2_450, share=0.959)]


def test_a_loss_is_shared_among_the_winners_in_proportion(make_user):
    a, b, c = make_user(), make_user(), make_user()
    bot = make_user()
    bot.is_bot = True
    bot.save(update_fields=["is_bot"])
    hands = Hands(a)
    hands.add([(a, -300), (b, 200), (c, 100)])
    hands.add([(a, -100), (b, 50), (bot, 50)])

    found = suspicious_pairs(thresholds=LOOSE)

    assert found == [
        PairRow(a, b, hands=2, net=250, gross=250, share=1.0),
        PairRow(a, c, hands=1, net=100, gross=100, share=1.0),
    ]


def test_the_report_page_lists_the_pair_and_links_to_their_hands(make_user, client):
    staff = make_user(is_staff=True)
    dumper, receiver, other = make_user(), make_user(), make_user()
    hands = Hands(dumper)
    planted = [hands.add([(dumper, -500), (receiver, 500)]) for _ in range(3)]
    hands.add([(dumper, -500), (other, 500)])
    client.force_login(staff)

    page = client.get(
        reverse("admin:moderation_integrityreport_changelist"),
        {"min_hands": 3, "min_chips": 100, "min_share": 90, "days": 7},
    )
    link = f"{reverse('admin:games_hand_changelist')}?together={dumper.pk},{receiver.pk}"
    listed = client.get(link)

    assert page.status_code == 200
    assert [(r.sender, r.receiver, r.net) for r, _ in page.context["pairs"]] == [
        (dumper, receiver, 1_500)
    ]
    assert link.replace("&", "&amp;") in page.content.decode()
    assert listed.status_code == 200
    assert sorted(h.pk for h in listed.context["cl"].result_list) == sorted(h.pk for h in planted)


def log_in(client, username):
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302


def test_accounts_sharing_a_device_or_an_address_are_reported(make_user):
    _lan, _minh, an, binh, loner = (
        make_user(username=n) for n in ("lan", "minh", "an", "binh", "loner")
    )
    family = Client(REMOTE_ADDR="198.51.100.7")
    family.get(reverse("home"))
    device = family.cookies["device"].value
    log_in(family, "lan")
    family.post(reverse("logout"))
    log_in(family, "minh")
    cafe_1 = Client(REMOTE_ADDR="203.0.113.9")
    cafe_2 = Client(REMOTE_ADDR="203.0.113.9")
    log_in(cafe_1, "an")
    log_in(cafe_2, "binh")
    log_in(Client(REMOTE_ADDR="192.0.2.1"), "loner")
    hands = Hands(an)
    together = hands.add([(an, -10), (binh, 10)])
    hands.add([(an, -10), (loner, 10)])

    rows = shared_sightings(days=30)

    shared = sorted(
        (r.kind, r.value, [u.username for u in r.users], r.hands_together) for r in rows
    )
    assert shared == [
        ("device", device, ["lan", "minh"], 0),
        ("ip", "198.51.100.7", ["lan", "minh"], 0),
        ("ip", "203.0.113.9", ["an", "binh"], 1),
    ]
    assert Sighting.objects.filter(user=loner).count() == 1
    link = f"{reverse('admin:games_hand_changelist')}?together={an.pk},{binh.pk}"
    staff = Client()
    staff.force_login(make_user(is_staff=True))
    assert [h.pk for h in staff.get(link).context["cl"].result_list] == [together.pk]


def test_sightings_are_written_at_log_in_and_not_on_every_request(make_user):
    lan = make_user(username="lan")
    browser = Client(REMOTE_ADDR="198.51.100.20")
    browser.get(reverse("home"))
    device = browser.cookies["device"].value

    log_in(browser, "lan")
    first = Sighting.objects.get(user=lan)
    browser.get(reverse("home"))
    browser.get(reverse("home"))
    unchanged = Sighting.objects.get(user=lan)
    browser.post(reverse("logout"))
    log_in(browser, "lan")
    again = Sighting.objects.get(user=lan)

    assert (first.ip, first.device) == ("198.51.100.20", device)
    assert unchanged.last_seen == first.last_seen
    assert again.last_seen > first.last_seen
    assert again.first_seen == first.first_seen
    assert Sighting.objects.count() == 1


def test_a_browser_without_the_cookie_gets_one_and_a_forged_one_is_replaced(make_user):
    browser = Client(REMOTE_ADDR="198.51.100.30")
    browser.cookies["device"] = "<script>"

    response = browser.get(reverse("home"))

    cookie = response.cookies["device"]
    assert len(cookie.value) == 22
    assert cookie["httponly"] is True
    assert cookie["max-age"] == 2 * 365 * 24 * 3600
    kept = browser.get(reverse("home"))
    assert "device" not in kept.cookies


def test_recording_the_same_sighting_twice_keeps_one_row(make_user):
    lan = make_user()
    early = timezone.now() - timedelta(hours=1)

    sighting_record(user=lan, ip="192.0.2.5", device="d" * 22, at=early)
    sighting_record(user=lan, ip="192.0.2.5", device="d" * 22)
    sighting_record(user=lan, ip="192.0.2.5", device="d" * 22, at=early)

    row = Sighting.objects.get()
    assert row.first_seen == early
    assert row.last_seen > early


def test_the_report_opens_with_the_default_thresholds_in_its_fields(make_user, client, settings):
    settings.INTEGRITY_DAYS, settings.INTEGRITY_MIN_HANDS = 14, 7
    settings.INTEGRITY_MIN_CHIPS, settings.INTEGRITY_MIN_SHARE_PERCENT = 500, 90
    client.force_login(make_user(is_staff=True))
    url = reverse("admin:moderation_integrityreport_changelist")

    opened = client.get(url)
    asked = client.get(url, {"days": "3", "min_hands": "", "min_chips": "1", "min_share": "50"})

    page = opened.content.decode()
    for name, value in [("days", 14), ("min_hands", 7), ("min_chips", 500), ("min_share", 90)]:
        assert f'name="{name}" value="{value}"' in page
    assert opened.context["thresholds"] == Thresholds(
        days=14, min_hands=7, min_chips=500, min_share=0.9
    )
    # What the moderator typed is kept; an emptied field is its default.
    assert 'name="days" value="3"' in asked.content.decode()
    assert asked.context["thresholds"] == Thresholds(
        days=3, min_hands=7, min_chips=1, min_share=0.5
    )
