"""Tiến Lên Miền Nam at a table: wallet holds, the last winner leads next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Seat, Table
from games.refs import SeatRef
from games.rules.game import Outcome
from games.rules.tienlen.bot import think
from games.rules.tienlen.rules import BOMBS, INSTANT_TYPES

from .base import GamePlugin
from .knobs import Range, choice, number

# The rules page (templates/rules/tienlen.html): the names players say (in
# every language, as static/js/terms.js) and an example of each.
_COMBOS = {
    "two": ("Heo", "2s"),
    "pair_of_twos": (_("Đôi heo"), "2s 2h"),
    "three_pair_run": ("3 đôi thông", "4d 4h 5d 5h 6s 6h"),
    "quad": ("Tứ quý", "6h 6d 6c 6s"),
    "four_pair_run": ("4 đôi thông", "4d 4h 5d 5h 6s 6c 7s 7h"),
}
_INSTANTS = {
    "dragon": ("Sảnh rồng", "3s 4d 5h 6c 7h 8d 9d Ts Jh Qs Kc Ac"),
    "six_consecutive_pairs": ("6 đôi thông", "4d 4h 5d 5h 6s 6h 7c 7h 8c 8d 9s 9h"),
    "four_triples": ("4 bộ ba", "2s 2c 2d 4s 4c 4d 5s 5c 5d Ts Tc Td"),
    "two_quads": ("2 tứ quý", "3s 3c 3d 3h 5s 5c 5d 5h"),
    "twelve_one_suit": ("12 lá đồng chất", "2s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"),
    "five_consecutive_pairs": ("5 đôi thông", "4d 4h 5d 5h 6c 6h 7c 7h 8c 8d"),
    "four_twos": ("Tứ quý 2", "2s 2c 2d 2h"),
    "six_pairs": ("6 đôi", "4d 4h 5d 5h 6s 6h 7c 7h Js Jd Ks Kc"),
}


class TienLen(GamePlugin):
    game = "tienlen"
    rules = "games.rules.tienlen"
    browser_module = "js/games/tienlen.js"
    label = "Tiến Lên"
    title = "Tiến Lên Miền Nam"
    blurb = _("Be the first to play all your cards; chop the 2s!")
    schema_name = "TienLen"
    seats = Range(2, 4)
    tournament_seats = (4,)
    clock_seconds = {"turn": "turn_seconds"}
    knobs = {
        "cong_penalty": number(0, 52),
        "toi_trang_flat": number(0, 52),
        "ket_3_bich": number(0, 52),
        "chan_ket_3_bich": number(0, 52),
        "first_lead": choice("random", "three_spades"),
        "toi_trang_payout": choice("flat", "tiered"),
    }

    rules_template = "rules/tienlen.html"
    rules_sections = (
        ("deck", _("Deck and card order"), "docs/rules.md 3.1"),
        ("combinations", _("Combinations"), "docs/rules.md 3.2"),
        ("hand", _("How a hand goes"), "docs/rules.md 3.4, 3.6"),
        ("chop", _("Chặt and chặt chồng"), "docs/rules.md 3.3"),
        ("paying", _("Paying: thối, cóng, kết 3 bích"), "docs/rules.md 3.5"),
        ("instant", _("Tới trắng"), "docs/rules.md 3.5"),
    )

    def rules_context(self, ruleset: Any, table: Table | None) -> dict[str, Any]:
        def priced(penalties: Any) -> list[tuple[Any, int, str]]:
            black, red = penalties.black_two, penalties.red_two
            return [
                (_("a card"), penalties.card, "9s"),
                (_("a black 2"), black, "2s"),
                (_("a red 2"), red, "2h"),
                (_("a pair of black 2s"), 2 * black, "2s 2c"),
                (_("a black and a red 2"), black + red, "2s 2h"),
                (_("a pair of red 2s"), 2 * red, "2d 2h"),
                *((_COMBOS[b][0], penalties.bomb(b), _COMBOS[b][1]) for b in BOMBS),
            ]

        chops = [
            (_COMBOS[bomb][0], ", ".join(str(_COMBOS[t][0]) for t in targets))
            for bomb, targets in ruleset.chops
        ]
        instants = [
            (*_INSTANTS[kind][:1], ruleset.instant_payout(kind), _INSTANTS[kind][1])
            for kind in INSTANT_TYPES
        ]
        return {
            "chops": chops,
            "chop_penalties": priced(ruleset.chop_penalties)[1:],
            "thoi_penalties": priced(ruleset.thoi_penalties)[1:],
            "instants": instants,
            "turn_seconds": self.rules_seconds(table, "turn_seconds"),
        }

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        positions = [s.position for s in seats]
        previous = table.carry.get("last_winner")
        return {
            "previous_winner": positions.index(previous) if previous in positions else None,
            "random_first": draws[0],
        }

    def table_carry(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[str, Any]:
        winner = outcome.summary.get("winner")
        last = seats[winner].position if isinstance(winner, int) else None
        return {**table.carry, "last_winner": last}

    def example_setup(self, players: int) -> dict[str, Any]:
        return {"previous_winner": None, "random_first": 0}

    def bot_think(self, view: Mapping[str, Any], player: int) -> float:
        return think(view, player)
