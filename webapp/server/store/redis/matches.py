"""Matches in Redis, shared by several server processes or hosts.

One hash per player (``version``, ``data``) that expires when idle, and one sorted set
of players by the time of their last save, which counts the stored matches for the
size cap and names the longest idle ones. Every write is one Lua script, so the
compare-and-set, the expiry, the count and the pruning happen together.
"""

from __future__ import annotations

import time
from typing import Any, cast

import orjson

from webapp.game.match import Match
from webapp.game.records import to_record
from webapp.server.store.interface import (
    DAMAGED_DAYS,
    RECENT_ROWS,
    Cap,
    Conflict,
    Damaged,
    Recent,
    StorageFull,
    Unreadable,
    moved_aside,
    parse,
)
from webapp.server.store.redis.batch import BatchedScript, Pipeliner
from webapp.server.store.redis.client import connect, out_of_memory

# Compare-and-set in one round trip: write only if the stored version is the expected
# one ("" means the player must have no match yet), and refresh the idle expiry. A new
# match then forgets expired players, and makes room under the cap (ARGV[6], 0: none)
# by deleting the longest idle ones. The match is written first: at Redis's maxmemory
# that first write is refused (a script that has written anything is let run to its
# end). Returns {saved, pruned}.
_SAVE_SCRIPT = """
local stored = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if stored then return {0, 0} end
elseif stored ~= ARGV[1] then
  return {0, 0}
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local pruned = 0
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
if ARGV[1] == '' then
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[4]))
  local cap = tonumber(ARGV[6])
  local over = redis.call('ZCARD', KEYS[2]) - cap + 1
  if cap > 0 and over > 0 then
    local oldest = redis.call('ZPOPMIN', KEYS[2], over)
    for i = 1, #oldest, 2 do
      pruned = pruned + redis.call('DEL', ARGV[7] .. oldest[i])
    end
  end
end
redis.call('ZADD', KEYS[2], now, ARGV[5])
return {1, pruned}
"""

# Move a match aside if it still holds what was read (ARGV[1]): rename it, note why,
# keep it ARGV[4] seconds, and take the player out of the index. Returns 1 if moved.
_SET_ASIDE_SCRIPT = """
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return 0 end
if kind == 'hash' then
  if (redis.call('HGET', KEYS[1], 'data') or '') ~= ARGV[1] then return 0 end
end
redis.call('RENAME', KEYS[1], KEYS[2])
if kind == 'hash' then
  redis.call('HSET', KEYS[2], 'player', ARGV[5], 'reason', ARGV[2], 'moved_at', ARGV[3])
end
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[5])
return 1
"""


class RedisStore:
    """Matches in Redis, one hash per player with an idle expiry; shared by processes."""

    def __init__(
        self,
        url: str,
        *,
        idle_seconds: float,
        max_matches: int = 0,
        namespace: str = "tictactoe:",
    ) -> None:
        import redis

        self._errors = redis.RedisError
        self._full = out_of_memory()
        self._redis = connect(url)
        # Saves go through the pipeliner: the saves of one event-loop turn share a
        # pipeline, each still compared and set by its own script.
        self._pipeliner = Pipeliner(self._redis)
        self._save = BatchedScript(self._pipeliner, _SAVE_SCRIPT)
        self._set_aside_script = self._redis.register_script(_SET_ASIDE_SCRIPT)
        self._ttl = max(1, int(idle_seconds))
        self.cap = Cap(max_matches)
        self._prefix = namespace + "match:"
        self._index = namespace + "matches"  # sorted set: player -> time of the last save
        self._damaged = namespace + "damaged:"
        self._health = namespace + "health"
        self._parsed = Recent(RECENT_ROWS)

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none; raises Damaged (once) if unreadable."""
        import redis

        key = self._prefix + player
        for _ in range(3):
            try:
                version, data = cast(
                    list[bytes | None], self._redis.hmget(key, ["version", "data"])
                )
            except redis.ResponseError as err:  # the key holds something other than a hash
                version, data, reason = b"", b"", f"not a hash: {err}"
            else:
                if version is None and data is None:
                    self._parsed.drop(player)
                    return None
                data = data or b""
                match = self._parsed.parsed(player, data)
                if match is not None:
                    return match
                try:
                    match = parse(data)
                except Unreadable as err:
                    reason = str(err)
                else:
                    self._parsed.put(player, data, match)
                    return match
            if self._set_aside(player, data or b"", reason):
                raise Damaged(player, reason)
        raise Conflict(f"the stored match of {player} keeps changing")

    def _set_aside(self, player: str, data: bytes, reason: str) -> bool:
        now = time.time()
        moved = self._set_aside_script(
            keys=[self._prefix + player, f"{self._damaged}{player}:{now:.6f}", self._index],
            args=[data, reason, now, DAMAGED_DAYS * 86400, player],
        )
        if moved:
            self._parsed.drop(player)
            moved_aside(player, reason)
        return bool(moved)

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""
        data = orjson.dumps(to_record(match))
        expecting = "" if expected is None else expected
        args = [expecting, match.version, data, self._ttl, player, self.cap.limit, self._prefix]
        try:
            saved, pruned = self._save(keys=[self._prefix + player, self._index], args=args)
        except self._full:  # at Redis's maxmemory: nothing was written
            raise StorageFull() from None
        self.cap.pruned(int(pruned))
        if saved:
            self._parsed.put(player, data, match)
        return bool(saved)

    def recent(self, player: str) -> Match | None:
        """The match as this process last saved or read it (unread, possibly stale)."""
        return self._parsed.match(player)

    def delete(self, player: str) -> None:
        """Forget the player's match."""
        with self._redis.pipeline() as pipe:
            pipe.delete(self._prefix + player)
            pipe.zrem(self._index, player)
            pipe.execute()
        self._parsed.drop(player)

    def prune(self, idle_seconds: float) -> int:
        """Nothing to do: Redis expires idle matches by itself."""
        return 0

    def check(self) -> str | None:
        """None if Redis answers and takes a write now, else what is wrong."""
        try:
            self._redis.ping()
            self._redis.set(self._health, str(time.time()), ex=60)
        except self._errors as err:
            return f"Redis: {err}"
        return None

    def count(self) -> int:
        """How many matches are stored (the index, less those expired meanwhile)."""
        return int(self._redis.zcount(self._index, time.time() - self._ttl, "+inf"))

    def size(self) -> tuple[int, int]:
        """Redis's memory in use, and its ``maxmemory`` (0: none), in bytes."""
        memory = cast(dict[str, Any], self._redis.info("memory"))
        return int(memory["used_memory"]), int(memory.get("maxmemory") or 0)

    def close(self) -> None:
        """Close the connection pool and the pipeliner's connection."""
        self._pipeliner.close()
        self._redis.close()
        self._parsed.drop()
