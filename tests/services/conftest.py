import pytest

from kernel import notify

from .. import wire
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


@pytest.fixture(autouse=True)
def wire_checked(monkeypatch):
    """Every message a table service sends matches the published schema."""
    checked = wire.Checked()
    original = notify.send

    def send(messages, **kwargs):
        for group, message in messages:
            wire.check_group_message(group, message)
            checked.count += 1
        return original(messages, **kwargs)

    monkeypatch.setattr(notify, "send", send)
    return checked
