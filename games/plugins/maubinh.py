"""Mậu Binh at a table: wallet holds (the default money model), payments in
units of the stake."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Table

from .base import GamePlugin
from .knobs import Range, choice, number, number_map, switch, table_number

_BONUS = (1, 30)
_SWEEP = (1, 4)


class MauBinh(GamePlugin):
    game = "maubinh"
    rules = "games.rules.maubinh"
    browser_module = "js/games/maubinh.js"
    label = "Mậu Binh"
    blurb = _("Arrange 13 cards into three hands and beat every opponent.")
    schema_name = "MauBinh"
    seats = Range(2, 4)
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

    def client_rules(self, table: Table) -> dict[str, Any]:
        # What the browser's hand-name evaluator (static/js/chi.js) needs.
        ruleset = self.ruleset(table)
        return {
            "preset": table.preset,
            "four_aces_top": ruleset.four_aces_top,
            "straight_flush_order": ruleset.straight_flush_order,
        }
