"""Every game's events named by one scheme (docs/protocol.md "Game events"):
what happened, in the past tense, the same thing with the same name in
every game. Stored events are renamed, and so are the records of a Hold'em
hand's log (its state: ``kind``), so that history, replays (which deal a
hand again and compare its events) and hands in play read the new names."""

from django.db import migrations

BATCH = 500

# Per game, the old name of an event and its new one.
RENAMED = {
    "maubinh": {"deal": "hand_dealt", "reveal": "chi_revealed"},
    "tienlen": {"instant_win": "instant_won", "new_round": "round_started"},
    "holdem": {
        "hand_start": "hand_dealt",
        "blind": "blind_posted",
        "action": "acted",
        "board": "board_dealt",
        "uncalled": "uncalled_returned",
        "show": "cards_shown",
        "showdown": "hands_ranked",
        "pot": "pot_awarded",
        "hand_end": "hand_finished",
    },
}
# Tiến Lên's own first event was called like the table's (``hand_started``,
# number and commitment); the engine's is told by its ``first`` player.
TIENLEN_DEALT = ("hand_started", "hand_dealt", "first")


def _log(state, names):
    """A Hold'em state whose log records are renamed; None if none was."""
    if not isinstance(state, dict) or not isinstance(state.get("log"), list):
        return None
    log = [
        {**r, "kind": names[r["kind"]]} if isinstance(r, dict) and r.get("kind") in names else r
        for r in state["log"]
    ]
    return None if log == state["log"] else {**state, "log": log}


def _rename(apps, forward):
    Hand = apps.get_model("games", "Hand")
    HandEvent = apps.get_model("games", "HandEvent")
    for game, renamed in RENAMED.items():
        names = renamed if forward else {new: old for old, new in renamed.items()}
        for old, new in names.items():
            HandEvent.objects.filter(hand__game=game, type=old).update(type=new)
        if game == "holdem":
            changed = []
            for hand in Hand.objects.filter(game=game).only("state").iterator(chunk_size=BATCH):
                state = _log(hand.state, names)
                if state is not None:
                    hand.state = state
                    changed.append(hand)
                if len(changed) >= BATCH:
                    Hand.objects.bulk_update(changed, ["state"])
                    changed = []
            if changed:
                Hand.objects.bulk_update(changed, ["state"])
    old, new, key = TIENLEN_DEALT
    if not forward:
        old, new = new, old
    HandEvent.objects.filter(hand__game="tienlen", type=old, payload__has_key=key).update(type=new)


def forward(apps, schema_editor):
    _rename(apps, forward=True)


def backward(apps, schema_editor):
    _rename(apps, forward=False)


class Migration(migrations.Migration):
    dependencies = [("games", "0015_invitation")]

    operations = [migrations.RunPython(forward, backward)]
