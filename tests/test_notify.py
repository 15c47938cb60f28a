"""``vipgame.notify.send`` from a server's database thread while the server
stops: its event loop has ended but is not closed (Daphne after SIGTERM, while
a socket's last service commits)."""

import asyncio
import os
import threading

from asgiref.sync import SyncToAsync

from vipgame import notify


def _send_from_a_server_thread(loop: asyncio.AbstractEventLoop) -> list[bool]:
    """Send as a service in a thread that ``sync_to_async`` called from ``loop``
    does; what ``send`` returned, or nothing if it has not returned in 5 s."""
    returned: list[bool] = []

    def service() -> None:
        SyncToAsync.threadlocal.main_event_loop = loop
        SyncToAsync.threadlocal.main_event_loop_pid = os.getpid()
        returned.append(notify.send([("user.1", {"type": "wallet.balance", "balance": 1})]))

    thread = threading.Thread(target=service, daemon=True)
    thread.start()
    thread.join(timeout=5)
    return returned


def test_a_send_while_the_server_stops_returns_at_once():
    """Handed to the stopped loop, the send waited for ever, and so did the
    process's exit (it joins its database threads) until it was killed."""
    stopped = asyncio.new_event_loop()  # not running, not closed
    try:
        assert _send_from_a_server_thread(stopped) == [False]
    finally:
        stopped.close()


def test_a_send_from_a_thread_of_a_loop_long_closed_still_goes_out():
    """A closed loop is not a stopping server (e.g. an ``asyncio.run`` that has
    ended): the send goes out on a loop of its own, as before."""
    closed = asyncio.new_event_loop()
    closed.close()
    assert _send_from_a_server_thread(closed) == [True]
