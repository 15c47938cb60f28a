"""The cheap way to know who wants a push: one Redis set per notice kind
(``turn``, ``hand``, ``invite``) of the user ids that have a subscription and
that notice on. A table's after-commit work asks it in one round trip
(``wanted``) and queues a delivery task only for its members, so a move costs
nothing more for players without push.

The sets are kept by the push services (after commit) and rebuilt from the
database by Celery beat (``push.tasks.rebuild_index``, every
``PUSH_INDEX_REBUILD_S``) should Redis lose them. The set is a hint: the
delivery task reads the database again (a ban, a mute, a preference changed
since) before anything is sent."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.cache import cache

KINDS = ("turn", "hand", "invite")  # (push.notices.TURN, HAND, INVITE)


@lru_cache(maxsize=4)
def _client_for(location: str) -> Any:
    from kernel import redis_urls

    return redis_urls.client(location, socket_timeout=2, socket_connect_timeout=2)


def _client() -> Any:
    return _client_for(settings.REDIS_CACHE_URL)


def _key(kind: str) -> str:
    return str(cache.make_key(f"push:on:{kind}"))


def wanted(notices: list[tuple[str, int]]) -> list[bool]:
    """For each (kind, user id), whether that user may want it: one round trip."""
    if not notices:
        return []
    pipe = _client().pipeline(transaction=False)
    for kind, user_id in notices:
        pipe.sismember(_key(kind), user_id)
    return [bool(found) for found in pipe.execute()]


def members(kind: str) -> set[int]:
    return {int(m) for m in _client().smembers(_key(kind))}


def put(user_id: int, on: dict[str, bool]) -> None:
    """A user's entries, as the database now says (``on``: kind -> wanted)."""
    pipe = _client().pipeline(transaction=False)
    for kind, wanted_now in on.items():
        (pipe.sadd if wanted_now else pipe.srem)(_key(kind), user_id)
    pipe.execute()


def replace(kind: str, user_ids: Iterable[int]) -> None:
    """The whole set anew, atomically (a temporary key renamed over it)."""
    ids = list(user_ids)
    key, fresh = _key(kind), _key(f"{kind}:rebuild")
    pipe = _client().pipeline(transaction=True)
    pipe.delete(fresh)
    if ids:
        pipe.sadd(fresh, *ids)
        pipe.rename(fresh, key)
    else:
        pipe.delete(key)
    pipe.execute()
