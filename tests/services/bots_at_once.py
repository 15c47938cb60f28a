"""Bots asked for at once from many threads (the pool's and the caps' races)."""

from __future__ import annotations

import threading

from django.db import connections

from accounts.models import User
from games import services
from games.errors import GameError
from games.models import Table


def bots_asked_for_at_once(requests: list[tuple[Table, User, str | None]]) -> list[str]:
    """Each (table, player, client address or None) asks for a bot in a thread
    of its own (its own connection), all at the same moment: the answers
    ("seated" or the refusal's code), sorted."""
    barrier = threading.Barrier(len(requests))
    answers: list[str] = []

    def ask(board: Table, user: User, address: str | None) -> None:
        barrier.wait()
        try:
            services.table_add_bot(table_id=board.pk, user=user, address=address)
            answers.append("seated")
        except GameError as err:
            answers.append(err.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=request) for request in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(answers)
