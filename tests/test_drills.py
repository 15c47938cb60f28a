"""The short fault drills of bench/drills.py against the test database: a
Daphne killed mid-hand, the Celery worker killed with clocks pending, Redis
restarted mid-hand, PostgreSQL ending the servers' connections mid-hand. Each
checks the money and that no hand is stuck."""

import pytest

from bench.drills import run_drill

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
    assert result["passed"], result
