"""Stored results, Tiến Lên states and chop events in the one payment shape
(``payer``, ``payee``, ``amount``, ``reason``, ``detail``) and the one result
shape of docs/protocol.md ("Results")."""

from django.db import migrations

BATCH = 500


def _payment(old, detail=None):
    fixed = ("from", "to", "amount", "units", "reason", "detail")
    rest = {k: v for k, v in old.items() if k not in fixed}
    return {
        "payer": old["from"],
        "payee": old["to"],
        "amount": old["amount"] if "amount" in old else old["units"],
        "reason": old.get("reason", "chop"),
        "detail": {**(old.get("detail") or {}), **rest} if detail is None else detail,
    }


def _result(hand, stake):
    old = hand.result
    if not isinstance(old, dict) or "game" in old:
        return None
    unit = 1 if hand.game == "holdem" else stake
    players = len(hand.players)
    if old.get("voided"):
        return {
            "game": hand.game,
            "voided": True,
            "reason": old.get("reason", ""),
            "unit": unit,
            "net": [0] * players,
            "chips": [0] * players,
            "payments": [],
            "summary": None,
        }
    return {
        "game": hand.game,
        "voided": False,
        "reason": None,
        "unit": unit,
        "net": old.get("net_units", [0] * players),
        "chips": old.get("chips"),
        "payments": [_payment(p) for p in old.get("payments", [])],
        "summary": old.get("summary") or {},
    }


def _state(hand):
    state = hand.state
    if hand.game != "tienlen" or not isinstance(state, dict):
        return None
    settled = state.get("settled") or []
    if not any("from" in p for p in settled):
        return None
    return {**state, "settled": [_payment(p) if "from" in p else p for p in settled]}


def forward(apps, schema_editor):
    Hand = apps.get_model("games", "Hand")
    HandEvent = apps.get_model("games", "HandEvent")
    changed = []
    for hand in Hand.objects.select_related("table").iterator(chunk_size=BATCH):
        result, state = _result(hand, hand.table.stake), _state(hand)
        if result is None and state is None:
            continue
        if result is not None:
            hand.result = result
        if state is not None:
            hand.state = state
        changed.append(hand)
        if len(changed) >= BATCH:
            Hand.objects.bulk_update(changed, ["result", "state"])
            changed = []
    if changed:
        Hand.objects.bulk_update(changed, ["result", "state"])
    events = []
    for event in HandEvent.objects.filter(type="chop_settled").iterator(chunk_size=BATCH):
        if "from" in event.payload:
            event.payload = _payment(event.payload, detail={})
            events.append(event)
    HandEvent.objects.bulk_update(events, ["payload"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("games", "0005_event_visibility_without_staff")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
