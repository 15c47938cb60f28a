import pytest

from ..tables import assert_money_consistent, settle_leftovers


@pytest.fixture(autouse=True)
def money_checked(request):
    """After every table test: Σ balances = 0, no negative balance, every
    finished hand settled exactly once (hands still awaiting their settlement
    task are settled first, as the sweeper would)."""
    yield
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        settle_leftovers()
        assert_money_consistent()
