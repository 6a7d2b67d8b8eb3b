"""Redis commands made in one turn of the event loop, sent together as one pipeline.

Through redis-py's client, each command checks a connection out of the pool (which
arms a timeout and polls the socket), sends, waits, and checks it back in: under load
that bookkeeping cost more than the command. Under gevent, many players' saves are made
in the same turn of the event loop, so here they are queued instead, and one sender
greenlet sends whatever has gathered as one redis-py pipeline (``execute`` with
``raise_on_error=False``, so that each command's error stays its own), then hands each
caller its own reply. While Redis answers one pipeline the next gathers,
as SQLite's writes of one turn share a commit (sqlite_db.Database.write).

Nothing is acknowledged early: a call returns only once Redis has answered it. Each
reply is its caller's alone, so one refused compare-and-set, or one command failing on
a key of the wrong type, fails only that caller. Without gevent (threads, the test
client) a call is an ordinary command through the client's pool.
"""

from __future__ import annotations

import hashlib
import logging
import os
from typing import Any

from webapp.server.store.sqlite.db import gevent_hub

log = logging.getLogger("webapp.server.redis_batch")
Command = tuple[Any, ...]


class _Batch:
    """The commands sharing one pipeline, their replies once answered, and their wait."""

    def __init__(self) -> None:
        from gevent.event import Event

        self.commands: list[Command] = []
        self.replies: list[Any] = []
        self._answered = Event()

    def wait(self, index: int) -> Any:
        """The reply to the command at ``index``, once Redis has answered the pipeline."""
        self._answered.wait()
        reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        return reply

    def answer(self, replies: list[Any]) -> None:
        """Hand every waiting caller its reply (or the error that failed them all)."""
        self.replies = replies
        self._answered.set()


class Pipeliner:
    """Sends the Redis commands of one event-loop turn as one pipeline (under gevent)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._pending: _Batch | None = None  # the batch gathering for the next pipeline
        self._wake: Any = None
        self._pid = 0  # the process the sender was started in
        self.pipelines = 0  # pipelines sent, for tests and benchmarks

    def call(self, *command: Any) -> Any:
        """Run one command; its reply once Redis has answered it (its error raised)."""
        if gevent_hub() is None:
            return self._client.execute_command(*command)
        batch = self._pending
        if batch is None:
            batch = self._pending = _Batch()
            self._start_sender()
            self._wake.set()
        batch.commands.append(command)
        return batch.wait(len(batch.commands) - 1)

    def _start_sender(self) -> None:
        if self._pid == os.getpid():
            return
        import gevent
        from gevent.event import Event

        self._pid, self._wake = os.getpid(), Event()
        gevent.spawn(self._sender)

    def _sender(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            while self._pending is not None:
                batch, self._pending = self._pending, None
                batch.answer(self._send(batch.commands))

    def _send(self, commands: list[Command]) -> list[Any]:
        """Every command's reply (a command's own error in its place), or for each the
        error that kept the pipeline from Redis."""
        try:
            with self._client.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                replies: list[Any] = pipe.execute(raise_on_error=False)
        except Exception as err:
            log.warning("a pipeline of %d Redis commands failed: %s", len(commands), err)
            return [err] * len(commands)
        self.pipelines += 1
        return replies

    def close(self) -> None:
        """Nothing of its own to close: pipelines take a connection of the client's pool."""


class BatchedScript:
    """A Lua script run by EVALSHA through a ``Pipeliner``; loaded again if Redis lost it."""

    def __init__(self, pipeliner: Pipeliner, source: str) -> None:
        self._pipeliner = pipeliner
        self._source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __call__(self, keys: list[str], args: list[Any]) -> Any:
        """The script's reply for ``keys`` and ``args``."""
        import redis

        command = ("EVALSHA", self.sha, len(keys), *keys, *args)
        try:
            return self._pipeliner.call(*command)
        except redis.exceptions.NoScriptError:  # a restarted or flushed Redis
            self._pipeliner.call("SCRIPT", "LOAD", self._source)
            return self._pipeliner.call(*command)
