"""A move of a running hand is published as a ``delta`` per recipient; every
delta, applied to the state its recipient held, gives exactly the state that
recipient would read afresh at that version (``selectors.table_state``), and
so does every full state."""

from __future__ import annotations

import json
from typing import cast

import pytest

from games import publish, selectors, services
from games.models import Seat, Table
from games.protocol import DeltaMessage, apply_delta

from ..registry import GAMES, facts
from .driver import next_hand, play_until_finished, ready_all, seated_table

pytestmark = pytest.mark.django_db

HANDS = 3


def _same(rebuilt: dict, fresh: dict) -> None:
    """Equal but for the time of sending and the events (a fresh read carries
    none; a delta, its move's)."""
    ignore = ("server_time", "events", "resync")
    left = {k: v for k, v in rebuilt.items() if k not in ignore}
    right = {k: v for k, v in fresh.items() if k not in ignore}
    # As JSON text: strict (1 and true differ), as a client sees them.
    assert json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


@pytest.mark.parametrize("game", GAMES)
def test_every_delta_rebuilds_the_fresh_state(tables, make_user, monkeypatch, game):
    humans, bots = facts(game).delta_seating or facts(game).seating
    table, users = seated_table(make_user, game, humans, bots)
    by_group = {publish.user_group(table.pk, u.pk): u for u in users}
    by_group[publish.public_group(table.pk)] = None
    held: dict[str, dict] = {}
    counts = {"delta": 0, "state": 0, "bytes_delta": 0, "bytes_state": 0, "seat_delta": 0}
    original = publish.send

    def check(messages, **options):
        for group, message in messages:
            payload = message.get("payload") or {}
            kind = payload.get("type")
            if group not in by_group or kind not in ("state", "delta"):
                continue
            counts[kind] += 1
            counts[f"bytes_{kind}"] += len(json.dumps(payload))
            if kind == "state":
                # Full states too are what a fresh read gives at their version.
                _same(payload, selectors.table_state(table_id=table.pk, user=by_group[group]))
                held[group] = payload
                continue
            assert payload["base"] == payload["v"] - 1
            if "hand" not in payload:
                counts["seat_delta"] += 1
            state = apply_delta(held[group], cast(DeltaMessage, payload))
            assert state is not None, "a delta the recipient could not apply"
            # Published after commit, before anything else ran: the table is at
            # this very version.
            fresh = selectors.table_state(table_id=table.pk, user=by_group[group])
            assert fresh["v"] == payload["v"]
            _same(state, fresh)
            # Its events are those of that version, as a client that missed it reads them.
            missed = selectors.table_state(
                table_id=table.pk, user=by_group[group], since=payload["base"]
            )
            assert payload["events"] == missed["events"]
            held[group] = state
        original(messages, **options)

    monkeypatch.setattr(publish, "send", check)
    tables.drain()
    # What each recipient holds on connecting.
    for group, user in by_group.items():
        held[group] = selectors.table_state(table_id=table.pk, user=user)
    ready_all(table)
    for _ in range(HANDS):
        # Changes of the seats only, mid-hand: seat deltas.
        services.seat_presence(table_id=table.pk, user=users[0], delta=1)
        services.table_auto_ready(table_id=table.pk, user=users[1], on=False)
        services.table_auto_ready(table_id=table.pk, user=users[1], on=True)
        services.seat_presence(table_id=table.pk, user=users[0], delta=-1)
        play_until_finished(tables, table)
        next_hand(tables, table)
    assert counts["seat_delta"] >= 4 * HANDS * (humans + 1)
    # A hand's moves are deltas, and they are small (Mậu Binh has four
    # arrangements and the reveal: few moves beside the deal and readies).
    assert counts["delta"] > (0 if game == "maubinh" else counts["state"])
    shrink = facts(game).delta_shrink
    assert (
        counts["bytes_delta"] / counts["delta"] < counts["bytes_state"] / counts["state"] / shrink
    )


def test_a_move_that_changes_the_seats_or_ends_the_hand_is_sent_in_full(
    tables, make_user, monkeypatch
):
    owner, other = make_user(), make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=2, seat_count=4)
    for user in (owner, other):
        services.table_sit(table_id=table.pk, user=user)
    for _ in range(8):  # (a real deal may end at once, a tới trắng: the next one)
        ready_all(table)
        tables.drain()
        table.refresh_from_db()
        if table.status == Table.Status.PLAYING:
            break
        tables.fire(table)  # the result's pause ends: ready for the next deal
    else:
        raise AssertionError("8 deals in a row ended at once")
    kinds: list[str] = []
    last: dict[str, dict] = {}

    def record(messages, **_):
        for group, message in messages:
            if "payload" in message:
                kinds.append(message["payload"]["type"])
                last[group] = message["payload"]

    def publish_of(user):
        group = (
            publish.public_group(table.pk)
            if user is None
            else publish.user_group(table.pk, user.pk)
        )
        return last[group]

    held = {
        user: selectors.table_state(table_id=table.pk, user=user) for user in (owner, other, None)
    }
    monkeypatch.setattr(publish, "send", record)
    # A change that does not touch the hand (a socket closing) is one seat
    # delta for everyone, which keeps the hand each recipient holds.
    services.seat_presence(table_id=table.pk, user=owner, delta=-1)
    assert kinds == ["delta", "delta", "delta"]
    for user in (owner, other, None):
        delta = publish_of(user)
        assert "hand" not in delta
        rebuilt = apply_delta(held[user], cast(DeltaMessage, delta))
        assert rebuilt is not None
        _same(rebuilt, selectors.table_state(table_id=table.pk, user=user))
    kinds.clear()
    # A player leaving mid-hand changes the seats: everyone gets a full state.
    services.table_leave(table_id=table.pk, user=other)
    assert kinds
    assert set(kinds) == {"state"}
    assert Seat.objects.get(table=table, user=other).leaving


def test_no_column_but_the_shown_ones_changes_the_table_fields(tables, make_user):
    # given a table as a move would load it, and each column the state does
    # not show of it (publish.TABLE_SHOWN: a delta compares only those)
    from datetime import timedelta

    from games.models import Table
    from games.sql import clone

    table = Table.objects.get(pk=seated_table(make_user, "holdem", 2, 0)[0].pk)
    closed = clone(table)
    closed.status = Table.Status.CLOSED  # (shows its reason too)
    for base in (table, closed):
        shown = publish.table_fields(base)
        for field in Table._meta.concrete_fields:
            if field.attname in publish.TABLE_SHOWN or field.primary_key:
                continue  # (a delta is of one table: its id is the same)
            value = getattr(base, field.attname)
            changed = clone(base)
            other: object
            if isinstance(value, bool):
                other = not value
            elif isinstance(value, int):
                other = value + 1
            elif isinstance(value, str):
                other = value + "x"
            elif value is None:
                other = 1
            elif hasattr(value, "tzinfo"):
                other = value + timedelta(seconds=1)
            elif isinstance(value, dict):
                other = {**value, "x": 1}  # (what a game keeps between hands)
            else:
                pytest.fail(f"no other value for {field.attname}: {value!r}")
            setattr(changed, field.attname, other)
            # when only that column changes, then the table's fields do not
            assert publish.table_fields(changed) == shown, field.attname
            assert publish.table_fields_changed(base, changed) == {}
    # and a shown column that changes is in the delta
    changed = clone(table)
    changed.hands_played += 1
    assert publish.table_fields_changed(table, changed) == {"hands_played": table.hands_played + 1}
