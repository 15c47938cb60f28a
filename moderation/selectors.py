"""Reads for moderators: the integrity report and the hand inspector."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from accounts.models import User
from games.models import ChatMessage, ChatReport, Hand, HandEvent, HandPlayer
from games.plugins import plugin_for
from games.plugins.money import settlement_key
from games.rules import fairness
from games.rules.cards import card_display, cards_str, parse_card
from games.rules.errors import RulesError
from wallet.models import Account, LedgerTransaction

from .models import AuditEntry, Sighting


@dataclass(frozen=True)
class Thresholds:
    days: int
    min_hands: int
    min_chips: int
    min_share: float


@dataclass
class PairRow:
    """Two accounts that shared hands, and the chips that went between them.

    ``sender`` is the one who lost chips to ``receiver`` overall; ``net`` is
    how many; ``share`` is net / all chips that changed hands between them
    (1.0: every chip went one way)."""

    sender: User
    receiver: User
    hands: int
    net: int
    gross: int
    share: float


@dataclass
class SharedRow:
    kind: str  # "ip" or "device"
    value: str
    users: list[User]
    first_seen: datetime
    last_seen: datetime
    hands_together: int = 0
    user_ids: list[int] = field(default_factory=list)


# The chips that went from A to B in one hand are A's loss split over the
# hand's winners in proportion to what each won:
#     flow(A -> B) = max(-net_A, 0) * max(net_B, 0) / (sum of the positive nets)
# With two players it is exactly the loser's payment; with more it shares
# every loss among the winners without guessing who "really" paid whom. It
# uses the settled results (HandPlayer.net, chips after the balance cap) of
# hands that were not voided. Bots are never reported.
_PAIRS_SQL = """
WITH played AS (
    SELECT hp.hand_id, hp.user_id, hp.net, u.is_bot
    FROM games_handplayer hp
    JOIN games_hand h ON h.id = hp.hand_id
    JOIN accounts_user u ON u.id = hp.user_id
    WHERE h.settled AND NOT h.voided AND h.ended_at >= %s AND hp.net IS NOT NULL
),
won AS (
    SELECT hand_id, SUM(net) AS total FROM played WHERE net > 0 GROUP BY hand_id
)
SELECT a.user_id, b.user_id, COUNT(*),
    SUM(CASE WHEN a.net < 0 AND b.net > 0 THEN (0.0 - a.net) * b.net / w.total ELSE 0 END),
    SUM(CASE WHEN b.net < 0 AND a.net > 0 THEN (0.0 - b.net) * a.net / w.total ELSE 0 END)
FROM played a
JOIN played b ON b.hand_id = a.hand_id AND a.user_id < b.user_id
LEFT JOIN won w ON w.hand_id = a.hand_id
WHERE NOT a.is_bot AND NOT b.is_bot
GROUP BY a.user_id, b.user_id
HAVING COUNT(*) >= %s
"""


def _since(days: int, now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=days)


def suspicious_pairs(*, thresholds: Thresholds, now: datetime | None = None) -> list[PairRow]:
    """Pairs with at least ``min_hands`` settled hands together in the last
    ``days`` days, at least ``min_chips`` net chips one way, and at least
    ``min_share`` of the chips between them going that way. Biggest flow first."""
    since = connection.ops.adapt_datetimefield_value(_since(thresholds.days, now))
    with connection.cursor() as cursor:
        cursor.execute(_PAIRS_SQL, [since, thresholds.min_hands])
        rows = cursor.fetchall()
    found = []
    for a, b, hands, a_to_b, b_to_a in rows:
        ab, ba = round(a_to_b or 0), round(b_to_a or 0)
        net, gross = abs(ab - ba), ab + ba
        if gross == 0 or net < thresholds.min_chips or net / gross < thresholds.min_share:
            continue
        sender, receiver = (a, b) if ab >= ba else (b, a)
        found.append((sender, receiver, int(hands), net, gross))
    users = User.objects.in_bulk({u for row in found for u in row[:2]})
    result = [
        PairRow(users[s], users[r], hands, net, gross, round(net / gross, 3))
        for s, r, hands, net, gross in found
    ]
    return sorted(result, key=lambda row: (-row.net, -row.hands))


def hands_together(user_ids: list[int]) -> Any:
    """Hands at least two of these users were dealt into together."""
    return (
        HandPlayer.objects.filter(user_id__in=user_ids)
        .values("hand")
        .annotate(players=Count("user", distinct=True))
        .filter(players__gte=2)
        .values("hand")
    )


def shared_sightings(
    *, days: int, limit: int = 100, now: datetime | None = None
) -> list[SharedRow]:
    """Addresses and device cookies used by two or more accounts in the last ``days`` days."""
    recent = Sighting.objects.filter(last_seen__gte=_since(days, now))
    rows: list[SharedRow] = []
    for kind in ("ip", "device"):
        scope = recent.exclude(device="") if kind == "device" else recent
        shared = (
            scope.values(kind)
            .annotate(
                accounts=Count("user", distinct=True),
                first=Min("first_seen"),
                last=Max("last_seen"),
            )
            .filter(accounts__gte=2)
            .order_by("-accounts", "-last")[:limit]
        )
        for group in shared:
            user_ids = sorted(
                set(scope.filter(**{kind: group[kind]}).values_list("user_id", flat=True))
            )
            rows.append(
                SharedRow(
                    kind=kind,
                    value=group[kind],
                    users=list(User.objects.filter(pk__in=user_ids).order_by("pk")),
                    first_seen=group["first"],
                    last_seen=group["last"],
                    hands_together=hands_together(user_ids).count(),
                    user_ids=user_ids,
                )
            )
    return rows


def accounts_linked(*, user: User, other: User) -> bool:
    """Whether the two accounts share a sighting's address or device cookie
    (the integrity report's "shared addresses and devices", over every
    sighting still kept, not only the report's last ``INTEGRITY_DAYS``)."""
    mine = Sighting.objects.filter(user=user)
    return (
        Sighting.objects.filter(user=other)
        .filter(
            Q(ip__in=mine.values("ip")) | Q(device__in=mine.exclude(device="").values("device"))
        )
        .exists()
    )


RECENT = 10


def user_overview(*, user: User) -> dict[str, Any]:
    """What a moderator needs first about a player: the wallet, the last
    hands (number, table, what they won: never cards), the last chat lines,
    the reports of their lines still waiting, and the last moderation actions."""
    hands = (
        HandPlayer.objects.filter(user=user)
        .select_related("hand__table")
        .order_by("-hand_id")[:RECENT]
    )
    chat = ChatMessage.objects.filter(user=user).select_related("table").order_by("-id")[:RECENT]
    reported = set(
        ChatReport.objects.filter(message__in=[line.pk for line in chat]).values_list(
            "message_id", flat=True
        )
    )
    return {
        "account": Account.objects.filter(kind=Account.Kind.USER, user=user).first(),
        "hands": list(hands),
        "chat": [(line, line.pk in reported) for line in chat],
        "open_reports": ChatReport.objects.filter(
            message__user=user, status=ChatReport.Status.OPEN
        ).count(),
        "audit": list(
            AuditEntry.objects.filter(
                target_type__app_label=User._meta.app_label,
                target_type__model=User._meta.model_name,
                target_id=user.pk,
            )
            .select_related("actor")
            .order_by("-id")[:5]
        ),
    }


def hand_inspection(*, hand: Hand) -> dict[str, Any]:
    """Everything about a finished hand, for staff: every event (all
    visibilities), each player's dealt cards, the deck re-dealt from the server
    seed, the seeds, the commitment check, the result and the settlement
    transaction.

    A hand still in play shows only what its spectators see (its public events,
    the commitment and the client seeds): no server seed, no deck, nobody's
    cards, for every staff account, superusers included (``hidden``)."""
    events = list(HandEvent.objects.filter(hand=hand).order_by("seq"))
    if not hand.finished:
        return {
            "hand": hand,
            "hidden": True,
            "players": [
                {**player, "index": index, "dealt": [], "dealt_cards": [], "net": None}
                for index, player in enumerate(hand.players)
            ],
            "events": [e for e in events if e.visibility == HandEvent.Visibility.EVERYONE],
            "deck": [],
            "deck_cards": [],
            "board": [],
            "board_cards": [],
            "payments": [],
            "commitment_ok": False,
            "deal_matches_seed": False,
            "problem": "",
            "settlement": None,
            "settlement_key": settlement_key(hand),
        }
    dealt = {e.player: e.payload.get("cards", []) for e in events if e.type == "dealt"}
    plugin = plugin_for(hand.game)
    deck: list[str] = []
    redealt: dict[int, list[str]] = {}
    board: list[str] = []
    problem = ""
    commitment_ok = False
    try:
        seed = fairness.parse_server_seed(hand.server_seed)
        commitment_ok = fairness.commitment(seed) == hand.commitment
        cards = fairness.deal_deck(seed, hand.fair_id, hand.client_seeds)
        deck = cards_str(cards)
        _, start_events = plugin.engine.start(
            plugin.ruleset(hand.table), cards, len(hand.players), hand.setup
        )
        redealt = {
            e.seat: e.data["cards"]
            for e in start_events
            if e.type == "dealt" and e.seat is not None
        }
        if isinstance(hand.state.get("board"), list):
            board = cards_str(hand.state["board"])
    except RulesError as err:
        problem = err.message
    players = [
        {
            **player,
            "index": index,
            "dealt": dealt.get(index, []),
            "dealt_cards": [_card(c) for c in dealt.get(index, [])],
            "net": (hand.result or {}).get("chips", [None] * len(hand.players))[index]
            if hand.settled and not hand.voided
            else None,
        }
        for index, player in enumerate(hand.players)
    ]
    return {
        "hand": hand,
        "hidden": False,
        "players": players,
        "events": events,
        "deck": deck,
        "deck_cards": [_card(c) for c in deck],
        "board": board,
        "board_cards": [_card(c) for c in board],
        "payments": _payments(hand, unit=hand.table.stake if plugin.pays_in_units else 1),
        "commitment_ok": commitment_ok,
        "deal_matches_seed": bool(redealt) and redealt == dealt,
        "problem": problem,
        "settlement": LedgerTransaction.objects.filter(
            idempotency_key=settlement_key(hand)
        ).first(),
        "settlement_key": settlement_key(hand),
    }


def _card(card: str) -> dict[str, Any]:
    """A card for the page: its code, its face (``Q♦``) and whether it is red."""
    return {"code": card, "text": card_display(parse_card(card)), "red": card[-1] in "dh"}


def _payments(hand: Hand, *, unit: int) -> list[dict[str, Any]]:
    """The hand's payments, one row each: who paid whom, how many units and
    chips (before the balance cap: the settlement transaction has what moved),
    why, and the rest of the engine's detail."""
    names = [player.get("name", "") for player in hand.players]
    rows = []
    for payment in (hand.result or {}).get("payments", []):
        payer, payee = payment.get("payer"), payment.get("payee")
        amount = payment.get("amount", 0)
        rows.append(
            {
                "from": names[payer] if isinstance(payer, int) and payer < len(names) else payer,
                "to": names[payee] if isinstance(payee, int) and payee < len(names) else payee,
                "units": amount,
                "chips": amount * unit if isinstance(amount, int) else None,
                "reason": payment.get("reason", ""),
                "detail": payment.get("detail") or {},
            }
        )
    return rows
