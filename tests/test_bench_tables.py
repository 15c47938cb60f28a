"""bench.tables with its load client spread over processes (issue 33 item 7):
what the clients saw merged over processes, each process's loop lag, and the
server's own latency read from its metrics, apart."""

from __future__ import annotations

import asyncio
import gc
import json
import time

import pytest

from bench import tables
from bench.clients import LoopLag, Measured, deal, measure, merge
from bench.players import Action, Run, TableSpec
from bench.probes import parse

from . import processes


def test_the_tables_are_dealt_whole_to_each_process():
    specs = [TableSpec(n, "tienlen", ["t"] * 4) for n in range(5)]

    shares = deal(specs, 2)

    assert [[s.id for s in share] for share in shares] == [[0, 2, 4], [1, 3]]
    assert len(deal(specs[:1], 3)) == 1  # no process without a table


def test_a_move_is_timed_to_every_seat_and_to_each():
    run = Run((0.0, 100.0))
    run.actions["m"] = Action(table=7, sent=10.0, version=3, acked=10.01)
    for position, at in enumerate((10.02, 10.05, 10.03, 10.04)):
        run.arrived(7, position, 2, 9.0)
        run.arrived(7, position, 3, at)
    run.actions["lost"] = Action(table=7, sent=11.0, version=9)  # nobody saw v9

    found = measure(run)

    assert found.actions == 2
    assert found.lost == 1
    assert [round(x) for x in found.latencies] == [50]
    assert sorted(round(x) for x in found.each_seat) == [20, 30, 40, 50]
    assert [round(x) for x in found.acks] == [10]


def test_the_processes_measurements_add_up():
    a = Measured(actions=3, latencies=[1.0, 2.0], each_seat=[1.0], lost=1, duplicated=0)
    a.errors["busy"] += 2
    b = Measured(actions=4, latencies=[5.0], each_seat=[2.0, 3.0], lost=0, duplicated=1)
    b.errors["busy"] += 1
    b.received["delta"] += 7

    total = merge([a, b])

    assert total.actions == 7
    assert sorted(total.latencies) == [1.0, 2.0, 5.0]
    assert sorted(total.each_seat) == [1.0, 2.0, 3.0]
    assert (total.lost, total.duplicated) == (1, 1)
    assert total.errors == {"busy": 3}
    assert total.received == {"delta": 7}


def test_the_loop_lag_is_how_late_the_loop_wakes():
    async def go() -> LoopLag:
        now = time.perf_counter()
        run = Run((now, now + 0.6))
        lag = LoopLag(run)
        ticker = asyncio.create_task(lag.tick())
        await asyncio.sleep(0.2)
        held = time.process_time() + 0.15
        while time.process_time() < held:  # the loop is held: the ticker wakes late
            pass
        await ticker
        return lag

    lag = asyncio.run(go())

    summary = lag.summary()
    assert summary["ticks"] >= 3
    assert summary["max_ms"] >= 90
    assert summary["ms"][50] < 50  # only the one tick was held
    cpu = lag.cpu_s()
    assert cpu is not None
    assert cpu >= 0.1


EXPOSITION = """
# TYPE vipgame_move_fanout_seconds histogram
vipgame_move_fanout_seconds_bucket{{game="tienlen",le="0.01"}} {a}
vipgame_move_fanout_seconds_bucket{{game="tienlen",le="0.15"}} {b}
vipgame_move_fanout_seconds_bucket{{game="tienlen",le="+Inf"}} {c}
vipgame_move_fanout_seconds_count{{game="tienlen"}} {c}
vipgame_move_fanout_seconds_sum{{game="tienlen"}} {s}
vipgame_move_fanout_seconds_bucket{{game="holdem",le="0.01"}} 0
vipgame_move_fanout_seconds_bucket{{game="holdem",le="0.15"}} 0
vipgame_move_fanout_seconds_bucket{{game="holdem",le="+Inf"}} 50
vipgame_move_fanout_seconds_count{{game="holdem"}} 50
vipgame_move_fanout_seconds_sum{{game="holdem"}} 100
"""


def test_the_servers_latency_is_read_between_two_scrapes_for_the_game():
    first = parse(EXPOSITION.format(a=10, b=10, c=10, s=0.05))
    # 100 more frames: 60 within 10 ms, 36 more within 150 ms, 4 slower.
    last = parse(EXPOSITION.format(a=70, b=106, c=110, s=3.05))

    server = tables.server_side(first, last, "tienlen")

    assert server["frames"] == 100
    assert server["fanout_mean_ms"] == 30.0
    assert server["fanout_within_150ms"] == 0.96
    assert server["fanout_ms"][50] == pytest.approx(50 / 60 * 10, abs=0.1)
    assert server["fanout_ms"][95] == pytest.approx(10 + 140 * 35 / 36, abs=0.1)
    assert server["fanout_ms"][99] == 150.0  # past the last finite bucket
    assert server["published_ms"] == {50: None, 95: None, 99: None}  # none exported


def test_the_loop_lag_counts_the_collectors_full_collections_in_the_window():
    async def go() -> LoopLag:
        now = time.perf_counter()
        lag = LoopLag(Run((now, now + 0.3)))
        ticker = asyncio.create_task(lag.tick())
        await asyncio.sleep(0.1)
        gc.collect()  # a full collection, in the window
        await ticker
        return lag

    lag = asyncio.run(go())

    summary = lag.summary()
    assert summary["collections"][2] >= 1
    assert summary["full_collection_max_ms"] > 0
    assert not any(getattr(c, "__self__", None) is lag for c in gc.callbacks)  # let go


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_short_run_with_two_client_processes(capsys):
    args = tables.arguments().parse_args(
        ["--tables", "2", "--seconds", "6", "--warmup", "5", "--grace", "3",
         "--clients", "2", "--no-ceiling"]
    )  # fmt: skip

    result = tables.benchmark(args, database_url=processes.test_database_url())
    tables.report(result)

    load, server, clients = result["load"], result["server_latency"], result["clients"]
    assert load["actions"] > 0
    assert load["lost_actions"] == load["duplicated_actions"] == 0
    assert clients["processes"] == 2
    assert [p["tables"] for p in clients["per_process"]] == [1, 1]
    for part in clients["per_process"]:
        assert part["loop_lag"]["ticks"] > 0
        assert part["cpu_s"] is not None
        assert part["cpu_s"] > 0
    assert result["machine"]["cpu_s"]["client"] == pytest.approx(
        sum(p["cpu_s"] for p in clients["per_process"]), abs=0.02
    )
    # Every seat's frame of the window's moves was timed by the server: a frame
    # each (four seats, no spectator), less those a full state replaced.
    reached = load["actions"] - load["lost_actions"] - sum(load["refused_actions"].values())
    assert server["frames"] >= 2 * reached > 0
    assert server["fanout_ms"][50] is not None
    assert server["published_ms"][50] is not None
    assert result["money"]["sum_of_balances"] == 0
    assert result["money"]["hands_unsettled"] == 0
    json.dumps(result, default=str)
    printed = capsys.readouterr().out
    assert "server: move received -> each frame written" in printed
    assert "client processes; loop lag of the worst" in printed
