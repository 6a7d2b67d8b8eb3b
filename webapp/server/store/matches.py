"""Where matches live (SQLite by default, Redis for several processes), and how they are written.

Each player has one stored match holding a versioned record (webapp/game/records.py,
which upgrades rows written by earlier releases as they are loaded) and its version.
Writes are compare-and-set on that version, so two requests racing on one match (two
tabs, or two server processes) cannot both win: the loser re-reads and re-validates.
``write`` takes a pure transition and returns what it stored and what to push
(``Written``): the caller pushes it, once the write is done.

A stored match that cannot be read is moved aside, kept for inspection and logged once
with the player id, and ``load`` raises ``Damaged``: from then on the player has no
stored match. A store may hold at most ``TICTACTOE_MAX_MATCHES``; a new match past that
deletes the longest idle ones. SQLite is in sqlite/matches.py (its connection in
sqlite/db.py), Redis in redis/matches.py, and the interface they share in interface.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from webapp.server.store.interface import (
    DAMAGED_DAYS,
    RECENT_ROWS,
    Cap,
    Conflict,
    Damaged,
    StorageFull,
    Store,
    Unreadable,
    parse,
)
from webapp.server.store.redis.matches import RedisStore
from webapp.server.store.sqlite.db import DATABASE_FILE
from webapp.server.store.sqlite.matches import SQLiteStore


class Versioned(Protocol):
    """A stored value: a match or a room."""

    @property
    def version(self) -> int:
        """Its version, which each change raises by one."""


V = TypeVar("V", bound=Versioned)


class Saves(Protocol[V]):
    """What ``write`` needs of a store: loading, and compare-and-set saving."""

    def load(self, key: str, /) -> V | None:
        """The stored value, or None."""

    def save(self, key: str, value: V, /, *, expected: int | None) -> bool:
        """Write ``value`` if the stored version is still ``expected`` (None: no row yet)."""


@dataclass(frozen=True)
class Written(Generic[V]):
    """What one change stored and what it shows: the value stored (or found unchanged),
    the value the change was made on, the values to push at once, in order, and the
    value to push after a delay (None: nothing)."""

    value: V
    before: V | None = None
    pushes: tuple[V, ...] = ()
    later: V | None = None


Transition = Callable[[V | None], Written[V]]


def write(
    store: Saves[V],
    key: str,
    transition: Transition[V],
    *,
    attempts: int = 5,
    known: V | None = None,
) -> Written[V]:
    """Apply a pure ``transition`` to the stored value and save what it makes, compare-and-set,
    computing it again from the winner's value when another writer won.

    ``known`` is the value as this process last saved or read it: the first attempt
    starts from it instead of reading it. A write made on it is checked by
    compare-and-set; a refusal or a no-change made on it is never final, since it may
    be stale, so the next attempt reads the value and decides again. ``Damaged`` is
    raised, not handled: the row has been moved aside, and the caller decides what
    takes its place.
    """
    for attempt in range(attempts):
        unread = known is not None and attempt == 0
        current = known if unread else store.load(key)
        try:
            written = transition(current)
        except Exception:
            if unread:
                continue
            raise
        if written.value is current:
            if unread:
                continue
            return written
        if store.save(key, written.value, expected=current.version if current else None):
            return written
    raise Conflict(f"could not update {key} after {attempts} attempts")


def update(
    store: Saves[V],
    key: str,
    change: Callable[[V | None], V],
    *,
    attempts: int = 5,
    known: V | None = None,
) -> V:
    """``write`` for a change that pushes nothing: the value stored."""
    return write(
        store,
        key,
        lambda current: Written(change(current), current),
        attempts=attempts,
        known=known,
    ).value


def open_store(config: Mapping[str, Any]) -> Store:
    """Redis when ``REDIS_URL`` is set (several processes), else SQLite in the data dir."""
    idle_seconds = float(config["IDLE_DAYS"]) * 86400
    cap = int(config.get("MAX_MATCHES") or 0)
    if config["REDIS_URL"]:
        return RedisStore(config["REDIS_URL"], idle_seconds=idle_seconds, max_matches=cap)
    path = Path(config["DATA_DIR"]) / DATABASE_FILE
    store = SQLiteStore(path, max_matches=cap, max_data_mb=int(config["MAX_DATA_MB"]))
    if store.verify() is None:  # damage is logged now, and /healthz fails
        store.prune(idle_seconds)
    return store


__all__ = [
    "DAMAGED_DAYS",
    "DATABASE_FILE",
    "RECENT_ROWS",
    "Cap",
    "Conflict",
    "Damaged",
    "RedisStore",
    "SQLiteStore",
    "StorageFull",
    "Store",
    "Transition",
    "Unreadable",
    "Written",
    "open_store",
    "parse",
    "update",
    "write",
]
