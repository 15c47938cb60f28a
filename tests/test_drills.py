"""The short fault drills of bench/drills.py against the test database: a
Daphne killed mid-hand, the Celery worker killed with clocks pending, Redis
restarted mid-hand, PostgreSQL ending the servers' connections mid-hand, the
Sentinel-watched Redis primary killed mid-hand. Each checks the money and that
no hand is stuck."""

import pytest

from bench.drills import SENTINEL_MOVES_AGAIN_S, run_drill

from . import processes

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("drill", ["daphne", "celery", "redis", "postgres"])
def test_drill(tmp_path, drill):
    result = run_drill(drill, 2, tmp_path, database_url=processes.test_database_url())

    assert result["money"]["sum_of_balances"] == 0
    assert result["money"]["negative_balances"] == 0
    assert result["money"]["hands_unsettled"] == 0
    assert result["money"]["settled_twice"] == 0
    assert result["stuck_tables"] == 0
    print(result)  # (all of it, with the captured output of a failure)
    assert result["passed"], result


def test_sentinel_failover_drill(tmp_path):
    """Every role on a Sentinel-watched primary; the primary is killed mid-hand:
    the replica is promoted, no table pauses longer than the stated bound,
    no process exits, and every hand that was interrupted completes."""
    result = run_drill("sentinel", 2, tmp_path, database_url=processes.test_database_url())
    print(result)  # (the measured times, with -s)

    assert result["money"]["sum_of_balances"] == 0
    assert result["money"]["negative_balances"] == 0
    assert result["money"]["hands_unsettled"] == 0
    assert result["money"]["settled_twice"] == 0
    assert result["stuck_tables"] == 0
    assert result["replica_promoted_after_s"] is not None, result
    assert result["processes_exited"] == [], result
    assert result["interrupted_hands_completed"], result
    pauses = result["longest_pause_s"]
    assert len(pauses) == 2, result
    assert max(pauses.values()) <= SENTINEL_MOVES_AGAIN_S, result
    assert result["passed"], result
