"""Where matches live: one small interface, SQLite by default, Redis for several processes.

Each player has one stored match holding a versioned record (webapp/game/records.py,
which upgrades rows written by earlier releases as they are loaded) and its version.
Writes are compare-and-set on that version, so two requests racing on one match (two
tabs, or two server processes) cannot both win: the loser re-reads and re-validates.

A stored match that cannot be read is moved aside, kept for inspection and logged once
with the player id, and ``load`` raises ``Damaged``: from then on the player has no
stored match. A store may hold at most ``TICTACTOE_MAX_MATCHES``; a new match past that
deletes the longest idle ones. SQLite is in store/sqlite/matches.py (its connection in
store/sqlite/db.py), Redis in store/redis/matches.py, and what they share in store/interface.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

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
    """What ``update`` needs of a store: loading, and compare-and-set saving."""

    def load(self, key: str, /) -> V | None:
        """The stored value, or None."""

    def save(self, key: str, value: V, /, *, expected: int | None) -> bool:
        """Write ``value`` if the stored version is still ``expected`` (None: no row yet)."""


def update(
    store: Saves[V],
    key: str,
    change: Callable[[V | None], V],
    *,
    attempts: int = 5,
    known: V | None = None,
    load: Callable[[str], V | None] | None = None,
) -> V:
    """Apply ``change`` to the stored value and save it, retrying when another writer won.

    ``known`` is the value as this process last saved or read it: the first attempt
    starts from it instead of reading it. A write made on it is checked by
    compare-and-set; a refusal or a no-change made on it is never final, since it may
    be stale, so the next attempt reads the value through ``load`` (``store.load``) and
    decides again.
    """
    read = load or store.load
    for attempt in range(attempts):
        unread = known is not None and attempt == 0
        current = known if unread else read(key)
        try:
            changed = change(current)
        except Exception:
            if unread:
                continue
            raise
        if changed is current:
            if unread:
                continue
            return changed
        if store.save(key, changed, expected=current.version if current else None):
            return changed
    raise Conflict(f"could not update {key} after {attempts} attempts")


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
    "Unreadable",
    "open_store",
    "parse",
    "update",
]
