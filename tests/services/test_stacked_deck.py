"""The tests' chosen decks (tests/seeds.py): what they deal, that a verifier
catches them, and that production code cannot reach them."""

import ast
from pathlib import Path

import pytest

from games import seeds, services
from games.models import Hand, HandEvent
from games.rules import fairness
from games.rules.cards import cards_str
from games.rules.maubinh.engine import ENGINE as MAUBINH
from games.rules.maubinh.rules import PRESETS as MAUBINH_PRESETS
from games.rules.tienlen.engine import ENGINE as TIENLEN

from ..seeds import ORDINARY, ORDINARY_DECK, cards, stacked_deck

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_ordinary_deck_has_no_instant_win(players):
    assert sorted(ORDINARY_DECK) == list(range(52))
    state, _ = TIENLEN.start(
        TIENLEN.ruleset("vipgame", {}), ORDINARY_DECK, players, {"random_first": 0}
    )
    assert not TIENLEN.status(state).finished
    for preset in MAUBINH_PRESETS:
        state, _ = MAUBINH.start(MAUBINH.ruleset(preset, {}), ORDINARY_DECK, players, {})
        assert [p.analysis.instant for p in state.players] == [None] * players


def test_a_stacked_deck_puts_the_chosen_cards_on_top_and_refuses_a_card_twice():
    deck = stacked_deck("2s 2c 2d 2h", "As")
    assert cards_str(deck[:5]) == ["2s", "2c", "2d", "2h", "As"]
    assert sorted(deck) == list(range(52))
    assert deck[5:] == [c for c in ORDINARY_DECK if c not in cards("2s 2c 2d 2h As")]
    with pytest.raises(ValueError, match="stacked twice"):
        stacked_deck("As Kd", "As")


@pytest.mark.django_db
def test_a_stacked_hand_is_dealt_as_chosen_and_fails_verification(tables, dealer, make_user):
    lan, minh = make_user(), make_user()
    dealer.stack(ORDINARY[1], ORDINARY[0], first=1)
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user)
        services.table_ready(table_id=table.pk, user=user)

    hand = Hand.objects.get(table=table)
    events = HandEvent.objects.filter(hand=hand, type="dealt")
    dealt = {e.player: sorted(e.payload["cards"]) for e in events}
    assert dealt == {0: sorted(ORDINARY[1].split()), 1: sorted(ORDINARY[0].split())}
    assert TIENLEN.status(TIENLEN.loads(hand.state)).actors == (1,)  # first=1 leads
    # The seeds recorded with the hand do not deal these cards: a player's
    # verifier (or the replay) shows a stacked deck for what it is.
    server_seed = bytes.fromhex(hand.server_seed)
    deck = stacked_deck(ORDINARY[1], ORDINARY[0])
    assert fairness.verify(server_seed, hand.fair_id, hand.client_seeds, hand.commitment)
    assert not fairness.verify(
        server_seed, hand.fair_id, hand.client_seeds, hand.commitment, deck=deck
    )
    assert dealer.dealt == 1


def test_production_code_deals_fairly_and_never_imports_the_tests():
    assert seeds.deal.__module__ == "games.seeds"  # no test left its dealer behind
    for package in ("games", "wallet", "vipgame", "bench"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                else:
                    continue
                assert not [n for n in names if n.split(".")[0] == "tests"], path
