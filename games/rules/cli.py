"""The rules command line: one JSON object on stdin, one on stdout.

Exit 0 with the answer, or exit 2 with ``{"error": {"code", "message"}}``.
Each registered game contributes its ops in its rules package's ``cli.py`` as
``OPS`` (:mod:`games.rules.registry`: the packages shipped in ``games/rules/``
and any named in the ``VIPGAME_RULES`` environment variable).
Bad input is a :class:`RulesError` with a stable code; anything else that
goes wrong is still answered in that shape (code ``internal_error``), never
with a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from . import fairness, registry
from .cards import cards_str
from .errors import RulesError

Op = Callable[[dict[str, Any]], dict[str, Any]]


def op_deck(request: dict[str, Any]) -> dict[str, Any]:
    seed = fairness.parse_server_seed(request.get("server_seed"))
    hand_id = fairness.check_hand_id(request.get("hand_id"))
    seeds = request.get("client_seeds", [])
    if not isinstance(seeds, list):
        raise RulesError("bad_request", "client_seeds must be a list of strings")
    client_seeds = [fairness.check_client_seed(s) for s in seeds]
    return {
        "commitment": fairness.commitment(seed),
        "deck": cards_str(fairness.deal_deck(seed, hand_id, client_seeds)),
    }


def all_ops() -> dict[str, Op]:
    registry.load_configured()
    ops: dict[str, Op] = {"deck": op_deck}
    for rules in registry.entries():
        ops.update(rules.ops)
    return ops


def run(request: object) -> dict[str, Any]:
    if not isinstance(request, dict):
        raise RulesError("bad_request", "The input must be one JSON object")
    op = request.get("op")
    ops = all_ops()
    if not isinstance(op, str) or op not in ops:
        raise RulesError("unknown_op", f"Unknown op: {op!r}; known ops: {', '.join(sorted(ops))}")
    return ops[op](request)


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    try:
        try:
            request = json.loads(stdin.read())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RulesError("bad_json", f"Malformed JSON: {exc}") from None
        answer = run(request)
    except RulesError as err:
        json.dump({"error": err.as_dict()}, stdout, ensure_ascii=False)
        stdout.write("\n")
        return 2
    except RecursionError:
        json.dump({"error": {"code": "bad_request", "message": "Input nested too deeply"}}, stdout)
        stdout.write("\n")
        return 2
    except Exception as exc:  # the contract: JSON out, never a traceback
        message = f"Internal error ({type(exc).__name__}); please report the input"
        json.dump({"error": {"code": "internal_error", "message": message}}, stdout)
        stdout.write("\n")
        return 2
    json.dump(answer, stdout, ensure_ascii=False)
    stdout.write("\n")
    return 0
