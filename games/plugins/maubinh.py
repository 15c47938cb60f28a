"""Mậu Binh at a table: wallet holds (the default money model), payments in
units of the stake."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Table

from .base import GamePlugin, Range

_BONUS = Range(1, 30)


class MauBinh(GamePlugin):
    game = "maubinh"
    rules = "games.rules.maubinh"
    browser_module = "js/games/maubinh.js"
    label = "Mậu Binh"
    blurb = _("Arrange 13 cards into three hands and beat every opponent.")
    schema_name = "MauBinh"
    example_clock = "arrange"
    seats = Range(2, 4)
    presets = (("vipgame", "VIPGAME"), ("maubinh_com", "maubinh.com"), ("classic", _("Classic")))
    table_fields = ("min_balance_units",)
    option_ranges = {
        "bonus_full_house_chi2": _BONUS,
        "bonus_trips_chi3": _BONUS,
        "bonus_quads_chi1": _BONUS,
        "bonus_quads_chi2": _BONUS,
        "bonus_straight_flush_chi1": _BONUS,
        "bonus_straight_flush_chi2": _BONUS,
        "bonus_wheel_straight_flush_chi1": _BONUS,
        "bonus_wheel_straight_flush_chi2": _BONUS,
        "bonus_royal_straight_flush_chi1": _BONUS,
        "bonus_royal_straight_flush_chi2": _BONUS,
        "bonus_four_aces_chi1": _BONUS,
        "sweep_pair_multiplier": Range(1, 4),
        "sweep_all_loser_multiplier": Range(1, 4),
        "sweep_village_multiplier": Range(1, 4),
        "sweep_village_min_players": Range(2, 4),
        "four_aces_village_units": Range(0, 100),
    }
    option_switches = (
        "four_aces_top",
        "six_pairs_tiebreak",
        "left_blocks_every_opponent",
        "lung_is_swept",
        "leaver_keeps_instant",
    )
    option_choices = {"straight_flush_order": ("poker", "royal_wheel_high")}
    # Each instant win of the preset to its units.
    option_maps = {
        "instant_units": (Range(1, 100), _("instant_units maps instant wins to units.")),
    }

    def client_rules(self, table: Table) -> dict[str, Any]:
        # What the browser's hand-name evaluator (static/js/chi.js) needs.
        ruleset = self.ruleset(table)
        return {
            "preset": table.preset,
            "four_aces_top": ruleset.four_aces_top,
            "straight_flush_order": ruleset.straight_flush_order,
        }
