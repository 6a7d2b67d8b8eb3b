"""Matches in one SQLite file (one server process): WAL, compare-and-set, a size cap.

SQLite stays the only source of truth: every load reads the row. Kept in memory is
only the parsed form of the rows seen lately (storage.Recent), reused while the row's
bytes are exactly the bytes it was parsed from, which saves rebuilding the match on
every event, and offered unread to a change, which compare-and-set then checks.

The schema is only ever added to (``CREATE ... IF NOT EXISTS``), so a database written
by any earlier release opens as it is: ``damaged_matches`` keeps the rows that could not
be read (for ``DAMAGED_DAYS``), ``health`` the health check's last write.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import orjson

from ..game.match import Match
from ..game.records import to_record
from .datadir import private_file
from .integrity import QUICK_CHECK_SECONDS, probe_ends, quick_check
from .storage import (
    DAMAGED_DAYS,
    RECENT_ROWS,
    Cap,
    Conflict,
    Damaged,
    Recent,
    StorageFull,
    Unreadable,
    moved_aside,
    parse,
)

log = logging.getLogger("webapp.server.store")
DATABASE_FILE = "matches.sqlite3"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS matches ("
    " player TEXT PRIMARY KEY, version INTEGER NOT NULL,"
    " data TEXT NOT NULL, updated REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS matches_by_updated ON matches (updated)",
    "CREATE TABLE IF NOT EXISTS damaged_matches ("
    " player TEXT NOT NULL, data BLOB, reason TEXT NOT NULL, moved_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS health (id INTEGER PRIMARY KEY, checked REAL NOT NULL)",
)


T = TypeVar("T")
MB = 1 << 20
# New rows are refused once this share of the ceiling is used, so that the players
# already stored keep playing in the rest; SQLite's own max_page_count is the hard stop.
NEW_ROWS_SHARE = 0.98


def _full(err: sqlite3.Error) -> bool:
    return getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL


def gevent_hub() -> Any:
    """gevent's hub when this process runs on gevent (the server), else None (threads)."""
    if "gevent" not in sys.modules:
        return None
    import gevent
    import gevent.monkey

    return gevent.get_hub() if gevent.monkey.is_module_patched("threading") else None


class _Batch:
    """The writes sharing one commit: their wait, and the commit's error if it failed."""

    def __init__(self) -> None:
        from gevent.event import Event

        self._event = Event()
        self.error: Exception | None = None

    def wait(self) -> None:
        self._event.wait()

    def done(self) -> None:
        self._event.set()


class Database:
    """One connection to a database file, shared by every store in that file, and the
    lock they each take around it.

    The matches, the history and the rooms live in one file. With a connection each,
    every commit by one made the others read their pages again (SQLite drops a
    connection's page cache when another connection writes); with one, the pages stay
    cached. ``close`` closes the connection once the last store using it is closed.

    Under gevent, the writes made in one turn of the event loop share one commit
    (``write``): each runs in its own savepoint of the open transaction, and returns
    only once that transaction is committed, so nothing is acknowledged before it is
    durable. Any other statement waits for the open transaction to commit first
    (``settle``), so nothing reads what is not yet committed.
    """

    _open: ClassVar[dict[str, Database]] = {}
    _guard = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.key = str(path.resolve())
        self.lock = threading.RLock()
        self.users = 0
        private_file(path)  # before SQLite creates it with the umask's mode
        self.connection = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        # WAL with synchronous=NORMAL keeps every committed write across a crash of the
        # process (only a power cut can lose the last ones) and keeps writes cheap.
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA busy_timeout=5000")
        self._batch: _Batch | None = None  # the transaction open for this turn's writes
        self._writing = False  # a write's own statements run inside the open transaction
        self.max_pages = 0  # the ceiling (TICTACTOE_MAX_DATA_MB) in pages; 0: none
        self.damage: str | None = None  # what a statement or a check found damaged

    def execute(self, sql: str, parameters: tuple[object, ...] = ()) -> sqlite3.Cursor:
        """Run one statement on the shared connection, outside any open batch; a write
        past the ceiling raises StorageFull, and SQLite has undone it."""
        if not self._writing:
            self.settle()
        try:
            return self.connection.execute(sql, parameters)
        except sqlite3.DatabaseError as err:
            if _full(err):
                raise StorageFull() from None
            if getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_CORRUPT:
                self.damage = str(err)  # /healthz fails until a full check passes
            raise

    def limit_size(self, megabytes: int) -> None:
        """Let the file grow to ``megabytes`` at most (SQLite's ``max_page_count``)."""
        page = int(self.connection.execute("PRAGMA page_size").fetchone()[0])
        wanted = max(1, megabytes * MB // page)
        # A file already larger keeps its size: SQLite sets no ceiling under it.
        found = self.connection.execute(f"PRAGMA max_page_count = {wanted}").fetchone()
        self.max_pages = int(found[0])

    def size(self) -> tuple[int, int]:
        """The bytes in use (free pages left out) and the ceiling's (0: none)."""
        page = int(self.connection.execute("PRAGMA page_size").fetchone()[0])
        pages = int(self.connection.execute("PRAGMA page_count").fetchone()[0])
        free = int(self.connection.execute("PRAGMA freelist_count").fetchone()[0])
        return (pages - free) * page, self.max_pages * page

    def may_grow(self) -> None:
        """Refuse a new row (StorageFull) when the data is near its ceiling."""
        used, ceiling = self.size()
        if ceiling and used >= ceiling * NEW_ROWS_SHARE:
            raise StorageFull()

    def settle(self) -> None:
        """Wait until the writes of this turn are committed."""
        while self._batch is not None:
            self._batch.wait()

    def write(self, change: Callable[[], T]) -> T:
        """Run ``change``'s statements as one transaction (under gevent, a savepoint of the
        turn's shared one); its result once committed."""
        hub = gevent_hub()
        with self.lock:
            if hub is None:  # threads: a transaction of its own
                self.execute("BEGIN IMMEDIATE")
                self._writing = True
                try:
                    result = change()
                    self.connection.execute("COMMIT")
                except BaseException:
                    if self.connection.in_transaction:  # SQLite may have ended it (full)
                        self.connection.execute("ROLLBACK")
                    raise
                finally:
                    self._writing = False
                return result
            batch = self._batch
            if batch is None:
                self.settle()
                self.connection.execute("BEGIN IMMEDIATE")
                batch = self._batch = _Batch()
                hub.loop.run_callback(self._commit)
            self._writing = True
            try:
                self.connection.execute("SAVEPOINT write")
                try:
                    result = change()
                except BaseException as err:
                    self._undo(batch, err)
                    raise
                self.connection.execute("RELEASE write")
            finally:
                self._writing = False
        batch.wait()
        if batch.error is not None:
            raise batch.error
        return result

    def _undo(self, batch: _Batch, err: BaseException) -> None:
        """Undo a failed write's savepoint. Past the ceiling SQLite may have rolled back
        the whole turn's transaction: then every write of the turn fails with the error."""
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK TO write")
            self.connection.execute("RELEASE write")
            return
        self._batch = None
        batch.error = err if isinstance(err, Exception) else StorageFull()
        batch.done()

    def _commit(self) -> None:
        """At the end of the turn (in the event loop): commit every write made in it."""
        batch, self._batch = self._batch, None
        if batch is None:
            return
        try:
            self.connection.execute("COMMIT")
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                self.connection.execute("ROLLBACK")
            batch.error = err
        batch.done()

    def close(self) -> None:
        """One store is done with it: the last one closes the connection."""
        with Database._guard:
            self.users -= 1
            if self.users > 0:
                return
            Database._open.pop(self.key, None)
        with self.lock:
            self.settle()
            self.connection.close()


class Handle:
    """One store's use of a shared ``Database``: its statements and its lock; closing it
    (once) lets the database close when no store uses it any more."""

    def __init__(self, database: Database) -> None:
        self.database, self.lock, self.closed = database, database.lock, False

    def execute(self, sql: str, parameters: tuple[object, ...] = ()) -> sqlite3.Cursor:
        """Run one statement on the shared connection."""
        return self.database.execute(sql, parameters)

    def write(self, change: Callable[[], T]) -> T:
        """Run ``change``'s statements as one durable write (``Database.write``)."""
        return self.database.write(change)

    def close(self) -> None:
        """This store is done with the database."""
        if not self.closed:
            self.closed = True
            self.database.close()


def open_database(path: Path, schema: tuple[str, ...]) -> Handle:
    """The shared connection to the private database file at ``path``, ``schema`` in place."""
    with Database._guard:
        database = Database._open.get(str(path.resolve()))
        if database is None:
            database = Database._open[str(path.resolve())] = Database(path)
        database.users += 1
    with database.lock:
        for statement in schema:
            database.execute(statement)
    return Handle(database)


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
        writes one row. Once damage was seen (at start-up, or by any statement), a full
        ``quick_check`` runs again at most every ``QUICK_CHECK_SECONDS`` until it passes.
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
                if database.damage and time.monotonic() - self._checked > QUICK_CHECK_SECONDS:
                    self._checked = time.monotonic()
                    database.damage = quick_check(db)
        except sqlite3.Error as err:
            return f"SQLite: {err}"
        return f"SQLite: {database.damage}" if database.damage else None

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
