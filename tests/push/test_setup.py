"""Push's setup: the production check of the VAPID pair (vipgame.E005), the
pair make run keeps, the key command, and the app icons (the generator's
output)."""

import json
import multiprocessing
from io import StringIO

from django.core.management import call_command

from push.keys import check_pair, development_pair, generate
from vipgame import checks, icons


def test_production_refuses_web_push_without_a_matching_pair(settings):
    settings.DEBUG = False
    settings.PUSH_SENDER = "webpush"
    public, private = generate()
    other_public, _other = generate()
    for given in [("", ""), (public, ""), (other_public, private), (public, "not-a-key!")]:
        settings.PUSH_VAPID_PUBLIC_KEY, settings.PUSH_VAPID_PRIVATE_KEY = given
        [error] = checks.production_push()
        assert error.id == "vipgame.E005"
    settings.PUSH_VAPID_PUBLIC_KEY, settings.PUSH_VAPID_PRIVATE_KEY = public, private
    assert checks.production_push() == []
    settings.PUSH_VAPID_PUBLIC_KEY = settings.PUSH_VAPID_PRIVATE_KEY = ""
    settings.PUSH_SENDER = "off"
    assert checks.production_push() == []
    settings.DEBUG = True
    settings.PUSH_SENDER = "webpush"
    assert checks.production_push() == []


def test_make_run_keeps_its_pair(tmp_path):
    path = tmp_path / "vapid.json"
    first = development_pair(path)
    assert development_pair(path) == first
    assert check_pair(*first) is None
    assert path.stat().st_mode & 0o077 == 0
    assert json.loads(path.read_text())["public"] == first[0]


def _pair_at_start(path, start, out):
    start.wait(timeout=30)
    try:
        out.put(development_pair(path))
    except Exception as exc:  # (what the process met, for the assert)
        out.put(repr(exc))


def test_processes_starting_together_share_one_pair(tmp_path):
    """make run (and each browser test's stack) starts Daphne and the Celery
    worker at once on one VAR_DIR: one made the pair while the other read the
    file half written (a worker died at start, JSONDecodeError, in a CI-like
    run), or both made one and each kept its own."""
    spawn = multiprocessing.get_context("fork")
    for attempt in range(15):
        path = tmp_path / f"vapid{attempt}.json"
        start, out = spawn.Barrier(4), spawn.Queue()
        racers = [spawn.Process(target=_pair_at_start, args=(path, start, out)) for _ in range(4)]
        for racer in racers:
            racer.start()
        got = [out.get(timeout=30) for _ in racers]
        for racer in racers:
            racer.join(timeout=30)
        assert len(set(got)) == 1, got
        assert got[0] == development_pair(path)


def test_the_key_command_prints_a_pair():
    out = StringIO()
    call_command("push_keys", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().split())
    assert check_pair(lines["PUSH_VAPID_PUBLIC_KEY"], lines["PUSH_VAPID_PRIVATE_KEY"]) is None


def test_the_icons_are_the_generators_output():
    for size in icons.SIZES:
        assert icons.path(size).read_bytes() == icons.png(size), (
            f"run python -m vipgame.icons ({size})"
        )
