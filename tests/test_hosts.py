"""The multi-host drills (tests/hostdrill.py, short form) on network
namespaces (tests/hosts.py): a proxy host with nginx, two app hosts, a data
host with PostgreSQL, PgBouncer in transaction mode and the Redis primary, a
second data host with its replica, and three sentinels. Socket players and
bot tables play through nginx while app1 is cut off the network for 20 s,
app2's processes are killed, PostgreSQL restarts, a release rolls out host
by host and back (drain, restart, readiness, back into nginx; its migration
only adds, and is reversed after the rollback), and the Redis primary is
killed (the sentinels promote the replica; the old primary, started again,
becomes its replica); each drill's
longest pause per table stays within its bound, every table finishes a hand
after it, no player loses a seat, and the money holds (docs/operations.md
"Multi-host drills").

It runs the drill as a process of its own: Django there is set up against the
data host's database, not this session's test database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from .processes import ROOT

pytestmark = [pytest.mark.slow]


@pytest.mark.timeout(600)
def test_the_room_survives_host_faults_a_database_restart_a_release_and_a_redis_failover(
    tmp_path,
):
    assert os.geteuid() == 0, "network namespaces need root (CI runs the tests as root)"
    drill = [sys.executable, "-m", "tests.hostdrill", "--short", "--workdir", str(tmp_path)]
    process = subprocess.Popen(
        # In a network namespace of its own (``unshare --net``): the links the
        # drill makes and removes never appear in the machine's own network,
        # where a browser test running beside it on another worker would see
        # them as a network change (Chromium fails every request in flight
        # with ERR_NETWORK_CHANGED: seen while a drill ran beside the suite).
        ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *drill],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=540)
    finally:
        if process.poll() is None:  # the drill tears its hosts down on SIGTERM
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    lines = [line for line in output.splitlines() if line.startswith(("[", "RESULT "))]
    print("\n".join(lines))
    assert lines, output[-5000:]
    assert lines[-1].startswith("RESULT "), output[-5000:]
    result = json.loads(lines[-1].removeprefix("RESULT "))

    assert [d["drill"] for d in result["drills"]] == [
        "partition",
        "kill",
        "postgres",
        "rolling",
        "redis-failover",
    ]
    for drill in result["drills"]:
        assert drill["every_table_finished_a_hand_after"], drill
        assert drill["worst_pause_s"] <= drill["bound_s"], drill
    partition, kill, _postgres, rolling, failover = result["drills"]
    # The room played on while app1 was cut off, and its players came back.
    assert partition["tables_that_moved_while_app1_was_cut_off"] > 0, partition
    assert partition["errors_to_players"].get("socket:pong_timeout", 0) > 0, partition
    assert kill["moved_on_without_app2"], kill
    assert kill["reconnects"] > 0, kill
    # The release: its migration added the column while the old release
    # served, every host went out of nginx, onto it and back in, its code
    # dealt hands (writing the column), the rollback put every host back on
    # the previous release, and only then was the column dropped.
    assert rolling["column_added"], rolling
    for step in ("release_app1", "release_app2", "rollback_app1", "rollback_app2"):
        assert rolling[step]["out_of_nginx_s"] > 0, rolling
    assert rolling["every_table_dealt_by_next"], rolling
    assert rolling["hands_dealt_by_previous_on_the_added_column"] > 0, rolling
    assert rolling["column_dropped"], rolling
    # The Redis fail-over: the replica on data2 promoted, every process
    # followed it (none exited), the hands in play at the kill finished, and
    # the old primary, started again, is the new one's replica.
    assert (failover["primary_killed_on"], failover["primary_now_on"]) == ("data", "data2")
    assert failover["promoted_after_s"] is not None, failover
    assert failover["those_hands_finished"], failover
    assert failover["old_primary_a_replica_of_the_new_after_s"] is not None, failover
    assert failover["processes_exited"] == [], failover
    assert not result["seats_lost"], result["seats_lost"]
    assert result["all_hands_finished"]
    money = result["money"]
    assert money["sum_of_balances"] == 0
    assert money["negative_balances"] == 0
    assert money["hands_unsettled"] == 0
    assert money["settled_twice"] == 0
    assert not result["overdue_tables"]
    assert result["passed"], result
    assert result["seconds"] < 400, result["seconds"]
