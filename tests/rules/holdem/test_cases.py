"""The rule cases of cases.json, run through the command-line ops (docs/rules.md 1 and 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.cli import run
from games.rules.errors import RulesError

DATA = json.loads((Path(__file__).parent / "cases.json").read_text())
CASES: list[dict[str, Any]] = DATA["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case: dict[str, Any]) -> None:
    # given a request from the data file (its docs/rules.md section in "section")
    assert case["section"] in {"1", "4"}
    if "error" in case:
        # when it is run, then it is refused with the expected code (and index)
        with pytest.raises(RulesError) as refused:
            run(case["request"])
        details = refused.value.as_dict()
        assert {k: details.get(k) for k in case["error"]} == case["error"]
    else:
        # when it is run, then the listed keys of the answer are exactly as expected
        answer = run(case["request"])
        assert {k: answer[k] for k in case["expect"]} == case["expect"]
