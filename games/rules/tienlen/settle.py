"""The result of a finished hand: itemised payments in units (docs/rules.md 3.3, 3.5, 3.7).

Under chặn kết 3 bích each blocked player pays ``chan_ket_3_bich`` to every
other player who played in the final round; with ``chan_ket_final_round_only``
(the default) a loser who made no play in that round pays nothing (its chop
penalties, settled with their chains, stand).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import RulesError
from ..game import LeaveCost, Outcome, Payment
from ..settlement import cap_debts, nets
from .order import THREE_SPADES, tl_strs
from .scoring import is_on_ket, leftover
from .state import HandState


def payments(state: HandState) -> list[Payment]:
    """Every payment of the hand: the chop chains, then each loser's payments."""
    if state.winner is None:
        raise RulesError("hand_not_finished", "The hand is not over")
    if state.instant is not None:
        return _instant_payments(state, state.winner)
    result = list(state.settled)
    winner = state.winner
    last_play = next(m.cards for m in reversed(state.history) if m.player == winner and m.cards)
    ket = THREE_SPADES in last_play
    final_round = {m.player for m in state.history if m.round == state.round and m.cards}
    blocked = not ket and any(
        is_on_ket(state.hands[p]) for p in range(state.players) if p != winner
    )
    for loser in range(state.players):
        if loser == winner:
            continue
        hand = state.hands[loser]
        if (
            blocked
            and state.rules.chan_ket_final_round_only
            and loser not in final_round
            and not is_on_ket(hand)
        ):
            continue  # chặn kết 3 bích: out of the final round, pays nothing (chops settled)
        if ket:
            result.append(
                Payment(
                    loser,
                    winner,
                    state.rules.ket_3_bich,
                    "ket_3_bich",
                    {"cards": tl_strs(last_play)},
                )
            )
        elif is_on_ket(hand):
            result += [
                Payment(
                    loser,
                    taker,
                    state.rules.chan_ket_3_bich,
                    "chan_ket_3_bich",
                    {"cards": tl_strs(hand)},
                )
                for taker in sorted(final_round - {loser})
            ]
        else:
            result += _leftover_payments(state, loser, winner)
    return result


def _leftover_payments(state: HandState, loser: int, winner: int) -> list[Payment]:
    rules = state.rules
    cong = rules.cong_penalty > 0 and not state.played_any(loser)
    hand = state.hands[loser]
    per_card = 0 if cong else rules.thoi_penalties.card
    left = leftover(hand, rules.thoi_penalties, per_card)
    result = []
    if cong:
        result.append(Payment(loser, winner, rules.cong_penalty, "cong", {"count": len(hand)}))
    elif left.ordinary:
        result.append(
            Payment(loser, winner, left.ordinary * per_card, "cards", {"count": left.ordinary})
        )
    result += [
        Payment(
            loser,
            winner,
            item.units,
            "thoi",
            {"combination": item.name, "cards": tl_strs(item.cards)},
        )
        for item in left.items
    ]
    return result


def leave_cost(state: HandState, player: int) -> LeaveCost | None:
    """What a player leaving now most likely pays (docs/rules.md 3.6: the server
    plays their turns with the time-out action until the hand ends): what
    their cards in hand pay if another player goes out now, cóng if they
    have not played a card yet (the time-out only plays when they lead)."""
    if not 0 <= player < state.players:
        raise RulesError("bad_player", f"No player {player} in this hand")
    if state.finished or state.left[player]:
        return None
    paid = _leftover_payments(state, player, (player + 1) % state.players)
    reason = "cong" if any(p.reason == "cong" for p in paid) else "cards"
    thoi = sum(p.amount for p in paid if p.reason == "thoi")
    detail = {"cards": len(state.hands[player]), "thoi": thoi}
    return LeaveCost(sum(p.amount for p in paid), reason, False, detail)


def _instant_payments(state: HandState, winner: int) -> list[Payment]:
    assert state.instant is not None
    units = state.rules.instant_payout(state.instant.type)
    detail = {"type": state.instant.type, "cards": tl_strs(state.hands[winner])}
    return [
        Payment(loser, winner, units, "toi_trang", detail)
        for loser in range(state.players)
        if loser != winner
    ]


def outcome(state: HandState) -> Outcome:
    paid = payments(state)
    net = [0] * state.players
    for p in paid:
        net[p.payer] -= p.amount
        net[p.payee] += p.amount
    summary = {
        "winner": state.winner,
        "instant": state.instant.type if state.instant else None,
        "hands": [tl_strs(h) for h in state.hands],
    }
    return Outcome(tuple(net), tuple(paid), summary)


def capped_units(result: Outcome, balances: Sequence[int]) -> list[int]:
    """Net units per player once nobody pays more than their balance (docs/rules.md 3.5, 2.6)."""
    owed = [[0] * len(result.net) for _ in result.net]
    for p in result.payments:
        owed[p.payer][p.payee] += p.amount
    return nets(cap_debts(owed, balances))
