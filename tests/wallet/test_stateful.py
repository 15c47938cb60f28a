"""The wallet services against an in-memory model (Hypothesis stateful testing)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from accounts.models import User
from kernel.errors import ServiceError
from wallet import services
from wallet.models import Account, Hold
from wallet.services import player_signup

from .helpers import assert_ledger_consistent

PLAYERS = 3
DAY0 = datetime(2026, 11, 20, 3, tzinfo=UTC)


class WalletMachine(RuleBasedStateMachine):
    holds = Bundle("holds")

    def __init__(self) -> None:
        super().__init__()
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.users: list[User] = []
        self.balance: dict[int, int] = {}
        self.held: dict[int, int] = {}
        self.bonus_days: set[tuple[int, int]] = set()
        self.posted: dict[str, tuple[int, int, int]] = {}
        self.counter = 0

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)

    def _key(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}:{self.counter}"

    def _account(self, i: int) -> Account:
        return Account.objects.get(kind=Account.Kind.USER, user=self.users[i])

    @initialize()
    def players(self) -> None:
        for i in range(PLAYERS):
            user = player_signup(
                username=f"m{id(self)}{i}",
                display_name=f"M{id(self)}{i}",
                password="Bai-Tien-Len-42",
            )
            self.users.append(user)
            self.balance[i] = 10_000
            self.held[i] = 0

    def _expect(self, ok: bool, call) -> bool:
        try:
            call()
        except ServiceError:
            assert not ok, "refused although the model allows it"
            return False
        assert ok, "accepted although the model refuses it"
        return True

    @rule(
        a=st.integers(0, PLAYERS - 1), b=st.integers(0, PLAYERS - 1), amount=st.integers(-5, 12_000)
    )
    def transfer(self, a: int, b: int, amount: int) -> None:
        ok = a != b and amount > 0 and self.balance[a] - self.held[a] >= amount
        key = self._key("t")
        if a == b:
            return
        if self._expect(
            ok,
            lambda: services.transfer(
                source=self._account(a), destination=self._account(b), amount=amount, key=key
            ),
        ):
            self.balance[a] -= amount
            self.balance[b] += amount
            self.posted[key] = (a, b, amount)

    @rule(data=st.data())
    def repeat_a_post(self, data: st.DataObject) -> None:
        if not self.posted:
            return
        key = data.draw(st.sampled_from(sorted(self.posted)))
        a, b, amount = self.posted[key]
        same = data.draw(st.booleans())
        call = lambda: services.transfer(  # noqa: E731
            source=self._account(a),
            destination=self._account(b),
            amount=amount if same else amount + 1,
            key=key,
        )
        self._expect(same, call)

    @rule(i=st.integers(0, PLAYERS - 1), day=st.integers(0, 2))
    def claim_bonus(self, i: int, day: int) -> None:
        ok = (i, day) not in self.bonus_days
        now = DAY0 + timedelta(days=day)
        if self._expect(ok, lambda: services.daily_bonus_claim(user=self.users[i], now=now)):
            self.bonus_days.add((i, day))
            self.balance[i] += 2_000

    @rule(target=holds, i=st.integers(0, PLAYERS - 1), amount=st.integers(1, 12_000))
    def hold(self, i: int, amount: int):
        ok = self.balance[i] - self.held[i] >= amount
        created: list[Hold] = []
        if self._expect(
            ok,
            lambda: created.append(
                services.hold_create(
                    account=self._account(i),
                    amount=amount,
                    key=self._key("h"),
                    expires_at=timezone.now() + timedelta(hours=1),
                )
            ),
        ):
            self.held[i] += amount
            return (created[0], i, amount)
        return None

    @rule(entry=consumes(holds), to=st.integers(0, PLAYERS - 1), fraction=st.floats(0.01, 1))
    def pay_hold(self, entry, to: int, fraction: float) -> None:
        if entry is None:
            return
        hold, i, amount = entry
        to = to if to != i else (i + 1) % PLAYERS
        paid = max(1, int(amount * fraction))
        services.hold_post(hold=hold, destination=self._account(to), amount=paid)
        self.held[i] -= amount
        self.balance[i] -= paid
        self.balance[to] += paid

    @rule(entry=consumes(holds))
    def release_hold(self, entry) -> None:
        if entry is None:
            return
        hold, i, amount = entry
        services.hold_void(hold=hold)
        self.held[i] -= amount

    @invariant()
    def matches_model(self) -> None:
        if not self.users:
            return
        for i in range(PLAYERS):
            account = self._account(i)
            assert (account.balance, account.held) == (self.balance[i], self.held[i])


@pytest.mark.django_db
def test_wallet_services_match_the_model():
    run_state_machine_as_test(
        WalletMachine,
        settings=settings(
            max_examples=40,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
    assert_ledger_consistent()
