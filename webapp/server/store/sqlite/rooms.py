"""Rooms in the matches' SQLite file (one process): one row each, with its seats
indexed; rows past the idle time are pruned, and never loaded again meanwhile."""

from __future__ import annotations

import time
from pathlib import Path

import orjson

from webapp.game.room import Room, to_record
from webapp.server.settings import DEFAULTS
from webapp.server.store.interface import read_room, rooms_full
from webapp.server.store.sqlite.db import DATABASE_FILE, open_database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS rooms ("
    " id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL,"
    " updated REAL NOT NULL, kind TEXT NOT NULL, seat0 TEXT, seat1 TEXT)",
    "CREATE INDEX IF NOT EXISTS rooms_by_updated ON rooms (updated)",
    "CREATE INDEX IF NOT EXISTS rooms_by_seat0 ON rooms (seat0)",
    "CREATE INDEX IF NOT EXISTS rooms_by_seat1 ON rooms (seat1)",
)


class SQLiteRooms:
    """Rooms in the matches' SQLite file (one process)."""

    def __init__(
        self, data_dir: str | Path, *, idle_seconds: float, cap: int = DEFAULTS["MAX_ROOMS"]
    ) -> None:
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
        room = None if row is None else read_room(room_id, bytes(row[0]))
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
