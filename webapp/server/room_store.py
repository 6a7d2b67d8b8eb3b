"""Where rooms live: beside the matches, in the same SQLite file or the same Redis.

A room is written whole, compare-and-set on its version like a match (store.update
runs the loop), and kept apart from every player's match, so nothing done in a room
touches one. A room left unchanged for ``TICTACTOE_ROOM_IDLE_HOURS`` is gone: Redis
expires it, SQLite prunes it, and either way it is never loaded again. A room row that
cannot be read is deleted and logged once, and its link shows as unknown.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Protocol, cast

import orjson

from ..game.room import Room, RoomError, from_record, to_record
from .redis_client import connect
from .sqlite_store import DATABASE_FILE, open_database

log = logging.getLogger("webapp.server.store")
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

    def close(self) -> None:
        """Release the store's resources."""


def _parse(room_id: str, data: bytes) -> Room | None:
    try:
        return from_record(orjson.loads(data))
    except (RoomError, ValueError, TypeError, KeyError, IndexError) as err:
        log.warning("room %s could not be read and is deleted: %s", room_id, str(err)[:200])
        return None


class SQLiteRooms:
    """Rooms in the matches' SQLite file (one process)."""

    def __init__(self, data_dir: str | Path, *, idle_seconds: float) -> None:
        self.idle = idle_seconds
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        self._lock = self._db.lock

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
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO rooms (version, data, updated, kind, seat0, seat1, id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (*row, room_id),
                )
            else:
                cursor = self._db.execute(
                    "UPDATE rooms SET version = ?, data = ?, updated = ?, kind = ?, seat0 = ?,"
                    " seat1 = ? WHERE id = ? AND version = ?",
                    (*row, room_id, expected),
                )
        return cursor.rowcount == 1

    def delete(self, room_id: str) -> None:
        """Forget the room."""
        with self._lock:
            self._db.execute("DELETE FROM rooms WHERE id = ?", (room_id,))

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
        return cursor.rowcount

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


# Compare-and-set (ARGV[1] "" means: no room yet), then the idle expiry, and the room
# noted under each seated player (ARGV[5..]) until it would expire.
_SAVE_ROOM = """
local stored = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
local clock = redis.call('TIME')
local until_ = tonumber(clock[1]) + tonumber(ARGV[4])
for i = 6, #ARGV do
  local key = ARGV[5] .. ARGV[i]
  redis.call('ZADD', key, until_, KEYS[2])
  redis.call('EXPIRE', key, ARGV[4])
end
return 1
"""


class RedisRooms:
    """Rooms in Redis, one hash each with an idle expiry; shared by processes and hosts."""

    def __init__(self, url: str, *, idle_seconds: float, namespace: str = "tictactoe:") -> None:

        self._redis = connect(url)
        self._save = self._redis.register_script(_SAVE_ROOM)
        self._ttl = max(1, int(idle_seconds))
        self._prefix = namespace + "room:"
        self._of = namespace + "rooms-of:"

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
        saved = self._save(
            keys=[self._prefix + room_id, room_id],
            args=[*args, self._ttl, self._of, *seated],
        )
        return bool(saved)

    def delete(self, room_id: str) -> None:
        """Forget the room."""
        self._redis.delete(self._prefix + room_id)

    def online_rooms_of(self, player: str) -> list[str]:
        """The ids of the live online rooms ``player`` holds a seat in."""
        key = self._of + player
        self._redis.zremrangebyscore(key, "-inf", time.time())
        found = cast(list[bytes], self._redis.zrange(key, 0, -1))
        noted = [room_id.decode() for room_id in found]
        rooms = (self.load(room_id) for room_id in noted)
        return [room.id for room in rooms if room is not None and player in room.seats]

    def prune(self) -> int:
        """Nothing to do: Redis expires idle rooms by itself."""
        return 0

    def close(self) -> None:
        """Close the connection pool."""
        self._redis.close()


def open_rooms(config: dict[str, object]) -> RoomStore:
    """Rooms where the matches are: in Redis when ``REDIS_URL`` is set, else in SQLite."""
    idle_seconds = float(config["ROOM_IDLE_HOURS"]) * 3600  # type: ignore[arg-type]
    if config["REDIS_URL"]:
        return RedisRooms(str(config["REDIS_URL"]), idle_seconds=idle_seconds)
    return SQLiteRooms(str(config["DATA_DIR"]), idle_seconds=idle_seconds)
