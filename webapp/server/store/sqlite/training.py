"""Training in the matches' SQLite file (one process): cards, answers and ratings, in
tables of their own that a file of an earlier release gains when the store opens (a file
already at its ceiling gains them at the first start with room: until then the Train
page answers that storage is full)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, cast

import orjson

from webapp.game.training import ANSWERS_KEPT
from webapp.server.store.bounded import LastUsed
from webapp.server.store.interface import StorageFull
from webapp.server.store.sqlite.db import DATABASE_FILE, open_database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS training_cards ("
    " player TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, updated REAL NOT NULL,"
    " PRIMARY KEY (player, key))",
    "CREATE TABLE IF NOT EXISTS training_answers ("
    " player TEXT NOT NULL, at REAL NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS training_answers_by_player ON training_answers (player, at)",
    "CREATE TABLE IF NOT EXISTS training_ratings ("
    " owner TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
)
PLAYERS_KNOWN = 2048  # players whose stored card keys this process remembers


class _Known:
    """What this process stored of a player's cards: their keys, and when it last
    refreshed the player's card times (``put_cards``)."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.refreshed = float("-inf")


class SQLiteTraining:
    """Cards, answers and ratings in the matches' SQLite file."""

    def __init__(self, data_dir: str | Path, *, idle_seconds: float) -> None:
        self.idle = idle_seconds
        # How stale a card's time may be left (``put_cards``); ``prune`` waits as much
        # longer, so a player's training is still kept the whole idle time.
        self.slack = idle_seconds / 1000
        # Each game's end makes its cards: those this process stored already, and a time
        # refreshed within the slack, cost no statement (only this process writes here;
        # ``forget_now`` and ``prune`` drop what they delete).
        self._known: LastUsed[str, _Known] = LastUsed(PLAYERS_KNOWN)
        self._db = open_database(Path(data_dir) / DATABASE_FILE, ())
        self._lock = self._db.lock
        with self._lock, contextlib.suppress(StorageFull):
            for statement in SCHEMA:
                self._db.execute(statement)
        found = "SELECT count(*) FROM sqlite_master WHERE name LIKE 'training_%'"
        self.ready = int(self._db.execute(found).fetchone()[0]) == len(SCHEMA)

    def _made(self) -> None:
        """Refuse a write while the tables could not be made (the data is full)."""
        if not self.ready:
            raise StorageFull()

    def cards(self, player: str) -> dict[str, Any]:
        """The player's cards by key."""
        if not self.ready:
            return {}
        with self._lock:
            rows = self._db.execute(
                "SELECT key, data FROM training_cards WHERE player = ?", (player,)
            ).fetchall()
        return {str(key): orjson.loads(data) for key, data in rows}

    def put_cards(self, player: str, rows: dict[str, Any], *, replace: bool) -> int:
        """Store cards by key (``replace``: over those stored, else only new ones)."""
        self._made()
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        now = time.time()
        known = self._known.get(player) or _Known()
        self._known.put(player, known)
        # Every card's time, refreshed where older than the slack, and not again by this
        # process within the slack: a game's end rewrote each of the player's cards before.
        # What it knows is trusted as long: then every card is written again (or ignored).
        refresh = now - known.refreshed >= self.slack
        if refresh:
            known.keys.clear()
        new = rows if replace else {key: row for key, row in rows.items() if key not in known.keys}
        if not new and not refresh:
            return 0

        def change() -> int:
            if not replace and new:
                self._db.database.may_grow()  # new rows, as a new game's: refused near the ceiling
            written = 0
            for key, row in new.items():
                written += self._db.execute(
                    f"{verb} INTO training_cards (player, key, data, updated) VALUES (?, ?, ?, ?)",
                    (player, key, orjson.dumps(row).decode(), now),
                ).rowcount
            if refresh:
                self._db.execute(
                    "UPDATE training_cards SET updated = ? WHERE player = ? AND updated < ?",
                    (now, player, now - self.slack),
                )
            return written

        written = self._db.write(change)
        known.keys.update(new)
        if refresh:
            known.refreshed = now
        return written

    def answered(self, player: str, answer: dict[str, Any]) -> None:
        """Add one answer to the player's log."""
        self._made()
        row = (player, float(answer["at"]), orjson.dumps(answer).decode())

        def change() -> None:
            self._db.database.may_grow()
            insert = "INSERT INTO training_answers (player, at, data) VALUES (?, ?, ?)"
            self._db.execute(insert, row)
            self._db.execute(
                "DELETE FROM training_answers WHERE rowid IN (SELECT rowid FROM training_answers"
                " WHERE player = ? ORDER BY at DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (player, ANSWERS_KEPT),
            )

        self._db.write(change)

    def answers(self, player: str) -> list[dict[str, Any]]:
        """The player's answers, oldest first."""
        if not self.ready:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT data FROM training_answers WHERE player = ? ORDER BY at, rowid",
                (player,),
            ).fetchall()
        return [cast(dict[str, Any], orjson.loads(data)) for (data,) in rows]

    def rating(self, owner: str) -> dict[str, float] | None:
        """A stored rating, or None."""
        if not self.ready:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM training_ratings WHERE owner = ?", (owner,)
            ).fetchone()
        return None if row is None else cast(dict[str, float], orjson.loads(row[0]))

    def put_ratings(self, ratings: dict[str, dict[str, float]]) -> None:
        """Store ratings by owner, together."""
        self._made()
        now = time.time()

        def change() -> None:
            for owner, data in ratings.items():
                self._db.execute(
                    "INSERT OR REPLACE INTO training_ratings (owner, data, updated)"
                    " VALUES (?, ?, ?)",
                    (owner, orjson.dumps(data).decode(), now),
                )

        self._db.write(change)

    def forget(self, player: str) -> int:
        """Delete the player's cards, answers and rating; return how many cards."""
        if not self.ready:
            return 0
        return self._db.write(lambda: self.forget_now(player))

    def prune(self) -> int:
        """Delete the training of players whose cards were untouched for the idle time."""
        if not self.ready:
            return 0
        # A card's time may lag by twice the slack: older than the slack when the player's
        # times were last refreshed, and not refreshed again within it (``put_cards``).
        since = time.time() - self.idle - 2 * self.slack

        def change() -> int:
            idle = [
                str(row[0])
                for row in self._db.execute(
                    "SELECT DISTINCT player FROM training_cards WHERE updated < ?", (since,)
                ).fetchall()
            ]
            return sum(self.forget_now(player) for player in idle)

        return self._db.write(change)

    def forget_now(self, player: str) -> int:
        """``forget``'s statements, inside a write already open."""
        self._known.pop(player, None)
        gone = self._db.execute("DELETE FROM training_cards WHERE player = ?", (player,)).rowcount
        self._db.execute("DELETE FROM training_answers WHERE player = ?", (player,))
        self._db.execute("DELETE FROM training_ratings WHERE owner = ?", (f"player:{player}",))
        return int(gone)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
