"""Socket.IO's message queue on Redis, publishing in batches from one greenlet.

python-socketio's ``RedisManager`` delivers an emit to this process's own sockets at
once, then publishes it for the other processes: one Redis round trip, waited for, in
every emit. Here the emit is handed to a publisher greenlet instead, which sends
whatever has gathered meanwhile as one pipeline. Messages still leave in the order they
were emitted (one publisher, one connection: Redis keeps that order for subscribers),
and a failed publish is retried once and logged, as python-socketio does.

python-socketio also walks every emitted value looking for bytes to send apart
(``Packet.data_is_binary``); this server only ever emits JSON, so that walk is skipped.

Every process also hears its own messages back from Redis, and python-socketio decodes
each one before it sees that it is its own and drops it. Emits are published here with
the sender's id first, so that this process drops its own by their first bytes.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from socketio import RedisManager, pubsub_manager
from socketio.packet import Packet

from .codec import Json

log = logging.getLogger(__name__)
BATCH = 256  # the most messages in one pipeline


class _TextOnly(Packet):  # type: ignore[misc]
    """What ``PubSubManager.emit`` asks of packets: this server's values are never binary."""

    @staticmethod
    def data_is_binary(data: object) -> bool:
        return False


pubsub_manager.Packet = _TextOnly  # the name PubSubManager.emit reads at call time


class BatchingRedisManager(RedisManager):  # type: ignore[misc]
    """``RedisManager`` whose publishes leave in pipelines from one greenlet."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, json=Json, **options)
        self._outbox: deque[str] = deque()
        self._wake: Any = None
        self.batches = 0  # pipelines sent, for tests and benchmarks

    def _publish(self, data: Any) -> None:
        if data.get("method") == "emit":  # sender first, then the method: see _listen
            data = {"host_id": data["host_id"], "method": "emit", **data}
        self._outbox.append(self.json.dumps(data))
        if self._wake is None:
            self._wake = self.server.eio.create_event()
            self.server.start_background_task(self._publisher)
        self._wake.set()

    def _listen(self) -> Any:
        own = self.json.dumps({"host_id": self.host_id, "method": "emit"})[:-1].encode()
        for message in super()._listen():
            if not (isinstance(message, bytes) and message.startswith(own)):
                yield message

    def _publisher(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(BATCH, len(self._outbox)))]
                self._send(batch)

    def _send(self, batch: list[str]) -> None:
        for retries_left in (1, 0):
            try:
                if not getattr(self, "connected", False):
                    self._redis_connect()
                with self.redis.pipeline(transaction=False) as pipe:
                    for message in batch:
                        pipe.publish(self.channel, message)
                    pipe.execute()
                self.batches += 1
                return
            except Exception as err:  # as python-socketio's own publish: log, retry once
                self.connected = False
                if not retries_left:
                    log.error("could not publish %d messages to Redis: %s", len(batch), err)
