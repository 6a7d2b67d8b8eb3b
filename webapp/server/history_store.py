"""Where finished games live: apart from the live match, written once when a game ends.

Each player keeps their newest ``TICTACTOE_HISTORY_PER_PLAYER`` games and a set of
lifetime counters (webapp/game/history.py). A game is stored under a key of its own
(its server seed's commitment), so the process whose compare-and-set write ended the
game stores it, and a second attempt, or the same game ended again, changes nothing. Each game also
has a random id, which its share link names. A player's history goes with them when
they are idle for ``TICTACTOE_IDLE_DAYS``, or when they ask for it to be deleted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol, cast

import orjson

from ..game.history import Entry, counted, games_counted
from .redis_batch import BatchedScript, Pipeliner
from .redis_client import connect
from .sqlite_store import DATABASE_FILE, open_database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS games ("
    " player TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL UNIQUE,"
    " ended REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (player, key))",
    "CREATE INDEX IF NOT EXISTS games_by_player ON games (player, ended)",
    "CREATE TABLE IF NOT EXISTS game_totals ("
    " player TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
)


class HistoryStore(Protocol):
    """Finished games and lifetime counters, by player."""

    def add(self, player: str, key: str, entry: Entry) -> bool:
        """Store a finished game once (False if ``key`` is stored already), count it,
        and drop the player's oldest games past the cap."""

    def games(self, player: str) -> list[Entry]:
        """The player's stored games, newest first."""

    def game(self, game_id: str) -> tuple[str, Entry] | None:
        """A game by its share id, with its player; None if unknown."""

    def counters(self, player: str) -> dict[str, int]:
        """The player's lifetime counters."""

    def forget(self, player: str) -> int:
        """Delete everything stored about the player's games; return how many games."""

    def close(self) -> None:
        """Release the store's resources."""


class SQLiteHistory:
    """Finished games in the matches' SQLite file (one process)."""

    def __init__(self, data_dir: str | Path, *, per_player: int, idle_seconds: float) -> None:
        self.per_player, self.idle = per_player, idle_seconds
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        self._lock = self._db.lock

    def add(self, player: str, key: str, entry: Entry) -> bool:
        """Store a finished game once, count it, and drop the oldest past the cap."""
        return self._db.write(lambda: self._insert(player, key, entry))

    def _insert(self, player: str, key: str, entry: Entry) -> bool:
        now = time.time()
        row = (player, key, entry["id"], entry["ended"], orjson.dumps(entry).decode())
        inserted = self._db.execute(
            "INSERT OR IGNORE INTO games (player, key, id, ended, data) VALUES (?, ?, ?, ?, ?)",
            row,
        ).rowcount
        if not inserted:
            return False
        totals = counted(self._counters(player), entry)
        self._db.execute(
            "INSERT OR REPLACE INTO game_totals (player, data, updated) VALUES (?, ?, ?)",
            (player, orjson.dumps(totals).decode(), now),
        )
        if games_counted(totals) > self.per_player:  # else fewer are stored: none to drop
            self._db.execute(
                # Past the newest per_player, read off the (player, ended) index from the
                # top: one short scan, not a set of kept keys.
                "DELETE FROM games WHERE rowid IN (SELECT rowid FROM games WHERE player = ?"
                " ORDER BY ended DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (player, self.per_player),
            )
        return True

    def _counters(self, player: str) -> dict[str, int]:
        row = self._db.execute(
            "SELECT data FROM game_totals WHERE player = ?", (player,)
        ).fetchone()
        return {} if row is None else cast(dict[str, int], orjson.loads(row[0]))

    def games(self, player: str) -> list[Entry]:
        """The player's stored games, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT data FROM games WHERE player = ? ORDER BY ended DESC, rowid DESC",
                (player,),
            ).fetchall()
        return [orjson.loads(row[0]) for row in rows]

    def game(self, game_id: str) -> tuple[str, Entry] | None:
        """A game by its share id, with its player; None if unknown."""
        with self._lock:
            row = self._db.execute(
                "SELECT player, data FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return None if row is None else (str(row[0]), orjson.loads(row[1]))

    def counters(self, player: str) -> dict[str, int]:
        """The player's lifetime counters."""
        with self._lock:
            return self._counters(player)

    def forget(self, player: str) -> int:
        """Delete the player's games and counters; return how many games."""
        with self._lock:
            gone = self._db.execute("DELETE FROM games WHERE player = ?", (player,)).rowcount
            self._db.execute("DELETE FROM game_totals WHERE player = ?", (player,))
        return int(gone)

    def prune(self) -> int:
        """Delete the history of players idle for longer than the idle time."""
        since = time.time() - self.idle
        with self._lock:
            self._db.execute("DELETE FROM game_totals WHERE updated < ?", (since,))
            gone = self._db.execute(
                "DELETE FROM games WHERE player NOT IN (SELECT player FROM game_totals)"
            ).rowcount
        return int(gone)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


ATTEMPTS = 5
KNOWN_COUNTERS = 2048  # players whose counters a process remembers as it last wrote them
# KEYS: the player's list of game ids, their set of game ends seen, their counters.
# ARGV: the end's key, the game id, the stored game, the TTL, the cap, the counters as
# this process believes them stored, the counters with this game. Returns {0}: this
# end was stored already; {-1, stored}: the counters are not those (here they are);
# {1}: stored, the oldest past the cap dropped.
_ADD_SCRIPT = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {0} end
local stored = redis.call('GET', KEYS[3]) or ''
if stored ~= ARGV[6] then return {-1, stored} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('LPUSH', KEYS[1], ARGV[2])
local dropped = redis.call('LRANGE', KEYS[1], tonumber(ARGV[5]), -1)
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[5]) - 1)
redis.call('SET', '{games}game:' .. ARGV[2], ARGV[3], 'EX', ARGV[4])
for _, old in ipairs(dropped) do redis.call('DEL', '{games}game:' .. old) end
redis.call('SET', KEYS[3], ARGV[7])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return {1}
"""


class RedisHistory:
    """Finished games in Redis, shared by processes and hosts; idle players expire."""

    def __init__(
        self, url: str, *, per_player: int, idle_seconds: float, namespace: str = "tictactoe:"
    ) -> None:

        self._redis = connect(url)
        self.per_player, self._ttl = per_player, max(1, int(idle_seconds))
        self._ns = namespace
        # The adds of one event-loop turn share a pipeline (as the matches' saves do).
        self._pipeliner = Pipeliner(self._redis)
        self._add = BatchedScript(self._pipeliner, _ADD_SCRIPT.replace("{games}", namespace))
        self._known: dict[str, bytes] = {}  # player -> counters as this process wrote them

    def _keys(self, player: str) -> tuple[str, str, str]:
        base = f"{self._ns}history:{player}"
        return base + ":list", base + ":seen", base + ":totals"

    def add(self, player: str, key: str, entry: Entry) -> bool:
        """Store a finished game once, count it, and drop the oldest past the cap.

        One round trip when the counters are as this process last wrote them (or the
        player has none yet): the script stores the game and the counted ones only if
        the counters are still those, and else answers with the stored ones to count on.
        """
        listed, seen, totals = self._keys(player)
        data = orjson.dumps({"player": player, "entry": entry})
        before = self._known.pop(player, b"")
        for _ in range(ATTEMPTS):
            after = orjson.dumps(counted(orjson.loads(before or b"{}"), entry))
            reply = self._add(
                keys=[listed, seen, totals],
                args=[key, entry["id"], data, self._ttl, self.per_player, before, after],
            )
            if reply[0] >= 0:
                if reply[0]:
                    self._remember(player, after)
                return bool(reply[0])
            before = reply[1]
        raise RuntimeError(f"the history of {player} kept changing")

    def _remember(self, player: str, counters: bytes) -> None:
        """Keep ``player``'s counters as written, the least recently written forgotten first."""
        self._known[player] = counters
        if len(self._known) > KNOWN_COUNTERS:
            del self._known[next(iter(self._known))]

    def _game_key(self, game_id: str) -> str:
        return f"{self._ns}game:{game_id}"

    def games(self, player: str) -> list[Entry]:
        """The player's stored games, newest first."""
        ids = cast(list[bytes], self._redis.lrange(self._keys(player)[0], 0, -1))
        found = self._redis.mget([self._game_key(i.decode()) for i in ids]) if ids else []
        return [orjson.loads(data)["entry"] for data in cast(list[bytes | None], found) if data]

    def game(self, game_id: str) -> tuple[str, Entry] | None:
        """A game by its share id, with its player; None if unknown."""
        data = cast(bytes | None, self._redis.get(self._game_key(game_id)))
        if data is None:
            return None
        found = orjson.loads(data)
        return str(found["player"]), found["entry"]

    def counters(self, player: str) -> dict[str, int]:
        """The player's lifetime counters."""
        data = cast(bytes | None, self._redis.get(self._keys(player)[2]))
        return cast(dict[str, int], orjson.loads(data or b"{}"))

    def forget(self, player: str) -> int:
        """Delete the player's games and counters; return how many games."""
        listed, seen, totals = self._keys(player)
        ids = [i.decode() for i in cast(list[bytes], self._redis.lrange(listed, 0, -1))]
        with self._redis.pipeline() as pipe:
            for game_id in ids:
                pipe.delete(self._game_key(game_id))
            pipe.delete(listed, seen, totals)
            pipe.execute()
        self._known.pop(player, None)
        return len(ids)

    def prune(self) -> int:
        """Nothing to do: Redis expires idle players' history by itself."""
        return 0

    def close(self) -> None:
        """Close the connection pool and the pipeliner's connection."""
        self._pipeliner.close()
        self._redis.close()


def open_history(config: dict[str, Any]) -> SQLiteHistory | RedisHistory:
    """History where the matches are: Redis when ``REDIS_URL`` is set, else SQLite."""
    per_player = int(config["HISTORY_PER_PLAYER"])
    idle_seconds = float(config["IDLE_DAYS"]) * 86400
    if config["REDIS_URL"]:
        return RedisHistory(config["REDIS_URL"], per_player=per_player, idle_seconds=idle_seconds)
    store = SQLiteHistory(config["DATA_DIR"], per_player=per_player, idle_seconds=idle_seconds)
    store.prune()
    return store
