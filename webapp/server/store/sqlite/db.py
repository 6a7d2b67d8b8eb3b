"""The one SQLite connection per database file that its stores share, and its writes.

The matches, the history and the rooms live in one file (``DATABASE_FILE``), through
one connection (``open_database``): WAL, a size ceiling, and under gevent the writes of
one turn of the event loop in one commit (``Database.write``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from webapp.server.store.datadir import private_file
from webapp.server.store.interface import StorageFull

DATABASE_FILE = "matches.sqlite3"
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


def off_the_loop(work: Callable[[], T]) -> T:
    """``work``'s result, run in a thread of gevent's pool when on gevent (SQLite lets go
    of the GIL while it reads), so that the event loop serves players meanwhile; else
    here."""
    hub = gevent_hub()
    return work() if hub is None else hub.threadpool.apply(work)


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
        self.page_size = 0  # read by the first ``size``
        self.damage: str | None = None  # what a statement or a check found damaged
        self._sized: tuple[_Batch | None, tuple[int, int]] = (None, (0, 0))  # ``may_grow``'s

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
        if not self.page_size:  # fixed once the file is in WAL mode: read once
            self.page_size = int(self.connection.execute("PRAGMA page_size").fetchone()[0])
        page = self.page_size
        pages = int(self.connection.execute("PRAGMA page_count").fetchone()[0])
        free = int(self.connection.execute("PRAGMA freelist_count").fetchone()[0])
        return (pages - free) * page, self.max_pages * page

    def may_grow(self) -> None:
        """Refuse a new row (StorageFull) when the data is near its ceiling: measured once
        a turn's transaction (its writes add a few pages at most; SQLite's own ceiling
        stops the rest)."""
        batch = self._batch
        if batch is None or self._sized[0] is not batch:
            self._sized = (batch, self.size())
        used, ceiling = self._sized[1]
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
