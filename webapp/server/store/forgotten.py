"""Players deleted by "Delete everything": their ids, kept so that nothing acts as them again.

A socket opened before the deletion, or a cookie kept from before it, still names the
deleted id; every event, connection and page checks this list first, so none of them
can store a match, a seat or a game under that id again (a page gives a new player).
An id is kept as long as its cookie could still be sent (``IDLE_DAYS``: a cookie unused
that long is refused anyway), and at most ``MAX_FORGOTTEN_PLAYERS`` ids are kept, the
oldest dropped first, so the list stays bounded whatever the rate of deletions.

One process (SQLite) keeps them in a table of the matches' file, so a restart does not
forget them; several (Redis) in one sorted set scored by when each expires.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from webapp.server.store.interface import StorageFull
from webapp.server.store.redis.batch import Pipeliner
from webapp.server.store.redis.client import connect, out_of_memory
from webapp.server.store.sqlite.db import DATABASE_FILE, open_database

Clock = Callable[[], float]
KEY = "tictactoe:forgotten"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS forgotten_players (player TEXT PRIMARY KEY, until REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS forgotten_by_until ON forgotten_players (until)",
)
log = logging.getLogger("webapp.server.forgotten")


class Forgotten(Protocol):
    """The ids of deleted players, each for a while."""

    def add(self, player: str) -> None:
        """Keep ``player`` as deleted from now on."""

    def holds(self, player: str) -> bool:
        """Whether ``player`` was deleted."""


class SQLiteForgotten:
    """Deleted players in the matches' SQLite file (one process)."""

    def __init__(
        self, data_dir: str | Path, *, keep_seconds: float, cap: int, clock: Clock
    ) -> None:
        self.keep, self.cap, self.clock = keep_seconds, cap, clock
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        # The table's copy, which every event reads: changed by ``add``, and read again
        # whenever another connection (another process: a tool, a test) has committed.
        self._until: dict[str, float] = {}
        self._version = self._read()

    def _data_version(self) -> int:
        """SQLite's count of commits by other connections (``PRAGMA data_version``),
        asked without waiting for this turn's writes: it does not count ours."""
        return int(self._db.database.connection.execute("PRAGMA data_version").fetchone()[0])

    def _read(self) -> int:
        """Read the table into the copy; the data version it was read at."""
        version = self._data_version()
        rows = self._db.database.connection.execute(
            "SELECT player, until FROM forgotten_players WHERE until > ?", (self.clock(),)
        ).fetchall()
        self._until = {str(player): float(until) for player, until in rows}
        return version

    def add(self, player: str) -> None:
        """Keep ``player`` as deleted from now on (the oldest past the cap are dropped)."""
        try:
            until = self._db.write(lambda: self._insert(player))
        except StorageFull:  # the rows are deleted all the same; the page's cookie is cleared
            log.warning("a deleted player's id could not be kept: the data is at its ceiling")
            return
        now = self.clock()
        kept = {one: end for one, end in self._until.items() if end > now}
        kept[player] = until
        if len(kept) > self.cap:  # as the table: the latest ``cap`` kept
            latest = sorted(kept.items(), key=lambda item: item[1])[-self.cap :]
            kept = dict(latest)
        self._until = kept

    def _insert(self, player: str) -> float:
        now = self.clock()
        self._db.execute("DELETE FROM forgotten_players WHERE until <= ?", (now,))
        self._db.execute(
            "INSERT OR REPLACE INTO forgotten_players (player, until) VALUES (?, ?)",
            (player, now + self.keep),
        )
        self._db.execute(
            "DELETE FROM forgotten_players WHERE rowid IN (SELECT rowid FROM forgotten_players"
            " ORDER BY until DESC LIMIT -1 OFFSET ?)",
            (self.cap,),
        )
        return now + self.keep

    def holds(self, player: str) -> bool:
        """Whether ``player`` was deleted (from the table's copy: on every event one
        pragma, and no wait for the turn's writes to commit)."""
        if self._data_version() != self._version:
            self._version = self._read()
        until = self._until.get(player)
        return until is not None and until > self.clock()

    def close(self) -> None:
        """This list is done with the database."""
        self._db.close()


class RedisForgotten:
    """Deleted players in Redis, shared by every process: one sorted set, scored by expiry."""

    def __init__(self, url: str, *, keep_seconds: float, cap: int, clock: Clock) -> None:
        self.redis = connect(url)
        # Every event asks: the questions of one turn of the event loop share a pipeline.
        self._pipeliner = Pipeliner(self.redis)
        self.keep, self.cap, self.clock = keep_seconds, cap, clock

    def add(self, player: str) -> None:
        """Keep ``player`` as deleted from now on (the oldest past the cap are dropped)."""
        now = self.clock()
        try:
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(KEY, "-inf", now)
                pipe.zadd(KEY, {player: now + self.keep})
                pipe.zremrangebyrank(KEY, 0, -self.cap - 1)
                pipe.expire(KEY, int(self.keep) + 1)
                pipe.execute()
        except out_of_memory():  # at Redis's maxmemory: the rows are deleted all the same
            log.warning("a deleted player's id could not be kept: Redis is at its maxmemory")

    def holds(self, player: str) -> bool:
        """Whether ``player`` was deleted."""
        until = self._pipeliner.call("ZSCORE", KEY, player)
        return until is not None and float(until) > self.clock()


def open_forgotten(
    config: Mapping[str, Any], *, clock: Clock = time.time
) -> SQLiteForgotten | RedisForgotten:
    """The deleted players' list where the matches are: Redis when ``REDIS_URL`` is set."""
    keep = float(config["IDLE_DAYS"]) * 86400
    cap = int(config["MAX_FORGOTTEN_PLAYERS"])
    if config["REDIS_URL"]:
        return RedisForgotten(config["REDIS_URL"], keep_seconds=keep, cap=cap, clock=clock)
    return SQLiteForgotten(config["DATA_DIR"], keep_seconds=keep, cap=cap, clock=clock)
