"""Many threads moving chips at once on PostgreSQL: the ledger invariants hold."""

import random
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, connections

from wallet import services
from wallet.errors import BonusAlreadyClaimed, IdempotencyConflict, InsufficientChips
from wallet.models import Account, LedgerTransaction
from wallet.services import player_signup

from .helpers import assert_ledger_consistent

THREADS = 8
SECONDS = 4.0
MIN_OPS = 40  # per thread, however slow the machine: the run always does real work


@pytest.mark.django_db(transaction=True)
def test_random_concurrent_operations_keep_the_ledger_exact():
    assert connection.vendor == "postgresql"
    users = [
        player_signup(username=f"c{i}", display_name=f"C{i}", password="Bai-Tien-Len-42")
        for i in range(6)
    ]
    accounts = [Account.objects.get(user=u, kind=Account.Kind.USER).pk for u in users]
    keys_posted: dict[str, int] = {}
    outcomes = {"ok": 0, "refused": 0, "duplicate": 0}
    errors: list[BaseException] = []
    lock = threading.Lock()
    deadline = time.monotonic() + SECONDS
    start_day = datetime(2026, 11, 1, 5, tzinfo=UTC)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        done = 0
        try:
            while time.monotonic() < deadline or done < MIN_OPS:
                done += 1
                op = rng.choice(["transfer", "transfer", "overdraw", "grant", "bonus", "repeat"])
                try:
                    if op in ("transfer", "overdraw"):
                        a, b = rng.sample(accounts, 2)
                        amount = rng.randint(1, 400) if op == "transfer" else 10**9
                        key = f"t:{seed}:{rng.getrandbits(40)}"
                        result = services.ledger_post(
                            key=key, kind="transfer", postings=[(a, -amount), (b, amount)]
                        )
                    elif op == "grant":
                        user = rng.choice(users)
                        key = f"g:{seed}:{rng.getrandbits(40)}"
                        result = services.chips_grant(user=user, amount=rng.randint(1, 50), key=key)
                    elif op == "bonus":
                        user = rng.choice(users)
                        day = start_day + timedelta(days=rng.randint(0, 3))
                        result = services.daily_bonus_claim(user=user, now=day)
                        key = result.transaction.idempotency_key
                    else:
                        # Every thread races on the same few keys with the same payload.
                        key = f"shared:{rng.randint(0, 9)}"
                        a, b = accounts[0], accounts[1]
                        result = services.ledger_post(
                            key=key, kind="transfer", postings=[(a, -1), (b, 1)]
                        )
                    with lock:
                        if result.created:
                            keys_posted[key] = keys_posted.get(key, 0) + 1
                            outcomes["ok"] += 1
                        else:
                            outcomes["duplicate"] += 1
                except (InsufficientChips, BonusAlreadyClaimed):
                    with lock:
                        outcomes["refused"] += 1
        except (IdempotencyConflict, Exception) as exc:  # any other error fails the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert sum(outcomes.values()) >= THREADS * MIN_OPS
    assert outcomes["ok"] > THREADS * MIN_OPS // 3
    assert outcomes["refused"] > 0
    assert outcomes["duplicate"] > 0
    assert all(count == 1 for count in keys_posted.values())
    assert LedgerTransaction.objects.filter(idempotency_key__in=keys_posted).count() == len(
        keys_posted
    )
    bonus_keys = LedgerTransaction.objects.filter(kind="daily_bonus").values_list(
        "idempotency_key", flat=True
    )
    assert len(set(bonus_keys)) == len(bonus_keys) <= 6 * 4
    assert not Account.objects.exclude(kind=Account.Kind.ISSUANCE).filter(balance__lt=0).exists()
    assert_ledger_consistent()
