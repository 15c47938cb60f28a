"""Mậu Binh ops of the rules command line (``python -m games.rules``).

Every op takes ``preset`` (default ``vipgame``) and optional ``options`` (named
ruleset overrides).

* ``maubinh.compare``: ``a``, ``b`` (5 or 3 cards each, no card in both) ->
  ``{"result": 1 | 0 | -1}``
* ``maubinh.settle``: ``players`` (2 to 4 of ``{"chi1", "chi2", "chi3"}``) ->
  ``{"units": [...], "lung": [...], "instant": [...]}`` (units before the balance cap)
* ``maubinh.arrange``: ``cards`` (13) ->
  ``{"chi1", "chi2", "chi3", "instant", "expected_units"}``; ``instant`` lists
  every instant win the cards qualify for under the ruleset, strongest first
  (the first is the one declared; ``[]`` for none); ``expected_units`` is the
  arrangement's expected result per opponent at a four-player table (see
  ``arranger``)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import cards_str, ensure_distinct, parse_cards
from ..errors import RulesError
from .arranger import arrange
from .chi import Arrangement, compare_chi
from .instant import qualifying_instants
from .rules import DEFAULT_PRESET, Ruleset, make_ruleset
from .settle import contender, settle


def _rules(request: dict[str, Any]) -> Ruleset:
    return make_ruleset(request.get("preset", DEFAULT_PRESET), request.get("options"))


def op_compare(request: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(request)
    a = parse_cards(request.get("a"), count=(5, 3), field="a")
    b = parse_cards(request.get("b"), count=(5, 3), field="b")
    ensure_distinct([a, b])
    return {"result": compare_chi(a, b, rules)}


def op_settle(request: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(request)
    players = request.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise RulesError("bad_player_count", "players must list 2 to 4 arrangements")
    arrangements = [Arrangement.parse(p) for p in players]
    ensure_distinct(a.cards() for a in arrangements)
    contenders = [contender(rules, a) for a in arrangements]
    settlement = settle(rules, contenders)
    return {
        "units": list(settlement.net),
        "lung": list(settlement.lung),
        "instant": [c.instant for c in contenders],
    }


def op_arrange(request: dict[str, Any]) -> dict[str, Any]:
    rules = _rules(request)
    cards = parse_cards(request.get("cards"), count=13)
    result = arrange(rules, cards)
    best = result.best.arrangement
    return {
        "chi1": cards_str(best.chi1),
        "chi2": cards_str(best.chi2),
        "chi3": cards_str(best.chi3),
        "instant": qualifying_instants(rules, cards),
        "expected_units": round(result.best.expected_units, 4),
    }


OPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "maubinh.compare": op_compare,
    "maubinh.settle": op_settle,
    "maubinh.arrange": op_arrange,
}
