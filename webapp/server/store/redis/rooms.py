"""Rooms in Redis, shared by processes and hosts: one hash each with an idle expiry, an
index of the open ones (the cap), and the rooms each player holds a seat in."""

from __future__ import annotations

import time
from typing import cast

import orjson

from webapp.game.room import Room, to_record
from webapp.server.settings import DEFAULTS
from webapp.server.store.interface import StorageFull, read_room, rooms_full
from webapp.server.store.redis.client import connect, out_of_memory

# Compare-and-set (ARGV[1] "" means: no room yet; refused with -1 when the index of
# open rooms, KEYS[3], already holds the cap ARGV[6]), then the idle expiry, the room's
# expiry in the index, and the room noted under each seated player (ARGV[7..]) until
# it would expire. The first write is the room's own (HSET): at Redis's maxmemory it is
# refused, while a script that has written anything is let run to its end.
_SAVE_ROOM = """
local stored = redis.call('HGET', KEYS[1], 'version')
local clock = redis.call('TIME')
local now = tonumber(clock[1])
if ARGV[1] == '' then
  if stored then return 0 end
  if redis.call('ZCOUNT', KEYS[3], now, '+inf') >= tonumber(ARGV[6]) then return -1 end
elseif stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local until_ = now + tonumber(ARGV[4])
redis.call('ZADD', KEYS[3], until_, KEYS[2])
for i = 7, #ARGV do
  local key = ARGV[5] .. ARGV[i]
  redis.call('ZADD', key, until_, KEYS[2])
  redis.call('EXPIRE', key, ARGV[4])
end
return 1
"""


class RedisRooms:
    """Rooms in Redis, one hash each with an idle expiry; shared by processes and hosts."""

    def __init__(
        self,
        url: str,
        *,
        idle_seconds: float,
        cap: int = DEFAULTS["MAX_ROOMS"],
        namespace: str = "tictactoe:",
    ) -> None:
        self._redis, self._full = connect(url), out_of_memory()
        self._save = self._redis.register_script(_SAVE_ROOM)
        self._ttl, self.cap = max(1, int(idle_seconds)), cap
        self._prefix = namespace + "room:"
        self._of = namespace + "rooms-of:"
        self._index = namespace + "rooms"  # sorted set: room id -> when it expires

    def load(self, room_id: str) -> Room | None:
        """The room, or None if there is none (or it expired, or could not be read)."""
        data = cast(bytes | None, self._redis.hget(self._prefix + room_id, "data"))
        room = None if data is None else read_room(room_id, data)
        if data is not None and room is None:
            self.delete(room_id)
        return room

    def save(self, room_id: str, room: Room, *, expected: int | None) -> bool:
        """Write ``room`` if the stored version is still ``expected`` (None: no row yet)."""
        seated = sorted({seat for seat in room.seats if seat is not None and room.kind == "online"})
        args = ["" if expected is None else expected, room.version, orjson.dumps(to_record(room))]
        try:
            saved = int(
                self._save(
                    keys=[self._prefix + room_id, room_id, self._index],
                    args=[*args, self._ttl, self._of, self.cap, *seated],
                )
            )
        except self._full:  # at Redis's maxmemory: nothing was written
            raise StorageFull() from None
        if saved < 0:
            raise rooms_full(self.cap)
        return bool(saved)

    def delete(self, room_id: str) -> None:
        """Forget the room."""
        with self._redis.pipeline() as pipe:
            pipe.delete(self._prefix + room_id)
            pipe.zrem(self._index, room_id)
            pipe.execute()

    def online_rooms_of(self, player: str) -> list[str]:
        """The ids of the live online rooms ``player`` holds a seat in."""
        key = self._of + player
        self._redis.zremrangebyscore(key, "-inf", time.time())
        found = cast(list[bytes], self._redis.zrange(key, 0, -1))
        noted = [room_id.decode() for room_id in found]
        rooms = (self.load(room_id) for room_id in noted)
        return [room.id for room in rooms if room is not None and player in room.seats]

    def prune(self) -> int:
        """Forget expired rooms in the index (Redis expires the rooms themselves)."""
        return int(self._redis.zremrangebyscore(self._index, "-inf", time.time()))

    def count(self) -> int:
        """How many rooms are open (live) now."""
        return int(self._redis.zcount(self._index, time.time(), "+inf"))

    def close(self) -> None:
        """Close the connection pool."""
        self._redis.close()
