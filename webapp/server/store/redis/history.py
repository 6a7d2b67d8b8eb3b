"""Finished games in Redis, shared by processes and hosts: each player's list of games,
their counters and the budget of all players' games, changed by one script each; idle
players expire.

The budget's keys: the players by their last game's time, their stored games' count,
the count of all, and the players by size (``history-sizes``: the count times 2**32
less the last game's time, so that the most games, then the longest idle, come first).
Past the budget, the player at the top of the sizes loses their oldest games, as
store/history.py says. A game stored finding the sizes missing (a store of an earlier
release) or listing other players than the counts (a rollback meanwhile) builds them
again from the counts first.

A game is stored as ``{"player", "entry", "signed"}``: ``signed`` is its signed record,
stored when the game ends and served as stored. A game stored by a release before
0.5.0 has none until it is first asked for; it is then written back in place, keeping
its expiry (services/signed_history.py)."""

from __future__ import annotations

from typing import cast

import orjson

from webapp.game.history import Entry, counted
from webapp.game.signed import Data
from webapp.server.settings import DEFAULTS
from webapp.server.store.interface import Signed, SignedGames, not_kept
from webapp.server.store.redis.batch import BatchedScript, Pipeliner
from webapp.server.store.redis.client import connect, out_of_memory

ATTEMPTS = 5
KNOWN_COUNTERS = 2048  # players whose counters a process remembers as it last wrote them
# KEYS: the player's list of game ids, their set of game ends seen, their counters;
# the players by their last game's time, their games' count, all players' count, the
# players by size. ARGV: the end's key, the game id, the stored game, the TTL, the cap,
# the counters as this process believes them stored, the counters with this game, the
# budget of all players' games, the player, the prefix of players' history keys, the
# floor. Returns {0}: this end was stored already; {-1, stored}: the counters are not
# those (here they are); {1}: stored, the oldest past the cap dropped, and past the
# budget the oldest games of the players with the most, down to the floor at most.
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
  redis.call('ZREM', KEYS[7], gone)
end
if redis.call('ZCARD', KEYS[7]) ~= redis.call('HLEN', KEYS[5]) then
  redis.call('DEL', KEYS[7])
  local counts = redis.call('HGETALL', KEYS[5])
  for i = 1, #counts, 2 do
    local last = tonumber(redis.call('ZSCORE', KEYS[4], counts[i]) or '0')
    local size = tonumber(counts[i + 1]) * 4294967296 - last
    redis.call('ZADD', KEYS[7], string.format('%.0f', size), counts[i])
  end
end
redis.call('ZADD', KEYS[4], now, ARGV[9])
local mine = redis.call('HINCRBY', KEYS[5], ARGV[9], 1 - #dropped)
redis.call('ZADD', KEYS[7], string.format('%.0f', mine * 4294967296 - now), ARGV[9])
local total = redis.call('INCRBY', KEYS[6], 1 - #dropped)
local budget, floor = tonumber(ARGV[8]), tonumber(ARGV[11])
while total > budget do
  local top = redis.call('ZREVRANGE', KEYS[7], 0, 1)
  local victim = top[1]
  if not victim then break end
  local count = tonumber(redis.call('HGET', KEYS[5], victim) or '0')
  if count <= floor then break end
  local level = floor
  if top[2] then level = math.max(floor, tonumber(redis.call('HGET', KEYS[5], top[2]) or '0')) end
  local take = math.max(1, math.min(total - budget, count - level))
  local listed = ARGV[10] .. victim .. ':list'
  for _, old in ipairs(redis.call('LRANGE', listed, -take, -1)) do
    redis.call('DEL', '{games}game:' .. old)
  end
  redis.call('LTRIM', listed, 0, -take - 1)
  redis.call('HINCRBY', KEYS[5], victim, -take)
  redis.call('ZINCRBY', KEYS[7], string.format('%.0f', -take * 4294967296), victim)
  total = redis.call('DECRBY', KEYS[6], take)
end
return {1}
"""
# Forget a player in the budget's count (KEYS as KEYS[4..7] above, ARGV[1] the player).
_FORGET_SCRIPT = """
redis.call('DECRBY', KEYS[3], tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0'))
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
"""


class RedisHistory(SignedGames):
    """Finished games in Redis, shared by processes and hosts; idle players expire."""

    def __init__(
        self,
        url: str,
        *,
        per_player: int,
        idle_seconds: float,
        budget: int = DEFAULTS["MAX_HISTORY_GAMES"],
        floor: int = DEFAULTS["HISTORY_FLOOR"],
        namespace: str = "tictactoe:",
    ) -> None:
        self._redis, self._full = connect(url), out_of_memory()
        self.per_player, self._ttl = per_player, max(1, int(idle_seconds))
        self.budget, self.floor, self._ns = budget, floor, namespace
        # The budget's keys: players by their last game's time, their games' count, all,
        # and the players by size.
        self._budget_keys = [namespace + "history-players", namespace + "history-counts"]
        self._budget_keys += [namespace + "history-total", namespace + "history-sizes"]
        self._forget = self._redis.register_script(_FORGET_SCRIPT)
        # The adds of one event-loop turn share a pipeline (as the matches' saves do).
        self._pipeliner = Pipeliner(self._redis)
        self._add = BatchedScript(self._pipeliner, _ADD_SCRIPT.replace("{games}", namespace))
        self._known: dict[str, bytes] = {}  # player -> counters as this process wrote them

    def _keys(self, player: str) -> tuple[str, str, str]:
        base = f"{self._ns}history:{player}"
        return base + ":list", base + ":seen", base + ":totals"

    def add(self, player: str, key: str, entry: Entry, signed: Data | None = None) -> bool:
        """Store a finished game once (with its signed record), count it, and drop the
        oldest past the cap.

        One round trip when the counters are as this process last wrote them (or the
        player has none yet): the script stores the game and the counted ones only if
        the counters are still those, and else answers with the stored ones to count on.
        """
        listed, seen, totals = self._keys(player)
        data = orjson.dumps({"player": player, "entry": entry, "signed": signed})
        before = self._known.pop(player, b"")
        args = (key, entry["id"], data, self._ttl, self.per_player)
        budget = (self.budget, player, self._ns + "history:", self.floor)
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

    def signed_games(self, player: str) -> list[Signed]:
        """The player's stored games, newest first, each with its stored signed record."""
        ids = cast(list[bytes], self._redis.lrange(self._keys(player)[0], 0, -1))
        found = self._redis.mget([self._game_key(i.decode()) for i in ids]) if ids else []
        stored = [orjson.loads(data) for data in cast(list[bytes | None], found) if data]
        return [(game["entry"], game.get("signed")) for game in stored]

    def signed_game(self, game_id: str) -> tuple[str, Signed] | None:
        """A game by its share id, with its player and its stored signed record."""
        data = cast(bytes | None, self._redis.get(self._game_key(game_id)))
        if data is None:
            return None
        found = orjson.loads(data)
        return str(found["player"]), (found["entry"], found.get("signed"))

    def keep_signed(self, game_id: str, signed: Data) -> bool:
        """Store the signed record of a game stored without one (or signed by a key no
        longer published), keeping its expiry; False if the game is gone."""
        name = self._game_key(game_id)
        data = cast(bytes | None, self._redis.get(name))
        if data is None:
            return False
        found = {**orjson.loads(data), "signed": signed}
        # XX: a game dropped meanwhile stays dropped; KEEPTTL: it expires as it would have.
        return bool(self._redis.set(name, orjson.dumps(found), xx=True, keepttl=True))

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
