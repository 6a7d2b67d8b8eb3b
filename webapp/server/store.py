"""Where matches live: one small interface, SQLite by default.

Each player has one row holding the match as a versioned record (webapp/game/records.py,
which upgrades rows written by earlier releases as they are loaded) and its version. Writes are
compare-and-set on that version, so two requests racing on one match (two tabs,
or two server processes) cannot both win: the loser re-reads and re-validates.

SQLite stays the only source of truth: every load reads the row. Kept in memory is
only the parsed form of the rows seen lately, reused while the row's text is exactly
the text it was parsed from, which saves rebuilding the match on every event.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, cast

import orjson

from ..game.match import Match
from ..game.records import from_record, to_record

Update = Callable[[Match | None], Match]
DATABASE_FILE = "matches.sqlite3"
PARSED_ROWS = 2048  # parsed matches kept in memory, least recently used dropped first


class Store(Protocol):
    """Storage for one match per player."""

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none."""

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds``; return how many."""

    def close(self) -> None:
        """Release the store's resources."""


class Conflict(RuntimeError):
    """A write kept losing races; the request should be retried later."""


def update(
    store: Store, player: str, change: Update, *, attempts: int = 5, known: Match | None = None
) -> Match:
    """Apply ``change`` to the stored match and save it, retrying when another writer won.

    ``known`` is the match as this process just saved it: the first attempt starts from
    it instead of reading it back; if anyone wrote since, compare-and-set refuses the
    write and the next attempt reads the row.
    """
    for attempt in range(attempts):
        current = known if known is not None and attempt == 0 else store.load(player)
        changed = change(current)
        if changed is current:
            return changed
        if store.save(player, changed, expected=current.version if current else None):
            return changed
    raise Conflict(f"could not update the match of {player} after {attempts} attempts")


class SQLiteStore:
    """Matches in one SQLite file in WAL mode; safe for threads and greenlets."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        self._parsed: OrderedDict[str, tuple[str, Match]] = OrderedDict()
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        # WAL with synchronous=NORMAL keeps every committed write across a crash of the
        # process (only a power cut can lose the last ones) and keeps writes cheap.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS matches ("
            " player TEXT PRIMARY KEY, version INTEGER NOT NULL,"
            " data TEXT NOT NULL, updated REAL NOT NULL)"
        )

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none."""
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM matches WHERE player = ?", (player,)
            ).fetchone()
            if row is None:
                return None
            parsed = self._parsed.get(player)
            if parsed is not None and parsed[0] == row[0]:
                self._parsed.move_to_end(player)
                return parsed[1]
        match = from_record(orjson.loads(row[0]))
        self._remember(player, row[0], match)
        return match

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""
        data = orjson.dumps(to_record(match)).decode()
        now = time.time()
        with self._lock:
            if expected is None:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO matches (player, version, data, updated)"
                    " VALUES (?, ?, ?, ?)",
                    (player, match.version, data, now),
                )
            else:
                cursor = self._db.execute(
                    "UPDATE matches SET version = ?, data = ?, updated = ?"
                    " WHERE player = ? AND version = ?",
                    (match.version, data, now, player, expected),
                )
        saved = cursor.rowcount == 1
        if saved:
            self._remember(player, data, match)
        return saved

    def _remember(self, player: str, data: str, match: Match) -> None:
        with self._lock:
            self._parsed[player] = (data, match)
            self._parsed.move_to_end(player)
            while len(self._parsed) > PARSED_ROWS:
                self._parsed.popitem(last=False)

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds``; return how many."""
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM matches WHERE updated < ?", (time.time() - idle_seconds,)
            )
            self._parsed.clear()
        return cursor.rowcount

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
            self._parsed.clear()


# Compare-and-set in one round trip: write only if the stored version is the expected
# one ("" means the player must have no match yet), and refresh the idle expiry.
_SAVE_SCRIPT = """
local stored = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


class RedisStore:
    """Matches in Redis, one hash per player with an idle expiry; shared by processes."""

    def __init__(self, url: str, *, idle_seconds: float, prefix: str = "tictactoe:match:") -> None:
        import redis

        self._redis = redis.Redis.from_url(url)
        self._save = self._redis.register_script(_SAVE_SCRIPT)
        self._ttl = max(1, int(idle_seconds))
        self._prefix = prefix

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none."""
        data = cast(bytes | None, self._redis.hget(self._prefix + player, "data"))
        return from_record(orjson.loads(data)) if data else None

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""
        data = orjson.dumps(to_record(match)).decode()
        stored = self._save(
            keys=[self._prefix + player],
            args=["" if expected is None else expected, match.version, data, self._ttl],
        )
        return bool(stored)

    def prune(self, idle_seconds: float) -> int:
        """Nothing to do: Redis expires idle matches by itself."""
        return 0

    def close(self) -> None:
        """Close the connection pool."""
        self._redis.close()


def open_store(config: Mapping[str, Any]) -> Store:
    """Redis when ``REDIS_URL`` is set (several processes), else SQLite in the data dir."""
    idle_seconds = float(config["IDLE_DAYS"]) * 86400
    if config["REDIS_URL"]:
        return RedisStore(config["REDIS_URL"], idle_seconds=idle_seconds)
    store = SQLiteStore(Path(config["DATA_DIR"]) / DATABASE_FILE)
    store.prune(idle_seconds)
    return store
