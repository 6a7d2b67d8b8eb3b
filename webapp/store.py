"""Where matches live: one small interface, SQLite by default.

Each player has one row holding the serialised match and its version. Writes are
compare-and-set on that version, so two requests racing on one match (two tabs,
or two server processes) cannot both win: the loser re-reads and re-validates.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from . import match as matches
from .match import Match

Update = Callable[[Match | None], Match]


class Store(Protocol):
    """Storage for one match per player."""

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none."""

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds``; return how many."""

    def close(self) -> None:
        """Release the store's resources."""


class Conflict(RuntimeError):
    """A write kept losing races; the request should be retried later."""


def update(store: Store, player: str, change: Update, *, attempts: int = 5) -> Match:
    """Apply ``change`` to the stored match and save it, retrying when another writer won."""
    for _ in range(attempts):
        current = store.load(player)
        changed = change(current)
        if changed is current:
            return changed
        if store.save(player, changed, expected=current.version if current else None):
            return changed
    raise Conflict(f"could not update the match of {player} after {attempts} attempts")


class SQLiteStore:
    """Matches in one SQLite file in WAL mode; safe for threads and greenlets."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        # WAL with synchronous=NORMAL keeps every committed write across a crash of the
        # process (only a power cut can lose the last ones) and keeps writes cheap.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS matches ("
            " player TEXT PRIMARY KEY, version INTEGER NOT NULL,"
            " data TEXT NOT NULL, updated REAL NOT NULL)"
        )

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none."""
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM matches WHERE player = ?", (player,)
            ).fetchone()
        return matches.from_dict(json.loads(row[0])) if row else None

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""
        data = json.dumps(matches.to_dict(match), separators=(",", ":"))
        now = time.time()
        with self._lock:
            if expected is None:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO matches (player, version, data, updated)"
                    " VALUES (?, ?, ?, ?)",
                    (player, match.version, data, now),
                )
            else:
                cursor = self._db.execute(
                    "UPDATE matches SET version = ?, data = ?, updated = ?"
                    " WHERE player = ? AND version = ?",
                    (match.version, data, now, player, expected),
                )
        return cursor.rowcount == 1

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds``; return how many."""
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM matches WHERE updated < ?", (time.time() - idle_seconds,)
            )
        return cursor.rowcount

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
