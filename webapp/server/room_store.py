"""Where rooms live: beside the matches, in the same SQLite file or the same Redis.

A room is written whole, compare-and-set on its version like a match (store.update
runs the loop), and kept apart from every player's match, so nothing done in a room
touches one. A room left unchanged for ``TICTACTOE_ROOM_IDLE_HOURS`` is gone: Redis
expires it, SQLite prunes it (at start-up and with the matches, every few hours), and
either way it is never loaded again. A room row that cannot be read is deleted and
logged once, and its link shows as unknown. At most ``TICTACTOE_MAX_ROOMS`` rooms are
open at once: past that a new one is refused (``rooms_full``) until one expires or ends.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Protocol, cast

import orjson

from ..game.room import Room, RoomError, from_record, to_record
from .config import DEFAULTS
from .protocol import ErrorCode
from .redis_client import connect, out_of_memory
from .sqlite_db import DATABASE_FILE, open_database
from .storage import StorageFull

log = logging.getLogger("webapp.server.store")
MAX_ROOMS: int = DEFAULTS["MAX_ROOMS"]
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rooms ("
    " id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL,"
    " updated REAL NOT NULL, kind TEXT NOT NULL, seat0 TEXT, seat1 TEXT)",
    "CREATE INDEX IF NOT EXISTS rooms_by_updated ON rooms (updated)",
    "CREATE INDEX IF NOT EXISTS rooms_by_seat0 ON rooms (seat0)",
    "CREATE INDEX IF NOT EXISTS rooms_by_seat1 ON rooms (seat1)",
)


class RoomStore(Protocol):
    """Storage for rooms, by id."""

    def load(self, room_id: str) -> Room | None:
        """The room, or None if there is none (or it expired, or could not be read)."""

    def save(self, room_id: str, room: Room, *, expected: int | None) -> bool:
        """Write ``room`` if the stored version is still ``expected`` (None: no row yet)."""

    def delete(self, room_id: str) -> None:
        """Forget the room."""

    def online_rooms_of(self, player: str) -> list[str]:
        """The ids of the live online rooms ``player`` holds a seat in."""

    def prune(self) -> int:
        """Delete rooms past their idle time; return how many."""

    def count(self) -> int:
        """How many rooms are open (live) now."""

    def close(self) -> None:
        """Release the store's resources."""


def rooms_full(cap: int) -> RoomError:
    """The refusal of a new room past the global cap."""
    return RoomError(
        ErrorCode.ROOMS_FULL,
        f"the server holds as many open rooms as it can ({cap}): try again later",
    )


def _parse(room_id: str, data: bytes) -> Room | None:
    try:
        return from_record(orjson.loads(data))
    except (RoomError, ValueError, TypeError, KeyError, IndexError) as err:
        log.warning("room %s could not be read and is deleted: %s", room_id, str(err)[:200])
        return None


class SQLiteRooms:
    """Rooms in the matches' SQLite file (one process)."""

    def __init__(self, data_dir: str | Path, *, idle_seconds: float, cap: int = MAX_ROOMS) -> None:
        self.idle, self.cap = idle_seconds, cap
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        self._lock = self._db.lock
        self._rows = 0  # rows stored, expired ones included until pruned
        self.prune()

    def _live_since(self) -> float:
        return time.time() - self.idle

    def load(self, room_id: str) -> Room | None:
        """The room, or None if there is none (or it expired, or could not be read)."""
        with self._lock:
            row = self._db.execute(
                "SELECT CAST(data AS BLOB) FROM rooms WHERE id = ? AND updated >= ?",
                (room_id, self._live_since()),
            ).fetchone()
        room = None if row is None else _parse(room_id, bytes(row[0]))
        if row is not None and room is None:
            self.delete(room_id)
        return room

    def save(self, room_id: str, room: Room, *, expected: int | None) -> bool:
        """Write ``room`` if the stored version is still ``expected`` (None: no row yet)."""
        data = orjson.dumps(to_record(room)).decode()
        row = (room.version, data, time.time(), room.kind, *room.seats)
        with self._lock:
            if expected is None:
                self._make_room()
                self._db.database.may_grow()
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO rooms (version, data, updated, kind, seat0, seat1, id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (*row, room_id),
                )
                self._rows += cursor.rowcount
            else:
                cursor = self._db.execute(
                    "UPDATE rooms SET version = ?, data = ?, updated = ?, kind = ?, seat0 = ?,"
                    " seat1 = ? WHERE id = ? AND version = ?",
                    (*row, room_id, expected),
                )
        return cursor.rowcount == 1

    def _make_room(self) -> None:
        """Refuse a new room past the cap, once the expired ones are pruned."""
        if self._rows >= self.cap:
            self.prune()
        if self._rows >= self.cap:
            raise rooms_full(self.cap)

    def delete(self, room_id: str) -> None:
        """Forget the room."""
        with self._lock:
            self._rows -= self._db.execute("DELETE FROM rooms WHERE id = ?", (room_id,)).rowcount

    def online_rooms_of(self, player: str) -> list[str]:
        """The ids of the live online rooms ``player`` holds a seat in."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM rooms WHERE kind = 'online' AND updated >= ?"
                " AND (seat0 = ? OR seat1 = ?)",
                (self._live_since(), player, player),
            ).fetchall()
        return [str(row[0]) for row in rows]

    def prune(self) -> int:
        """Delete rooms past their idle time; return how many."""
        with self._lock:
            cursor = self._db.execute("DELETE FROM rooms WHERE updated < ?", (self._live_since(),))
            self._rows = int(self._db.execute("SELECT count(*) FROM rooms").fetchone()[0])
        return cursor.rowcount

    def count(self) -> int:
        """How many rooms are open (live) now."""
        with self._lock:
            found = self._db.execute(
                "SELECT count(*) FROM rooms WHERE updated >= ?", (self._live_since(),)
            ).fetchone()
        return int(found[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


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
        self, url: str, *, idle_seconds: float, cap: int = MAX_ROOMS, namespace: str = "tictactoe:"
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
        room = None if data is None else _parse(room_id, data)
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


def open_rooms(config: dict[str, object]) -> RoomStore:
    """Rooms where the matches are: in Redis when ``REDIS_URL`` is set, else in SQLite."""
    idle_seconds = float(config["ROOM_IDLE_HOURS"]) * 3600  # type: ignore[arg-type]
    cap = int(config["MAX_ROOMS"])  # type: ignore[call-overload]
    if config["REDIS_URL"]:
        return RedisRooms(str(config["REDIS_URL"]), idle_seconds=idle_seconds, cap=cap)
    return SQLiteRooms(str(config["DATA_DIR"]), idle_seconds=idle_seconds, cap=cap)
