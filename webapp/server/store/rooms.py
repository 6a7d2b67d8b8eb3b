"""Where rooms live: beside the matches, in the same SQLite file or the same Redis.

A room is written whole, compare-and-set on its version like a match (``write`` in
store/matches.py runs the loop), and kept apart from every player's match, so nothing
done in a room touches one. A room left unchanged for ``TICTACTOE_ROOM_IDLE_HOURS`` is gone: Redis
expires it, SQLite prunes it (at start-up and with the matches, every few hours), and
either way it is never loaded again. A room row that cannot be read is deleted and
logged once, and its link shows as unknown. At most ``TICTACTOE_MAX_ROOMS`` rooms are
open at once: past that a new one is refused (``rooms_full``) until one expires or ends;
one client address may open only its share of them (services/rooms.py).

SQLite keeps them in store/sqlite/rooms.py, Redis in store/redis/rooms.py; this module holds the
interface they both follow and picks one.
"""

from __future__ import annotations

from typing import Protocol

from webapp.game.room import Room
from webapp.server.store.redis.rooms import RedisRooms
from webapp.server.store.sqlite.rooms import SQLiteRooms


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


def open_rooms(config: dict[str, object]) -> RoomStore:
    """Rooms where the matches are: in Redis when ``REDIS_URL`` is set, else in SQLite."""
    idle_seconds = float(config["ROOM_IDLE_HOURS"]) * 3600  # type: ignore[arg-type]
    cap = int(config["MAX_ROOMS"])  # type: ignore[call-overload]
    if config["REDIS_URL"]:
        return RedisRooms(str(config["REDIS_URL"]), idle_seconds=idle_seconds, cap=cap)
    return SQLiteRooms(str(config["DATA_DIR"]), idle_seconds=idle_seconds, cap=cap)
