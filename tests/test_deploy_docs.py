"""Issue 18 item 1: `.env.example` and docs/operations.md list every setting the
code reads (and nothing it no longer reads); the commands the operations guide
gives agree with the deploy/ files."""

from __future__ import annotations

import ast
import re
import shlex
from collections import Counter
from pathlib import Path

from .processes import ROOT
from .topology import unit

PACKAGES = ("vipgame", "moderation", "games", "wallet", "push", "accounts", "kernel")
ENV_EXAMPLE = ROOT / ".env.example"
OPERATIONS = ROOT / "docs" / "operations.md"
# A setting line of .env.example, in use or commented out: "KEY=value" or "# KEY=value".
SETTING_LINE = re.compile(r"^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$")


def _name(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def names_read(tree: ast.AST) -> set[str]:
    """Environment variables a module reads: ``env.<cast>("NAME", ...)`` (django-environ),
    ``throttle_rate("NAME", ...)``, ``os.environ.get("NAME")``, ``os.environ["NAME"]`` and
    ``os.getenv("NAME")``. ``os.environ.setdefault`` writes and is not counted."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            reads = (
                (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "env")
                or (isinstance(func, ast.Name) and func.id == "throttle_rate")
                or ast.unparse(func) in ("os.environ.get", "os.getenv")
            )
            if reads and (name := _name(node.args[0])):
                found.add(name)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and ast.unparse(node.value) == "os.environ"
            and (name := _name(node.slice))
        ):
            found.add(name)
    return found


def settings_the_code_reads() -> set[str]:
    found: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                found |= names_read(ast.parse(path.read_text(), filename=str(path)))
    # The Procfile of `make run` reads some itself (Daphne's options).
    found |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", (ROOT / "Procfile").read_text()))
    return found


def env_example_settings() -> list[str]:
    lines = ENV_EXAMPLE.read_text().splitlines()
    return [m.group(1) for line in lines if (m := SETTING_LINE.match(line))]


def test_the_reader_finds_each_way_of_reading_the_environment():
    tree = ast.parse(
        "import os\n"
        'A = env.int("ONE", default=1)\n'
        'B = env.str(\n    "TWO", default="x"\n)\n'
        'C = throttle_rate("THREE", "1/min")\n'
        'D = os.environ.get("FOUR")\n'
        'E = os.environ["FIVE"]\n'
        'F = os.getenv("SIX")\n'
        'os.environ.setdefault("WRITTEN", "1")\n'
        'os.environ["ALSO_WRITTEN"] = "1"\n'
    )
    assert names_read(tree) == {"ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX"}


def test_every_setting_the_code_reads_is_in_env_example_and_the_operations_guide():
    read = settings_the_code_reads()
    assert {"DEBUG", "DATABASE_URL", "DB_POOL_MAX_SIZE", "PROMETHEUS_MULTIPROC_DIR"} <= read
    assert {"WS_MAX_FRAME_BYTES", "WEB_HOST"} <= read  # from the Procfile
    guide = set(re.findall(r"`([A-Z][A-Z0-9_]*)`", OPERATIONS.read_text()))

    assert sorted(read - set(env_example_settings())) == []
    assert sorted(read - guide) == []


def test_env_example_names_only_settings_that_are_read_each_once():
    listed = env_example_settings()

    assert sorted(set(listed) - settings_the_code_reads()) == []
    assert [name for name, n in Counter(listed).items() if n > 1] == []


def test_env_example_values_carry_no_comment():
    """systemd's EnvironmentFile= takes everything after `=` as the value: a
    trailing `# ...` would become part of it."""
    for line in ENV_EXAMPLE.read_text().splitlines():
        if m := SETTING_LINE.match(line):
            assert "#" not in m.group(2), line
            assert " " not in m.group(2).strip(), line


def test_the_drop_in_for_another_daphne_host_runs_the_units_command():
    """docs/operations.md, "Adding machines": the web unit's command with only
    the bound address changed (the frame bounds and time-outs kept)."""
    [unit_command] = unit("vipgame-web@.service")["ExecStart"]
    drop_ins = re.findall(r"^\s*ExecStart=(\S.*)$", OPERATIONS.read_text(), flags=re.M)
    web = [c for c in drop_ins if "daphne" in c]

    assert len(web) == 1
    expected = shlex.split(unit_command)
    expected[expected.index("--bind") + 1] = "10.0.0.12"
    assert shlex.split(web[0]) == expected


def test_the_guide_installs_every_unit_and_the_site():
    guide = OPERATIONS.read_text()
    for path in sorted((ROOT / "deploy" / "systemd").iterdir()):
        assert f"`deploy/systemd/{path.name}`" in guide
    assert "`deploy/nginx/vipgame.conf`" in guide
    assert Path("/srv/vipgame/deploy/nginx/vipgame.conf").as_posix() in guide
