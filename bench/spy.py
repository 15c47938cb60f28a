"""Shares of where sampled processes spent their time, from py-spy's raw output.

Record each process while a benchmark runs (``--gil``: only samples that held
the GIL, close to its Python CPU), then read the files together:

    py-spy record --gil -f raw -r 100 -d 15 --nonblocking -p <pid> -o a.txt
    .venv/bin/python -m bench.spy a.txt b.txt --top 40

It prints the number of samples, then each function's inclusive share (the
samples with it anywhere on the stack: a row includes the functions it calls)
and its self share (the samples in it), and writes them as JSON
(``bench/results/spy.json``). A function is named ``name (file)``, the file
shortened to its package path.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "spy.json"
NO_FRAME = "(no Python frame)"
FRAME = re.compile(r"^(?P<name>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frame_name(frame: str) -> str:
    """``func (path/to/site-packages/pkg/mod.py:12)`` -> ``func (pkg/mod.py)``."""
    match = FRAME.match(frame)
    if match is None:
        return frame
    path = match["file"].split("site-packages/")[-1]
    path = re.sub(r"^.*/(?=(games|vipgame|wallet|bench)/)", "", path)
    return f"{match['name']} ({path})"


def shares(lines: Iterable[str]) -> dict[str, Any]:
    """Samples, and each function's inclusive and self share (0-1), from lines
    of py-spy's raw format (``frame;frame;...;frame count``)."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        # (a sample that held the GIL outside any Python frame still counts)
        names = [frame_name(frame) for frame in stack.split(";")] if stack else [NO_FRAME]
        for name in set(names):
            inclusive[name] += n
        own[names[-1]] += n
    if not total:
        return {"samples": 0, "inclusive": {}, "self": {}}
    return {
        "samples": total,
        "inclusive": {name: n / total for name, n in inclusive.most_common()},
        "self": {name: n / total for name, n in own.most_common()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="py-spy raw output files")
    parser.add_argument("--top", type=int, default=40, help="rows of each table to print")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()

    lines: list[str] = []
    for path in args.files:
        lines.extend(path.read_text().splitlines())
    result = shares(lines)
    print(f"samples: {result['samples']}")
    for kind in ("inclusive", "self"):
        print(f"\n{kind} share:")
        for name, share in list(result[kind].items())[: args.top]:
            print(f"  {100 * share:5.1f} %  {name}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
