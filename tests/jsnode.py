"""The JS vector tests' functions under Node.js (tests/jsnode.mjs) instead of a
browser, for the modules of static/js/ that are pure code: ``NodePage.evaluate``
takes the same function text and argument as Playwright's ``page.evaluate``
and returns the same (JSON) value; the script errors it saw are in ``errors``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).with_name("jsnode.mjs")


def node_path() -> str:
    return shutil.which("node") or "/usr/bin/node"


class NodePage:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def evaluate(self, source: str, arg: Any = None) -> Any:
        done = subprocess.run(
            [node_path(), str(RUNNER)],
            input=json.dumps({"source": source, "arg": arg, "root": str(ROOT)}),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            check=False,
        )
        if done.returncode != 0 or not done.stdout:
            raise RuntimeError(f"node exited {done.returncode}: {done.stderr}")
        out = json.loads(done.stdout)
        self.errors.extend(out["errors"])
        if "thrown" in out:
            raise RuntimeError(f"the function threw: {out['thrown']}")
        return out["result"]
