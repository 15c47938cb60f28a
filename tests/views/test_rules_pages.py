"""The rules pages ("Luật chơi", issue 32 item 5): a page for every game and
preset in both languages, its numbers read from the preset (a changed preset
changes the page), cards drawn as cards, a table's own rules on top of its
page, a private table's rules for its own people only, and the links from
the home page, the lobby and the table. (The API: tests/api/test_rules.py;
the table's button in the browser: tests/e2e/test_rules.py.)"""

from __future__ import annotations

import dataclasses
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.plugins import PLUGINS
from games.rules.holdem import rules as holdem_rules
from games.rules.maubinh import rules as maubinh_rules
from games.rules.tienlen import rules as tienlen_rules

from ..registry import GAMES
from .test_pages import client_for

pytestmark = pytest.mark.django_db

PAGES = [(game, code) for game in GAMES for code, _label in PLUGINS[game].presets]


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def page(path: str, language: str = "vi", client: Client | None = None) -> str:
    client = client or Client()
    client.cookies["django_language"] = language
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def section(html: str, anchor: str) -> str:
    found = re.search(rf'<section id="{anchor}".*?</section>', html, re.S)
    assert found is not None, anchor
    return text_of(found.group(0))


@pytest.mark.parametrize(("game", "preset"), PAGES, ids=[f"{g}-{p}" for g, p in PAGES])
@pytest.mark.parametrize("language", ["vi", "en"])
def test_every_game_and_preset_has_a_page_in_both_languages(game, preset, language):
    plugin = PLUGINS[game]
    html = page(reverse("rules-preset", args=[game, preset]), language)

    assert f'data-rules-game="{game}" data-rules-preset="{preset}"' in html
    assert f'<html lang="{language}">' in html
    for anchor, _title, source in plugin.rules_sections:
        assert f'<section id="{anchor}" data-rules-section="{anchor}">' in html
        assert source.startswith("docs/rules.md ")
    # Every field of the preset's ruleset, with the preset's own value.
    ruleset = plugin.ruleset_of(preset, {})
    for field in dataclasses.fields(ruleset):
        assert f'data-number="{field.name}"' in html
    # Cards are drawn as cards, each named for assistive technology.
    if plugin.rules_template:
        assert re.search(
            r'<span class="card (red|black)" data-card="Ah" role="img" aria-label="A♥">', html
        )
    vietnamese = "Luật chơi" in html
    assert vietnamese == (language == "vi")


def test_the_english_and_vietnamese_pages_say_the_same_in_their_own_words():
    path = reverse("rules-preset", args=["tienlen", "vipgame"])
    vi, en = text_of(page(path, "vi")), text_of(page(path, "en"))
    assert "Kết 3 bích: when the winner's last play holds the 3♠, every loser pays 26 units" in en
    assert "Kết 3 bích: khi lượt đánh cuối của người thắng có 3♠, mỗi người thua trả 26 cược" in vi


def test_the_index_lists_every_game_and_preset():
    html = page(reverse("rules"))
    for game, preset in PAGES:
        assert f'href="/rules/{game}/{preset}/"' in html
    for game in GAMES:
        response = Client().get(f"/rules/{game}/")
        assert response.status_code == 302
        assert response["Location"] == f"/rules/{game}/{PLUGINS[game].presets[0][0]}/"


def test_an_unknown_game_or_preset_is_not_found():
    assert Client().get("/rules/baccarat/").status_code == 404
    assert Client().get("/rules/baccarat/vipgame/").status_code == 404
    assert Client().get(f"/rules/{GAMES[0]}/nope/").status_code == 404


# -- numbers come from the preset ------------------------------------------


def test_mau_binh_reads_its_bonuses_sweeps_and_instant_wins_from_the_preset(monkeypatch):
    path = reverse("rules-preset", args=["maubinh", "vipgame"])
    before = page(path, "en")
    assert "Sám in chi 3 3" in section(before, "scoring")
    assert "×3, bonuses included: three plain chi come to 9 units" in section(before, "scoring")
    assert "Sảnh rồng one card of every rank, 2 to A 12" in section(before, "instant")

    changed = dataclasses.replace(
        maubinh_rules.VIPGAME,
        bonus_trips_chi3=7,
        sweep_pair_multiplier=2,
        instant_units=(("three_straights", 3), ("dragon", 15)),
    )
    monkeypatch.setitem(maubinh_rules.PRESETS, "vipgame", changed)
    after = page(path, "en")

    assert "Sám in chi 3 7" in section(after, "scoring")
    assert "×2, bonuses included: three plain chi come to 6 units" in section(after, "scoring")
    instants = section(after, "instant")
    assert "Sảnh rồng one card of every rank, 2 to A 15" in instants
    assert "Lục phé bôn" not in instants
    assert (
        'data-number="bonus_trips_chi3"><th scope="row"><code>bonus_trips_chi3</code></th><td>7<'
        in after
    )


def test_mau_binh_presets_differ_where_their_rules_do():
    com = page(reverse("rules-preset", args=["maubinh", "maubinh_com"]), "en")
    vip = page(reverse("rules-preset", args=["maubinh", "vipgame"]), "en")
    for rule in ("four_aces_top", "lung_pays_sap", "instant_win_stops_comparison"):
        assert f'data-rule="{rule}"' in com
        assert f'data-rule="{rule}"' not in vip
    assert "collects from each opponent 80 units" in section(com, "scoring")
    assert "Ba cái thùng a flush in each chi 3" in section(vip, "instant")
    assert "Ba thùng phá sảnh counts as Ba cái thùng." in section(vip, "instant")


def test_tien_len_reads_its_penalties_from_the_preset(monkeypatch):
    path = reverse("rules-preset", args=["tienlen", "vipgame"])
    before = section(page(path, "en"), "paying")
    assert "a red 2 6" in before
    assert "a pair of red 2s 12" in before
    assert "pays 26 units instead of the card count, plus any thối" in before

    base = tienlen_rules.PRESETS["vipgame"]
    changed = dataclasses.replace(
        base,
        cong_penalty=30,
        ket_3_bich=31,
        thoi_penalties=dataclasses.replace(base.thoi_penalties, red_two=7),
        toi_trang_payout="tiered",
    )
    monkeypatch.setitem(tienlen_rules.PRESETS, "vipgame", changed)
    html = page(path, "en")
    after = section(html, "paying")

    assert "a red 2 7" in after
    assert "a pair of red 2s 14" in after
    assert "pays 30 units instead of the card count" in after
    assert "every loser pays 31 units" in after
    assert "Sảnh rồng 9" in section(html, "instant")  # the tiered list
    assert "a red 2 6" in section(html, "chop")  # the chop prices did not change


def test_hold_em_reads_its_blinds_buy_in_and_time_bank_from_the_preset(monkeypatch):
    path = reverse("rules-preset", args=["holdem", "vipgame"])
    before = page(path, "en")
    assert "the small blind, 1 × the stake, and the big blind, 2 × the stake" in section(
        before, "blinds"
    )
    assert "a time bank of up to 30 s, topped up by 5 s" in section(before, "clock")
    assert "You bring 20 to 100 big blinds" in section(before, "buyin")

    changed = dataclasses.replace(
        holdem_rules.PRESETS["vipgame"],
        small_blind_units=2,
        big_blind_units=4,
        time_bank_max_ms=45_000,
        buy_in_max_big_blinds=150,
        timeouts_to_sit_out=3,
    )
    monkeypatch.setitem(holdem_rules.PRESETS, "vipgame", changed)
    after = page(path, "en")

    assert "the small blind, 2 × the stake, and the big blind, 4 × the stake" in section(
        after, "blinds"
    )
    assert "a time bank of up to 45 s" in section(after, "clock")
    assert "3 time-outs in a row sit you out" in section(after, "clock")
    assert "You bring 20 to 150 big blinds" in section(after, "buyin")


# -- a table's own rules ----------------------------------------------------


def test_a_tables_page_shows_its_own_rules_first_and_plays_them(make_user, tables):
    owner = make_user()
    table = services.table_create(
        owner=owner,
        game="maubinh",
        stake=10,
        preset="classic",
        options={"bonus_trips_chi3": 6, "four_aces_top": True},
    )
    html = page(reverse("table-rules", args=[table.pk]), "en")

    top = html.index("data-rules-differences")
    assert top < html.index('<section id="deck"')
    rows = dict(
        re.findall(
            r'data-difference="(\w+)"><th scope="row"><code>\w+</code></th><td>([^<]*)</td>', html
        )
    )
    assert rows == {"bonus_trips_chi3": "6", "four_aces_top": "true"}
    assert "Sám in chi 3 6" in section(html, "scoring")
    assert 'data-rule="four_aces_top"' in html
    assert 'data-table-number="stake"><code>stake</code> 10' in html

    plain = services.table_create(owner=owner, game="tienlen", stake=5, turn_seconds=30)
    html = page(reverse("table-rules", args=[plain.pk]), "vi")
    assert "data-rules-same" in html
    assert "Mỗi lượt có 30 giây" in section(html, "hand")


def test_a_private_tables_rules_are_its_own_peoples_only(make_user, tables):
    owner, outsider = make_user(), make_user()
    table = services.table_create(
        owner=owner, game="holdem", stake=5, is_private=True, options={"small_blind_units": 2}
    )
    path = reverse("table-rules", args=[table.pk])

    for client in (Client(), client_for(outsider)):
        response = client.get(path)
        assert response.status_code == 403
        assert b"small_blind_units" not in response.content
        assert b"data-rules-page" not in response.content
    assert client_for(outsider).get(path + "?invite=wrong").status_code == 403
    assert "data-rules-differences" in page(path, client=client_for(owner))
    assert "small_blind_units" in page(f"{path}?invite={table.invite_code}")
    assert Client().get(reverse("table-rules", args=[10**9])).status_code == 404


# -- links -------------------------------------------------------------------


def test_the_rules_are_linked_from_home_lobby_and_every_table(make_user, tables):
    home = page(reverse("home"))
    assert f'href="{reverse("rules")}"' in home
    lobby = page(reverse("lobby"))
    for game in GAMES:
        assert f'href="{reverse("rules-game", args=[game])}"' in page(
            f"{reverse('lobby')}?game={game}"
        )
    assert "data-lobby-rules" in lobby
    owner = make_user()
    for game in GAMES:
        table = services.table_create(owner=owner, game=game, stake=10, is_private=True)
        html = page(f"{reverse('table', args=[table.pk])}?invite={table.invite_code}")
        link = f"{reverse('table-rules', args=[table.pk])}?invite={table.invite_code}"
        assert f'href="{link}"' in html
        assert f'"rules_url": "{link}"' in html  # the drawer bar's button (screen.js)
