"""Migration 0005: results, Tiến Lên states and chop events stored before the
one result shape read as the one shape."""

import importlib
from types import SimpleNamespace

migration = importlib.import_module("games.migrations.0006_one_result_shape")

PLAYERS = [{"position": 0}, {"position": 2}]


def test_a_stored_result_becomes_the_one_shape():
    old = {
        "net_units": [7, -7],
        "payments": [{"from": 1, "to": 0, "amount": 7, "reason": "thoi", "cards": ["2h"]}],
        "summary": {"winner": 0, "instant": None, "hands": [[], ["2h"]]},
        "chips": [70, -70],
    }
    hand = SimpleNamespace(game="tienlen", players=PLAYERS, result=old)

    assert migration._result(hand, 10) == {
        "game": "tienlen",
        "voided": False,
        "reason": None,
        "unit": 10,
        "net": [7, -7],
        "chips": [70, -70],
        "payments": [
            {"payer": 1, "payee": 0, "amount": 7, "reason": "thoi", "detail": {"cards": ["2h"]}}
        ],
        "summary": {"winner": 0, "instant": None, "hands": [[], ["2h"]]},
    }
    assert migration._result(SimpleNamespace(**{**vars(hand), "result": None}), 10) is None


def test_a_voided_result_and_a_holdem_unit():
    hand = SimpleNamespace(game="holdem", players=PLAYERS, result={"voided": True, "reason": "x"})

    assert migration._result(hand, 10) == {
        "game": "holdem",
        "voided": True,
        "reason": "x",
        "unit": 1,
        "net": [0, 0],
        "chips": [0, 0],
        "payments": [],
        "summary": None,
    }


def test_a_tien_len_state_and_a_chop_event():
    chop = {"from": 1, "to": 0, "units": 4, "reason": "chop", "detail": {"chain": []}}
    hand = SimpleNamespace(game="tienlen", state={"turn": 0, "settled": [chop]})

    assert migration._state(hand) == {
        "turn": 0,
        "settled": [
            {"payer": 1, "payee": 0, "amount": 4, "reason": "chop", "detail": {"chain": []}}
        ],
    }
    assert migration._payment({"from": 1, "to": 0, "units": 4}, detail={}) == {
        "payer": 1,
        "payee": 0,
        "amount": 4,
        "reason": "chop",
        "detail": {},
    }
