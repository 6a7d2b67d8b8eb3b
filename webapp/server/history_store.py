"""Where finished games live: apart from the live match, written once when a game ends.

Each player keeps their newest ``TICTACTOE_HISTORY_PER_PLAYER`` games and a set of
lifetime counters (webapp/game/history.py). A game is stored under a key of its own
(its server seed's commitment), so the process whose compare-and-set write ended the
game stores it, and a second attempt, or the same game ended again, changes nothing. Each game also
has a random id, which its share link names. A player's history goes with them when
they are idle for ``TICTACTOE_IDLE_DAYS``, or when they ask for it to be deleted. All
players together keep at most ``TICTACTOE_MAX_HISTORY_GAMES``: past it, the history of
the players idle the longest is deleted first.
"""

from __future__ import annotations

import functools
import logging
import time
from pathlib import Path
from typing import Any, Protocol, cast

import orjson

from ..game.history import Entry, counted, games_counted
from .config import DEFAULTS
from .redis_batch import BatchedScript, Pipeliner
from .redis_client import connect, out_of_memory
from .sqlite_db import DATABASE_FILE, open_database
from .storage import StorageFull

log = logging.getLogger("webapp.server.store")

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS games ("
    " player TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL UNIQUE,"
    " ended REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (player, key))",
    "CREATE INDEX IF NOT EXISTS games_by_player ON games (player, ended)",
    "CREATE TABLE IF NOT EXISTS game_totals ("
    " player TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS game_totals_by_updated ON game_totals (updated)",
)
MAX_HISTORY_GAMES: int = DEFAULTS["MAX_HISTORY_GAMES"]


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

    def prune(self) -> int:
        """Delete what expiry alone does not; return how many games."""

    def count(self) -> int:
        """How many finished games are stored, all players together."""

    def close(self) -> None:
        """Release the store's resources."""


@functools.cache  # once a process: the log line, not the games, is cached
def not_kept() -> None:
    """The one log line for finished games not kept because the data is full."""
    log.warning("the data is at its ceiling: finished games are not kept (logged once)")


class SQLiteHistory:
    """Finished games in the matches' SQLite file (one process)."""

    def __init__(
        self,
        data_dir: str | Path,
        *,
        per_player: int,
        idle_seconds: float,
        budget: int = MAX_HISTORY_GAMES,
    ) -> None:
        self.per_player, self.idle, self.budget = per_player, idle_seconds, budget
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        self._lock = self._db.lock
        self._rows = int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])

    def add(self, player: str, key: str, entry: Entry) -> bool:
        """Store a finished game once, count it, and drop the oldest past the cap; a game
        ended while the data is at its ceiling is not kept (the log says so once)."""
        try:
            return self._db.write(lambda: self._insert(player, key, entry))
        except StorageFull:
            not_kept()
            return False

    def _insert(self, player: str, key: str, entry: Entry) -> bool:
        self._db.database.may_grow()
        now = time.time()
        row = (player, key, entry["id"], entry["ended"], orjson.dumps(entry).decode())
        inserted = self._db.execute(
            "INSERT OR IGNORE INTO games (player, key, id, ended, data) VALUES (?, ?, ?, ?, ?)",
            row,
        ).rowcount
        if not inserted:
            return False
        self._rows += 1
        totals = counted(self._counters(player), entry)
        self._db.execute(
            "INSERT OR REPLACE INTO game_totals (player, data, updated) VALUES (?, ?, ?)",
            (player, orjson.dumps(totals).decode(), now),
        )
        if games_counted(totals) > self.per_player:  # else fewer are stored: none to drop
            self._rows -= self._db.execute(
                # Past the newest per_player, read off the (player, ended) index from the
                # top: one short scan, not a set of kept keys.
                "DELETE FROM games WHERE rowid IN (SELECT rowid FROM games WHERE player = ?"
                " ORDER BY ended DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (player, self.per_player),
            ).rowcount
        while self._rows > self.budget and self._drop_longest_idle(keep=player):
            pass
        return True

    def _drop_longest_idle(self, *, keep: str) -> bool:
        """Delete the history of the player idle the longest (never ``keep``); False if
        there is no one else."""
        row = self._db.execute(
            "SELECT player FROM game_totals WHERE player != ? ORDER BY updated LIMIT 1", (keep,)
        ).fetchone()
        if row is None:
            return False
        self._rows -= self._db.execute("DELETE FROM games WHERE player = ?", row).rowcount
        self._db.execute("DELETE FROM game_totals WHERE player = ?", row)
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
            self._rows -= gone
        return int(gone)

    def prune(self) -> int:
        """Delete the history of players idle for longer than the idle time."""
        since = time.time() - self.idle
        with self._lock:
            self._db.execute("DELETE FROM game_totals WHERE updated < ?", (since,))
            gone = self._db.execute(
                "DELETE FROM games WHERE player NOT IN (SELECT player FROM game_totals)"
            ).rowcount
            self._rows -= gone
        return int(gone)

    def count(self) -> int:
        """How many finished games are stored, all players together."""
        return self._rows

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


ATTEMPTS = 5
KNOWN_COUNTERS = 2048  # players whose counters a process remembers as it last wrote them
# KEYS: the player's list of game ids, their set of game ends seen, their counters;
# the players by their last game's time, their games' count, all players' count.
# ARGV: the end's key, the game id, the stored game, the TTL, the cap, the counters as
# this process believes them stored, the counters with this game, the budget of all
# players' games, the player, the prefix of players' history keys. Returns {0}: this
# end was stored already; {-1, stored}: the counters are not those (here they are);
# {1}: stored, the oldest past the cap dropped, and past the budget the history of
# the players idle the longest.
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
local now = tonumber(redis.call('TIME')[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[4]))
for _, gone in ipairs(expired) do
  redis.call('DECRBY', KEYS[6], tonumber(redis.call('HGET', KEYS[5], gone) or '0'))
  redis.call('HDEL', KEYS[5], gone)
  redis.call('ZREM', KEYS[4], gone)
end
redis.call('ZADD', KEYS[4], now, ARGV[9])
redis.call('HINCRBY', KEYS[5], ARGV[9], 1 - #dropped)
local total = redis.call('INCRBY', KEYS[6], 1 - #dropped)
while total > tonumber(ARGV[8]) do
  local oldest = redis.call('ZRANGE', KEYS[4], 0, 1)
  local victim = oldest[1]
  if victim == ARGV[9] then victim = oldest[2] end
  if not victim then break end
  local base = ARGV[10] .. victim
  for _, old in ipairs(redis.call('LRANGE', base .. ':list', 0, -1)) do
    redis.call('DEL', '{games}game:' .. old)
  end
  redis.call('DEL', base .. ':list', base .. ':seen', base .. ':totals')
  total = redis.call('DECRBY', KEYS[6], tonumber(redis.call('HGET', KEYS[5], victim) or '0'))
  redis.call('HDEL', KEYS[5], victim)
  redis.call('ZREM', KEYS[4], victim)
end
return {1}
"""
# Forget a player in the budget's count (KEYS as KEYS[4..6] above, ARGV[1] the player).
_FORGET_SCRIPT = """
redis.call('DECRBY', KEYS[3], tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0'))
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
"""


class RedisHistory:
    """Finished games in Redis, shared by processes and hosts; idle players expire."""

    def __init__(
        self,
        url: str,
        *,
        per_player: int,
        idle_seconds: float,
        budget: int = MAX_HISTORY_GAMES,
        namespace: str = "tictactoe:",
    ) -> None:
        self._redis, self._full = connect(url), out_of_memory()
        self.per_player, self._ttl = per_player, max(1, int(idle_seconds))
        self.budget, self._ns = budget, namespace
        # The budget's keys: players by their last game's time, their games' count, all.
        self._budget_keys = [namespace + "history-players", namespace + "history-counts"]
        self._budget_keys.append(namespace + "history-total")
        self._forget = self._redis.register_script(_FORGET_SCRIPT)
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
        args = (key, entry["id"], data, self._ttl, self.per_player)
        budget = (self.budget, player, self._ns + "history:")
        for _ in range(ATTEMPTS):
            after = orjson.dumps(counted(orjson.loads(before or b"{}"), entry))
            try:
                reply = self._add(
                    keys=[listed, seen, totals, *self._budget_keys],
                    args=[*args, before, after, *budget],
                )
            except self._full:  # at Redis's maxmemory: nothing was written
                not_kept()
                return False
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
        self._forget(keys=self._budget_keys, args=[player])
        self._known.pop(player, None)
        return len(ids)

    def prune(self) -> int:
        """Nothing to do: Redis expires idle players' history by itself."""
        return 0

    def count(self) -> int:
        """How many finished games are stored, all players together (expired players'
        counted until the next game is stored)."""
        return int(cast(bytes | None, self._redis.get(self._budget_keys[2])) or 0)

    def close(self) -> None:
        """Close the connection pool and the pipeliner's connection."""
        self._pipeliner.close()
        self._redis.close()


def open_history(config: dict[str, Any]) -> SQLiteHistory | RedisHistory:
    """History where the matches are: Redis when ``REDIS_URL`` is set, else SQLite."""
    per_player, budget = int(config["HISTORY_PER_PLAYER"]), int(config["MAX_HISTORY_GAMES"])
    idle = float(config["IDLE_DAYS"]) * 86400
    if config["REDIS_URL"]:
        url = config["REDIS_URL"]
        return RedisHistory(url, per_player=per_player, idle_seconds=idle, budget=budget)
    store = SQLiteHistory(
        config["DATA_DIR"], per_player=per_player, idle_seconds=idle, budget=budget
    )
    store.prune()
    return store
