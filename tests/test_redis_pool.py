"""Many players waiting on Redis at once: the pool waits for a connection, never fails."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from webapp.server.store.redis.client import connect
from webapp.server.store.redis.matches import RedisStore

WAITING = 150  # more than redis-py's default pool of 100 connections


def all_at_once(load: Callable[[int], Any]) -> list[BaseException]:
    """Run ``load`` in WAITING threads while Redis holds every command back for a moment;
    the errors they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(WAITING)

    def run(index: int) -> None:
        start.wait()
        try:
            load(index)
        except Exception as err:
            errors.append(err)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(WAITING)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    return errors


def pause(url: str) -> None:
    """Hold every other client's commands for 0.5 s, so that each waits on its socket."""
    redis.Redis.from_url(url).execute_command("CLIENT", "PAUSE", 500, "ALL")


def test_the_default_pool_fails_where_ours_waits(redis_url: str) -> None:
    plain = redis.Redis.from_url(redis_url)
    plain.ping()
    pause(redis_url)
    failed = all_at_once(lambda i: plain.get(f"k{i}"))
    assert any("connection" in str(err).lower() for err in failed), failed[:3]

    ours = connect(redis_url)
    ours.ping()
    pause(redis_url)
    assert all_at_once(lambda i: ours.get(f"k{i}")) == []


def test_a_store_serves_many_waiting_players(redis_url: str) -> None:
    store = RedisStore(redis_url, idle_seconds=60)
    pause(redis_url)
    assert all_at_once(lambda i: store.load(f"p{i}")) == []
    store.close()


def test_the_pool_waits_rather_than_fails(redis_url: str) -> None:
    pool = connect(redis_url).connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool) and pool.max_connections >= 1000


def test_the_message_queue_pool_is_as_large(redis_url: str, tmp_path: Any) -> None:
    from webapp.server.app import create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "REDIS_URL": redis_url})
    manager = app.extensions["socketio"].server.manager
    assert manager.redis_options["max_connections"] >= 1000


def test_the_message_queue_publishes_every_emit_in_order(redis_url: str, tmp_path: Any) -> None:
    from webapp.server.app import CHANNEL, create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "REDIS_URL": redis_url})
    manager = app.extensions["socketio"].server.manager
    listener = redis.Redis.from_url(redis_url).pubsub(ignore_subscribe_messages=True)
    listener.subscribe(CHANNEL)
    assert listener.get_message(timeout=1) is None  # subscribed, nothing yet
    count = 300
    for n in range(count):
        manager.emit("state", {"n": n}, to="some-room", namespace="/")
    received: list[int] = []
    deadline = time.monotonic() + 10
    while len(received) < count and time.monotonic() < deadline:
        message = listener.get_message(timeout=1)
        if message is not None:
            received.append(json.loads(message["data"])["data"][0]["n"])
    # Every emit reached the other processes, in the order emitted.
    assert received == list(range(count))
    listener.close()
