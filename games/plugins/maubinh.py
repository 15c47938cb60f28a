"""Mậu Binh at a table: wallet holds (the default money model), payments in
units of the stake."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Table
from games.rules.maubinh.engine import think

from .base import GamePlugin
from .knobs import Range, choice, number, number_map, switch, table_number

_BONUS = (1, 30)

# The rules page (templates/rules/maubinh.html): each instant win's name (as
# players say it, in every language), what it is, and an example.
# ruff: noqa: E501
_INSTANTS = {
    "three_straights": ("Ba cái sảnh", _("a straight in each chi"), "9s Th Jd Qc Kh 4d 5s 6h 7c 8d Ah 2c 3d"),
    "three_flushes": ("Ba cái thùng", _("a flush in each chi"), "2h 5h 8h Jh Kh 3s 6s 9s Qs As 4d 7d Td"),
    "six_pairs": ("Lục phé bôn", _("six pairs"), "3s 3h 5d 5c 7s 7h 9d 9c Js Jh Kd Kc As"),
    "five_pairs_trips": ("Năm đôi một sám", _("five pairs and a three of a kind"), "3s 3h 5d 5c 7s 7h 9d 9c Js Jh Kd Kc Ks"),
    "twelve_one_colour": ("12 lá đồng màu", _("12 red cards and 1 black, or 12 black and 1 red"), "2h 4h 6h 8h Th Qh Ah 3d 5d 7d 9d Jd Ks"),
    "thirteen_one_colour": ("13 lá đồng màu", _("all 13 red or all 13 black"), "2h 4h 6h 8h Th Qh Ah 3d 5d 7d 9d Jd Kd"),
    "three_straight_flushes": ("Ba thùng phá sảnh", _("a straight flush in each chi"), "9h Th Jh Qh Kh 4s 5s 6s 7s 8s Ad 2d 3d"),
    "dragon": ("Sảnh rồng", _("one card of every rank, 2 to A"), "2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc As"),
    "flush_dragon": ("Rồng cuốn", _("2 to A, all of one suit"), "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"),
}  # fmt: skip
# The bonuses of a won chi: (name, the ruleset's field, an example).
_BONUSES = (
    (_("Cù lũ in chi 2"), "bonus_full_house_chi2", "8h 8d 8c 9s 9h"),
    (_("Sám in chi 3"), "bonus_trips_chi3", "Qh Qd Qc"),
    (_("Tứ quý in chi 1"), "bonus_quads_chi1", "8h 8d 8c 8s Jh"),
    (_("Tứ quý in chi 2"), "bonus_quads_chi2", "8h 8d 8c 8s Jh"),
    (_("Thùng phá sảnh in chi 1"), "bonus_straight_flush_chi1", "8h 9h Th Jh Qh"),
    (_("Thùng phá sảnh in chi 2"), "bonus_straight_flush_chi2", "8h 9h Th Jh Qh"),
    (_("Thùng phá sảnh A-2-3-4-5 in chi 1"), "bonus_wheel_straight_flush_chi1", "Ah 2h 3h 4h 5h"),
    (_("Thùng phá sảnh A-2-3-4-5 in chi 2"), "bonus_wheel_straight_flush_chi2", "Ah 2h 3h 4h 5h"),
    (_("Thùng phá sảnh 10-J-Q-K-A in chi 1"), "bonus_royal_straight_flush_chi1", "Th Jh Qh Kh Ah"),
    (_("Thùng phá sảnh 10-J-Q-K-A in chi 2"), "bonus_royal_straight_flush_chi2", "Th Jh Qh Kh Ah"),
    (_("Tứ quý A in chi 1"), "bonus_four_aces_chi1", "Ah Ad Ac As 2h"),
)
_SWEEP = (1, 4)


class MauBinh(GamePlugin):
    game = "maubinh"
    rules = "games.rules.maubinh"
    browser_module = "js/games/maubinh.js"
    label = "Mậu Binh"
    blurb = _("Arrange 13 cards into three hands and beat every opponent.")
    schema_name = "MauBinh"
    seats = Range(2, 4)
    tournament_seats = (4,)
    presets = (("vipgame", "VIPGAME"), ("maubinh_com", "maubinh.com"), ("classic", _("Classic")))
    # The phases' clocks: arrange (everyone at once), then each chi's reveal.
    clock_seconds = {"arrange": "arrange_seconds", "reveal": "reveal_seconds"}
    knobs = {
        # The clocks: the house's (the stakes held to sit: WalletHolds' knob).
        "arrange_seconds": table_number(5, 3_600, 90, by_players=False),
        "reveal_seconds": table_number(1, 30, 5, by_players=False),
        "bonus_full_house_chi2": number(*_BONUS),
        "bonus_trips_chi3": number(*_BONUS),
        "bonus_quads_chi1": number(*_BONUS),
        "bonus_quads_chi2": number(*_BONUS),
        "bonus_straight_flush_chi1": number(*_BONUS),
        "bonus_straight_flush_chi2": number(*_BONUS),
        "bonus_wheel_straight_flush_chi1": number(*_BONUS),
        "bonus_wheel_straight_flush_chi2": number(*_BONUS),
        "bonus_royal_straight_flush_chi1": number(*_BONUS),
        "bonus_royal_straight_flush_chi2": number(*_BONUS),
        "bonus_four_aces_chi1": number(*_BONUS),
        "sweep_pair_multiplier": number(*_SWEEP),
        "sweep_all_loser_multiplier": number(*_SWEEP),
        "sweep_village_multiplier": number(*_SWEEP),
        "sweep_village_min_players": number(2, 4),
        "four_aces_village_units": number(0, 100),
        "four_aces_top": switch(),
        "six_pairs_tiebreak": switch(),
        "left_blocks_every_opponent": switch(),
        "lung_is_swept": switch(),
        "leaver_keeps_instant": switch(),
        "straight_flush_order": choice("poker", "royal_wheel_high"),
        # Each instant win of the preset to its units.
        "instant_units": number_map(1, 100, _("instant_units maps instant wins to units.")),
    }

    rules_template = "rules/maubinh.html"
    rules_sections = (
        ("deck", _("Deck and cards"), "docs/rules.md 1, 2.1"),
        ("chi", _("Three chi, in order"), "docs/rules.md 2.1, 2.3"),
        ("hands", _("Hands of a chi"), "docs/rules.md 2.2"),
        ("hand", _("How a hand goes"), "docs/rules.md 2.7, 2.8"),
        ("scoring", _("Scoring"), "docs/rules.md 2.5, 2.6"),
        ("instant", _("Instant wins (mậu binh thắng trắng)"), "docs/rules.md 2.4"),
        ("leaving", _("Leaving mid-hand"), "docs/rules.md 2.6"),
    )

    def rules_context(self, ruleset: Any, table: Table | None) -> dict[str, Any]:
        units = dict(ruleset.instant_units)
        return {
            "instants": [(*_INSTANTS[name][:2], units[name], _INSTANTS[name][2]) for name in units],
            "folds": [
                (_INSTANTS[name][0], _INSTANTS[counted][0])
                for name, counted in ruleset.instant_folds
            ],
            "bonuses": [(label, getattr(ruleset, name), cards) for label, name, cards in _BONUSES],
            "sweep_plain": 3 * ruleset.sweep_pair_multiplier,
            "arrange_seconds": self.rules_seconds(table, "arrange_seconds"),
        }

    def client_rules(self, table: Table) -> dict[str, Any]:
        # What the browser's hand-name evaluator (static/js/chi.js) needs.
        ruleset = self.ruleset(table)
        return {
            "preset": table.preset,
            "four_aces_top": ruleset.four_aces_top,
            "straight_flush_order": ruleset.straight_flush_order,
        }

    def bot_think(self, view: Mapping[str, Any], player: int) -> float:
        return think(view, player)
