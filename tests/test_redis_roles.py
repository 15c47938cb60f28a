"""Issue 33 item 4: Redis by role (channel layer, broker, cache and limits),
each on a server or a Sentinel-watched primary (kernel/redis_urls.py), and
Celery workers that outlive a Redis restart."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings

from bench import sentinel
from bench.sentinel import SentinelGroup
from bench.stack import wait_until
from kernel import redis_urls

from . import processes

ROOT = Path(__file__).resolve().parent.parent


# -- the URL ----------------------------------------------------------------------


def test_a_sentinel_url_names_its_sentinels_primary_and_database():
    address = redis_urls.parse(
        "redis+sentinel://app:s%40cret@10.0.0.1:26379,10.0.0.2:26380,[::1]:26381/vip/4"
        "?sentinel_password=sp"
    )
    assert address.sentinels == (("10.0.0.1", 26379), ("10.0.0.2", 26380), ("::1", 26381))
    assert (address.master, address.db) == ("vip", 4)
    assert (address.username, address.password, address.sentinel_password) == (
        "app",
        "s@cret",
        "sp",
    )
    bare = redis_urls.parse("redis+sentinel://h:1/vip")
    assert (bare.db, bare.username, bare.password, bare.sentinel_password) == (0, None, None, None)


@pytest.mark.parametrize(
    "url",
    [
        "redis://h:1/0",
        "redis+sentinel://h:1",  # no primary named
        "redis+sentinel://h:1/vip/x",
        "redis+sentinel://h:1/vip/0/1",
        "redis+sentinel://h/vip",  # no port
        "redis+sentinel://h:1,/vip",
    ],
)
def test_a_malformed_sentinel_url_is_refused(url):
    with pytest.raises(ValueError, match="sentinel"):
        redis_urls.parse(url)


def test_each_library_gets_the_sentinel_form_it_takes():
    url = "redis+sentinel://:pw@a:1,b:2/vip/3?sentinel_password=sp"
    host = redis_urls.channel_host(url, socket_timeout=15, socket_connect_timeout=4)
    assert host["sentinels"] == [["a", 1], ["b", 2]]
    assert host["master_name"] == "vip"
    assert host["sentinel_kwargs"] == {
        "socket_timeout": 4,
        "socket_connect_timeout": 4,
        "password": "sp",
    }
    assert (host["db"], host["password"], host["socket_timeout"]) == (3, "pw", 15)

    broker, options = redis_urls.celery_broker(url, 5.0)
    assert broker == "sentinel://:pw@a:1/3;sentinel://:pw@b:2/3"
    assert options["master_name"] == "vip"
    assert options["sentinel_kwargs"]["socket_connect_timeout"] == 5.0

    assert redis_urls.celery_broker("unix:///run/r.sock", 5.0) == ("redis+socket:///run/r.sock", {})
    assert redis_urls.celery_broker("redis://h:1/2", 5.0) == ("redis://h:1/2", {})
    assert redis_urls.channel_host("redis://h:1/2", health_check_interval=30) == {
        "address": "redis://h:1/2",
        "health_check_interval": 30,
    }
    assert redis_urls.pool_class(url) == "kernel.redis_urls.SentinelPool"
    assert redis_urls.pool_class("redis://h:1/2") == "redis.ConnectionPool"


# -- settings ---------------------------------------------------------------------


def settings_with(**env: str) -> dict[str, Any]:
    """The Redis settings a process started with ``env`` reads."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'cache': s.CACHES['default'], "
        "'channels': s.CHANNEL_LAYERS['default']['CONFIG']['hosts'], "
        "'broker': s.CELERY_BROKER_URL, 'transport': s.CELERY_BROKER_TRANSPORT_OPTIONS, "
        "'roles': [s.REDIS_CHANNELS_URL, s.REDIS_BROKER_URL, s.REDIS_CACHE_URL]}, default=str))"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith("REDIS_")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "vipgame.settings", "DEBUG": "1", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_one_redis_url_serves_every_role():
    found = settings_with(REDIS_URL="redis://127.0.0.1:6399/5")
    assert found["roles"] == ["redis://127.0.0.1:6399/5"] * 3
    assert found["cache"]["LOCATION"] == ["redis://127.0.0.1:6399/5"]
    assert found["channels"][0]["address"] == "redis://127.0.0.1:6399/5"
    assert found["broker"] == "redis://127.0.0.1:6399/5"
    assert "master_name" not in found["transport"]


def test_each_role_can_have_its_own_redis_and_sentinels():
    found = settings_with(
        REDIS_URL="redis://127.0.0.1:6399/5",
        REDIS_CHANNELS_URL="redis://10.0.0.9:6379/0",
        REDIS_BROKER_URL="redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/broker/1",
        REDIS_CACHE_URL="redis+sentinel://10.0.0.1:26379/cache/2",
    )
    assert found["channels"][0]["address"] == "redis://10.0.0.9:6379/0"
    assert found["broker"] == "sentinel://10.0.0.1:26379/1;sentinel://10.0.0.2:26379/1"
    assert found["transport"]["master_name"] == "broker"
    # Time-outs on every connection: to the broker, and to its sentinels.
    assert found["transport"]["socket_timeout"] > 1  # (kombu's blocking pop: 1 s)
    assert found["transport"]["socket_connect_timeout"] == 5.0
    assert found["transport"]["sentinel_kwargs"]["socket_timeout"] == 5.0
    assert found["cache"]["LOCATION"] == ["redis+sentinel://10.0.0.1:26379/cache/2"]
    assert found["cache"]["OPTIONS"]["pool_class"] == "kernel.redis_urls.SentinelPool"
    assert found["cache"]["OPTIONS"]["socket_timeout"] == 5.0


# -- a real fail-over -------------------------------------------------------------


@pytest.mark.slow
def test_every_client_follows_a_failover(tmp_path):
    """The cache, our own clients (limits), the channel layer and kombu's
    broker connection, on one Sentinel URL each, keep working once the
    primary is killed and the replica promoted."""
    from channels_redis.utils import create_pool
    from django.core.cache.backends.redis import RedisCache
    from kombu import Connection

    from kernel.channel_layer import PipelinedPubSubChannelLayer

    with SentinelGroup(tmp_path) as group:
        cache = RedisCache(
            [group.url(2)],
            {"OPTIONS": {"pool_class": redis_urls.pool_class(group.url(2)), "socket_timeout": 2}},
        )
        limits = redis_urls.client(group.url(2), socket_timeout=2, socket_connect_timeout=2)
        broker_url, options = redis_urls.celery_broker(group.url(1), 2.0)
        host = redis_urls.channel_host(group.url(0), socket_timeout=5, socket_connect_timeout=2)
        assert "SentinelConnectionPool" in type(create_pool(host)).__name__

        def broker_round_trip(body: str) -> Any:
            with Connection(broker_url, transport_options=options) as conn:
                queue = conn.SimpleQueue("failover-test")
                queue.put(body)
                got = queue.get(timeout=5)
                got.ack()
                queue.close()
                return got.payload

        async def layer_round_trip(layer: PipelinedPubSubChannelLayer, text: str) -> Any:
            channel = await layer.new_channel()
            await layer.group_add("failover", channel)
            await layer.group_send_many([("failover", {"type": "x", "text": text})])
            received = await asyncio.wait_for(layer.receive(channel), 5)
            await layer.group_discard("failover", channel)
            return received["text"]

        async def scenario() -> tuple[str, str]:
            layer = PipelinedPubSubChannelLayer(hosts=[host], prefix="failover")
            before = await layer_round_trip(layer, "before")
            group.wait_for_failover(group.kill_primary(), timeout=20)
            after = None
            for _ in range(40):  # (a publication in the gap fails: best effort)
                try:
                    after = await layer_round_trip(layer, "after")
                    break
                except (redis.RedisError, OSError, TimeoutError):
                    await asyncio.sleep(0.5)
            await layer.flush()
            return before, str(after)

        cache.set("k", "before")
        limits.set("limit", "1")
        assert broker_round_trip("before") == "before"
        assert asyncio.run(scenario()) == ("before", "after")
        # (the promoted replica had them: nothing written before the kill is lost here)
        assert cache.get("k") == "before"
        assert limits.get("limit") == b"1"
        cache.set("k", "after")
        assert cache.get("k") == "after"
        assert broker_round_trip("after") == "after"


# -- workers outlive Redis --------------------------------------------------------


def redis_server(port: int | None, socket: Path | None, log: Path) -> subprocess.Popen[bytes]:
    where = ["--port", str(port), "--bind", "127.0.0.1"] if port else ["--port", "0"]
    if socket:
        where += ["--unixsocket", str(socket)]
    with log.open("ab") as out:
        server = subprocess.Popen(
            [sentinel.redis_server(), *where, "--save", "", "--appendonly", "no"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    client = (
        redis.Redis(port=port, socket_timeout=1)
        if port
        else redis.Redis(unix_socket_path=str(socket), socket_timeout=1)
    )
    assert wait_until(lambda: _answers(client), 10), log.read_text()
    return server


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("over", ["tcp", "unix"])
def test_the_worker_outlives_a_redis_restart(tmp_path, over):
    """Redis is killed and comes back empty 3.2 s later, twice (the operator's
    incident): the worker with its beat neither exits nor stops working, it
    runs the sweeper again (its heartbeat, in the restarted Redis, is new)."""
    port = processes.free_port() if over == "tcp" else None
    socket = tmp_path / "redis.sock" if over == "unix" else None
    url = f"redis://127.0.0.1:{port}/0" if port else f"unix://{socket}"
    prefix = f"outlive-{over}-{os.getpid()}"
    env = processes.process_env(tmp_path, REDIS_URL=url, CACHE_PREFIX=prefix, CELERY_QUEUE=prefix)
    for name in ("REDIS_CHANNELS_URL", "REDIS_BROKER_URL", "REDIS_CACHE_URL"):
        env.pop(name, None)
    key = f"{prefix}:ops:sweeper_last_run"  # (kernel/ops/heartbeat.py)
    client = (
        redis.Redis(port=port, socket_timeout=1)
        if port
        else redis.Redis(unix_socket_path=str(socket), socket_timeout=1)
    )

    def heartbeat_since(moment: float) -> bool:
        try:
            raw = client.get(key)
        except redis.RedisError:
            return False
        return raw is not None and float(raw) > moment

    server = redis_server(port, socket, tmp_path / "redis.log")
    log = tmp_path / "worker.log"
    try:
        with processes.running(processes.celery_worker(tmp_path, beat=True), env, log) as worker:
            assert wait_until(lambda: heartbeat_since(0), 60), log.read_text(errors="replace")
            for _ in range(2):
                server.kill()
                server.wait()
                time.sleep(3.2)
                server = redis_server(port, socket, tmp_path / "redis.log")
                back = time.time()
                assert wait_until(lambda back=back: heartbeat_since(back), 30), log.read_text(
                    errors="replace"
                )[-4000:]
                assert worker.poll() is None, log.read_text(errors="replace")[-4000:]
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_worker_leaves_a_hung_primary_for_the_promoted_replica(tmp_path):
    """The primary hangs (``SIGSTOP``: its TCP connections stay open, nothing
    is answered) and the sentinels promote the replica. Only time-outs can
    tell the worker and its beat that their connections are dead: with them
    (the broker's socket time-out and health checks), the sweeper runs again
    on the new primary within ``HUNG_PRIMARY_BOUND_S``."""
    prefix = f"hung-{os.getpid()}"
    with SentinelGroup(tmp_path) as group:
        env = processes.process_env(
            tmp_path,
            REDIS_URL=group.url(0),
            REDIS_CHANNELS_URL=group.url(0),
            REDIS_BROKER_URL=group.url(1),
            REDIS_CACHE_URL=group.url(2),
            CACHE_PREFIX=prefix,
            CELERY_QUEUE=prefix,
        )
        cache = redis_urls.client(group.url(2), socket_timeout=1, socket_connect_timeout=1)
        key = f"{prefix}:ops:sweeper_last_run"

        def heartbeat_since(moment: float) -> bool:
            try:
                raw = cache.get(key)
            except redis.RedisError:
                return False
            return raw is not None and float(raw) > moment

        log = tmp_path / "worker.log"
        with processes.running(processes.celery_worker(tmp_path, beat=True), env, log) as worker:
            assert wait_until(lambda: heartbeat_since(0), 60), log.read_text(errors="replace")
            hung = group.freeze_primary()
            frozen_at = time.time()
            assert group.wait_for_failover(hung, timeout=30)
            resumed = wait_until(lambda: heartbeat_since(frozen_at), HUNG_PRIMARY_BOUND_S)
            assert resumed, log.read_text(errors="replace")[-4000:]
            assert worker.poll() is None
            print(f"sweeper ran again {time.time() - frozen_at:.1f} s after the primary hung")


# The broker's reads time out after REDIS_SOCKET_TIMEOUT_S (5 s), its blocking
# pops once overdue by 5 s: the worker's consumer, its start-up steps (mingle)
# and beat's publisher each meet a hung connection at most once, then the
# next run of the sweeper (2 s) and a loaded machine.
HUNG_PRIMARY_BOUND_S = 45.0


def test_a_worker_holding_unacknowledged_tasks_survives_its_transport_detached():
    """The state a worker was in when the redis-failover drill (tests/hostdrill.py)
    killed the Redis primary under it: Celery's consumer had ``collect()``ed
    the broken connection, which detaches its transport, and then closed the
    channel, which still held a message it had not acknowledged ("Restoring
    7 unacknowledged message(s)"); later the task finished and its message
    was acknowledged on that channel. Each raised AttributeError and the
    worker exited; now each is a connection error, which kombu's close and
    Celery's acknowledgement handle (vipgame/celery.py), and the message
    stays in the broker's ``unacked`` hash for ``restore_visible``."""
    import logging

    from kombu import Connection, Exchange, Queue

    import vipgame.celery  # noqa: F401  (its patch of kombu's Redis channel)

    name = f"unacked-{secrets.token_hex(4)}"
    queue = Queue(name, Exchange(name), name)
    held = []
    raw = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    with Connection(settings.CELERY_BROKER_URL) as connection:
        with connection.Producer() as producer:
            producer.publish({"n": 1}, exchange=queue.exchange, routing_key=name, declare=[queue])
        consumer = connection.Consumer(queue, callbacks=[lambda _, message: held.append(message)])
        consumer.consume()
        connection.drain_events(timeout=5)
        channel: Any = connection.default_channel
        assert held
        assert channel.qos._delivered  # delivered, not acknowledged
        tag = held[0].delivery_tag
        unacked, index = channel.unacked_key, channel.unacked_index_key
        connection.transport.client = None  # what collect() leaves
        try:
            # kombu's close of the channel and Celery's acknowledgement of the
            # finished task (with the consumer's connection errors): no raise
            connection.maybe_close_channel(channel)
            held[0].ack_log_error(logging.getLogger("test"), connection.connection_errors)
            assert raw.hexists(unacked, tag)
        finally:
            raw.hdel(unacked, tag)
            raw.zrem(index, tag)
            raw.delete(name)
