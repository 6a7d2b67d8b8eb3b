"""Matches in one SQLite file (one server process): WAL, compare-and-set, a size cap.

SQLite stays the only source of truth: every load reads the row. Kept in memory is
only the parsed form of the rows seen lately (storage.Recent), reused while the row's
bytes are exactly the bytes it was parsed from, which saves rebuilding the match on
every event, and offered unread to a change, which compare-and-set then checks. The
connection, shared with the history and the rooms, is store/sqlite/db.py's.

The schema is only ever added to (``CREATE ... IF NOT EXISTS``), so a database written
by any earlier release opens as it is: ``damaged_matches`` keeps the rows that could not
be read (for ``DAMAGED_DAYS``), ``health`` the health check's last write.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from pathlib import Path

import orjson

from webapp.game.match import Match
from webapp.game.records import to_record
from webapp.server.store.interface import (
    DAMAGED_DAYS,
    RECENT_ROWS,
    Cap,
    Conflict,
    Damaged,
    Recent,
    Unreadable,
    moved_aside,
    parse,
)
from webapp.server.store.sqlite.db import off_the_loop, open_database
from webapp.server.store.sqlite.integrity import QUICK_CHECK_SECONDS, probe_ends, quick_check

log = logging.getLogger("webapp.server.store")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS matches ("
    " player TEXT PRIMARY KEY, version INTEGER NOT NULL,"
    " data TEXT NOT NULL, updated REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS matches_by_updated ON matches (updated)",
    "CREATE TABLE IF NOT EXISTS damaged_matches ("
    " player TEXT NOT NULL, data BLOB, reason TEXT NOT NULL, moved_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS health (id INTEGER PRIMARY KEY, checked REAL NOT NULL)",
)


class SQLiteStore:
    """Matches in one SQLite file in WAL mode; safe for threads and greenlets."""

    def __init__(self, path: str | Path, *, max_matches: int = 0, max_data_mb: int = 0) -> None:
        self.path = Path(path)
        self.cap = Cap(max_matches)
        self._parsed = Recent(RECENT_ROWS)
        self._db = open_database(self.path, SCHEMA)
        self._lock = self._db.lock
        if max_data_mb:
            with self._lock:
                self._db.database.limit_size(max_data_mb)
        self._rows = self._count() if self.cap.limit else 0
        self._checked = float("-inf")  # when the last full quick_check ran
        self._checking = threading.Lock()  # one full quick_check at a time

    def _count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM matches").fetchone()[0])

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none; raises Damaged (once) if unreadable."""
        for _ in range(3):
            with self._lock:
                row = self._db.execute(
                    "SELECT CAST(data AS BLOB) FROM matches WHERE player = ?", (player,)
                ).fetchone()
                if row is None:
                    return None
                data = bytes(row[0] or b"")
                parsed = self._parsed.parsed(player, data)
                if parsed is not None:
                    return parsed
            try:
                match = parse(data)
            except Unreadable as err:
                if self._set_aside(player, data, str(err)):
                    raise Damaged(player, str(err)) from None
                continue  # rewritten or moved aside by someone else meanwhile: read again
            self._parsed.put(player, data, match)
            return match
        raise Conflict(f"the stored match of {player} keeps changing")

    def _set_aside(self, player: str, data: bytes, reason: str) -> bool:
        """Move the row aside if it still holds ``data``; True if this call moved it."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                moved = (
                    self._db.execute(
                        "DELETE FROM matches WHERE player = ? AND CAST(data AS BLOB) = ?",
                        (player, data),
                    ).rowcount
                    == 1
                )
                if moved:
                    self._db.execute(
                        "INSERT INTO damaged_matches (player, data, reason, moved_at)"
                        " VALUES (?, ?, ?, ?)",
                        (player, data, reason, time.time()),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            if moved:
                self._rows -= 1
                self._parsed.drop(player)
        if moved:
            moved_aside(player, reason)
        return moved

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""
        data = orjson.dumps(to_record(match))
        now = time.time()

        def insert() -> tuple[bool, int]:
            self._db.database.may_grow()
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO matches (player, version, data, updated)"
                " VALUES (?, ?, ?, ?)",
                (player, match.version, data.decode(), now),
            )
            return cursor.rowcount == 1, self._trim(keep=player) if cursor.rowcount else 0

        def replace() -> tuple[bool, int]:
            cursor = self._db.execute(
                "UPDATE matches SET version = ?, data = ?, updated = ?"
                " WHERE player = ? AND version = ?",
                (match.version, data.decode(), now, player, expected),
            )
            return cursor.rowcount == 1, 0

        saved, pruned = self._db.write(insert if expected is None else replace)
        self.cap.pruned(pruned)
        if saved:
            self._parsed.put(player, data, match)
        return saved

    def _trim(self, *, keep: str) -> int:
        """Past the cap, delete the longest idle matches (never ``keep``); return how many."""
        self._rows += 1
        over = self._rows - self.cap.limit
        if not self.cap.limit or over <= 0:
            return 0
        deleted = self._db.execute(
            "DELETE FROM matches WHERE player IN (SELECT player FROM matches"
            " WHERE player != ? ORDER BY updated LIMIT ?)",
            (keep, over),
        ).rowcount
        self._rows -= deleted
        return deleted

    def recent(self, player: str) -> Match | None:
        """The match as this process last saved or read it (unread, possibly stale)."""
        return self._parsed.match(player)

    def delete(self, player: str) -> None:
        """Forget the player's match."""
        with self._lock:
            self._rows -= self._db.execute(
                "DELETE FROM matches WHERE player = ?", (player,)
            ).rowcount
            self._parsed.drop(player)

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds`` (and old damaged ones); return how many."""
        now = time.time()
        with self._lock:
            self._db.execute(
                "DELETE FROM damaged_matches WHERE moved_at < ?", (now - DAMAGED_DAYS * 86400,)
            )
            cursor = self._db.execute(
                "DELETE FROM matches WHERE updated < ?", (now - idle_seconds,)
            )
            self._parsed.drop()
            self._rows -= cursor.rowcount
        return cursor.rowcount

    def verify(self) -> str | None:
        """At start-up: SQLite's full ``quick_check``; None, or what it found (logged)."""
        with self._lock, contextlib.closing(self._connect()) as db:
            self._db.database.damage = found = quick_check(db)
        self._checked = time.monotonic()
        if found:
            log.error("%s is damaged (restore a backup): %s", self.path, found)
        return found

    def _connect(self) -> sqlite3.Connection:
        """A new connection, which reads the file as a restarted server would (this
        process's own connection may answer from its cache)."""
        uri = self.path.resolve().as_uri() + "?mode=rw"
        return sqlite3.connect(uri, uri=True, timeout=2, isolation_level=None)

    def check(self) -> str | None:
        """None if the file can be read and written now, else what is wrong.

        A new connection reads the first and last entry of every table and index, then
        writes one row. Damage in the middle of a table is found by the full check that
        runs on a schedule (``full_check``); once damage was seen (at start-up, by any
        statement or by that check), the full check runs again at most every
        ``QUICK_CHECK_SECONDS`` until it passes.
        """
        database = self._db.database
        try:
            with self._lock:
                self._db.execute("SELECT 1").fetchone()
            with contextlib.closing(self._connect()) as db:
                db.execute("PRAGMA synchronous=NORMAL")  # as the store writes: no fsync
                probe_ends(db)
                db.execute("SELECT max(updated) FROM matches").fetchone()
                db.execute(
                    "INSERT OR REPLACE INTO health (id, checked) VALUES (1, ?)", (time.time(),)
                )
        except sqlite3.Error as err:
            return f"SQLite: {err}"
        if database.damage and time.monotonic() - self._checked > QUICK_CHECK_SECONDS:
            self.full_check()
        return f"SQLite: {database.damage}" if database.damage else None

    def full_check(self) -> str | None:
        """SQLite's full ``quick_check`` of the whole file (matches, history, rooms) through
        a new connection, in a thread off the event loop: None, or the damage found,
        which ``check`` then reports until a full check passes. A check already running
        is not started twice."""
        database = self._db.database
        if not self._checking.acquire(blocking=False):
            return database.damage
        try:
            found = off_the_loop(self._quick_check)
        except sqlite3.OperationalError as err:  # busy or away: not a finding about the data
            log.warning("the full check of %s could not run: %s", self.path, err)
            return database.damage
        finally:
            self._checking.release()
        before, database.damage = database.damage, found
        self._checked = time.monotonic()
        if found and found != before:
            log.error("%s is damaged (restore a backup): %s", self.path, found)
        elif before and not found:
            log.warning("%s passes SQLite's quick_check again", self.path)
        return found

    def _quick_check(self) -> str | None:
        try:
            with contextlib.closing(self._connect()) as db:
                return quick_check(db)
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as err:  # not a database, or malformed past reading
            return f"damaged: {err}"

    def count(self) -> int:
        """How many matches are stored."""
        with self._lock:
            return self._rows if self.cap.limit else self._count()

    def size(self) -> tuple[int, int]:
        """The database's bytes in use, and its ceiling's (0: none)."""
        with self._lock:
            return self._db.database.size()

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
            self._parsed.drop()
