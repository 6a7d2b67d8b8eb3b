"""Finished games in the matches' SQLite file (one process): the games, newest
``per_player`` kept for each player, and each player's lifetime counters.

Each player's row of counters also says how many of their games are stored
(``stored``, added to databases of earlier releases when the store opens, and counted
again whenever its sum disagrees with the games stored): past the budget of all
players' games, the player with the most stored loses their oldest, as store/history.py
says, found through an index instead of a count of every game.

Each game against the AI keeps its signed record beside it (``signed``, the envelope's
JSON, stored when the game ends): it is served as stored, never signed again. A
database of an earlier release gains that column when it is opened; its games have
none until they are first asked for (services/signed_history.py)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import cast

import orjson

from webapp.game.history import Entry, counted, games_counted
from webapp.game.signed import Data
from webapp.server.settings import DEFAULTS
from webapp.server.store.interface import Signed, SignedGames, StorageFull, not_kept
from webapp.server.store.sqlite.db import DATABASE_FILE, Handle, open_database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS games ("
    " player TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL UNIQUE,"
    " ended REAL NOT NULL, data TEXT NOT NULL, signed TEXT, PRIMARY KEY (player, key))",
    "CREATE INDEX IF NOT EXISTS games_by_player ON games (player, ended)",
    "CREATE TABLE IF NOT EXISTS game_totals ("
    " player TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS game_totals_by_updated ON game_totals (updated)",
)
# The stored games' count of each player, and the budget's order: most first, then the
# longest idle. Added after SCHEMA, which must still open a database of 0.4.0.
STORED_COLUMN = "ALTER TABLE game_totals ADD COLUMN stored INTEGER NOT NULL DEFAULT 0"
BY_SIZE = "CREATE INDEX IF NOT EXISTS game_totals_by_size ON game_totals (stored DESC, updated)"


def add_signed_column(db: Handle) -> None:
    """Give the games table of a release before 0.5.0 its ``signed`` column (NULL: not
    signed yet); a release before reads and writes its rows as it did."""
    with db.lock:
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)").fetchall()}
        if "signed" not in columns:
            db.execute("ALTER TABLE games ADD COLUMN signed TEXT")


def _envelope(text: str | None) -> Data | None:
    return None if text is None else cast(Data, orjson.loads(text))


class SQLiteHistory(SignedGames):
    """Finished games in the matches' SQLite file (one process)."""

    def __init__(
        self,
        data_dir: str | Path,
        *,
        per_player: int,
        idle_seconds: float,
        budget: int = DEFAULTS["MAX_HISTORY_GAMES"],
        floor: int = DEFAULTS["HISTORY_FLOOR"],
    ) -> None:
        self.per_player, self.idle, self.budget = per_player, idle_seconds, budget
        self.floor = floor
        self._db = open_database(Path(data_dir) / DATABASE_FILE, SCHEMA)
        add_signed_column(self._db)
        self._lock = self._db.lock
        self._rows = int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])
        with self._lock, contextlib.suppress(StorageFull):  # full: counted at the next start
            self._count_stored()

    def _count_stored(self) -> None:
        """Give each player's counters the count of their stored games, where a database
        of an earlier release (or one it wrote to after a rollback) lacks or mistook it."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(game_totals)")}
        if "stored" not in columns:
            self._db.execute(STORED_COLUMN)
        self._db.execute(BY_SIZE)
        counted = self._db.execute("SELECT coalesce(sum(stored), 0) FROM game_totals")
        if int(counted.fetchone()[0]) != self._rows:
            self._db.execute(
                "UPDATE game_totals SET stored ="
                " (SELECT count(*) FROM games WHERE games.player = game_totals.player)"
            )

    def add(self, player: str, key: str, entry: Entry, signed: Data | None = None) -> bool:
        """Store a finished game once (with its signed record), count it, and drop the
        oldest past the cap; a game ended while the data is at its ceiling is not kept
        (the log says so once)."""
        try:
            return self._db.write(lambda: self._insert(player, key, entry, signed))
        except StorageFull:
            not_kept()
            return False

    def _insert(self, player: str, key: str, entry: Entry, signed: Data | None) -> bool:
        self._db.database.may_grow()
        now = time.time()
        row = (player, key, entry["id"], entry["ended"], orjson.dumps(entry).decode())
        inserted = self._db.execute(
            "INSERT OR IGNORE INTO games (player, key, id, ended, data, signed)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (*row, None if signed is None else orjson.dumps(signed).decode()),
        ).rowcount
        if not inserted:
            return False
        totals = counted(self._counters(player), entry)
        dropped = 0
        if games_counted(totals) > self.per_player:  # else fewer are stored: none to drop
            dropped = self._db.execute(
                # Past the newest per_player, read off the (player, ended) index from the
                # top: one short scan, not a set of kept keys.
                "DELETE FROM games WHERE rowid IN (SELECT rowid FROM games WHERE player = ?"
                " ORDER BY ended DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (player, self.per_player),
            ).rowcount
        self._rows += 1 - dropped
        self._db.execute(
            "INSERT INTO game_totals (player, data, updated, stored) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (player) DO UPDATE SET data = excluded.data,"
            " updated = excluded.updated, stored = stored + excluded.stored",
            (player, orjson.dumps(totals).decode(), now, 1 - dropped),
        )
        while self._rows > self.budget and self._drop_from_the_largest():
            pass
        return True

    def _drop_from_the_largest(self) -> bool:
        """Delete the oldest games of the player with the most stored (the longest idle
        among equals), down to the next one's count, the excess or the floor; False if
        every player is down to the floor. Their counters stay."""
        top = self._db.execute(
            "SELECT player, stored FROM game_totals WHERE stored > ?"
            " ORDER BY stored DESC, updated LIMIT 2",
            (self.floor,),
        ).fetchall()
        if not top:
            return False
        (player, stored), level = top[0], top[1][1] if len(top) > 1 else self.floor
        take = max(1, min(self._rows - self.budget, stored - level))
        gone = self._db.execute(
            "DELETE FROM games WHERE rowid IN (SELECT rowid FROM games WHERE player = ?"
            " ORDER BY ended, rowid LIMIT ?)",
            (player, take),
        ).rowcount
        self._rows -= gone
        self._db.execute(
            # Fewer gone than counted: the count was wrong, and is made right.
            "UPDATE game_totals SET stored = CASE WHEN ? = ? THEN stored - ?"
            " ELSE (SELECT count(*) FROM games WHERE player = ?) END WHERE player = ?",
            (gone, take, gone, player, player),
        )
        return True

    def _counters(self, player: str) -> dict[str, int]:
        row = self._db.execute(
            "SELECT data FROM game_totals WHERE player = ?", (player,)
        ).fetchone()
        return {} if row is None else cast(dict[str, int], orjson.loads(row[0]))

    def signed_games(self, player: str) -> list[Signed]:
        """The player's stored games, newest first, each with its stored signed record."""
        with self._lock:
            rows = self._db.execute(
                "SELECT data, signed FROM games WHERE player = ? ORDER BY ended DESC, rowid DESC",
                (player,),
            ).fetchall()
        return [(orjson.loads(data), _envelope(signed)) for data, signed in rows]

    def signed_game(self, game_id: str) -> tuple[str, Signed] | None:
        """A game by its share id, with its player and its stored signed record."""
        with self._lock:
            row = self._db.execute(
                "SELECT player, data, signed FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            return None
        return str(row[0]), (orjson.loads(row[1]), _envelope(row[2]))

    def keep_signed(self, game_id: str, signed: Data) -> bool:
        """Store the signed record of a game stored without one (or signed by a key no
        longer published); False if the game is gone."""
        text = orjson.dumps(signed).decode()
        try:
            done = self._db.write(
                lambda: (
                    self._db.execute(
                        "UPDATE games SET signed = ? WHERE id = ?", (text, game_id)
                    ).rowcount
                )
            )
        except StorageFull:  # served signed all the same, and signed again next time
            return False
        return bool(done)

    def counters(self, player: str) -> dict[str, int]:
        """The player's lifetime counters."""
        with self._lock:
            return self._counters(player)

    def forget(self, player: str) -> int:
        """Delete the player's games and counters; return how many games."""
        with self._lock:
            gone = self._db.execute("DELETE FROM games WHERE player = ?", (player,)).rowcount
            self._db.execute("DELETE FROM game_totals WHERE player = ?", (player,))
            self._rows -= gone
        return int(gone)

    def prune(self) -> int:
        """Delete the history of players idle for longer than the idle time."""
        since = time.time() - self.idle
        with self._lock:
            self._db.execute("DELETE FROM game_totals WHERE updated < ?", (since,))
            gone = self._db.execute(
                "DELETE FROM games WHERE player NOT IN (SELECT player FROM game_totals)"
            ).rowcount
            self._rows -= gone
        return int(gone)

    def count(self) -> int:
        """How many finished games are stored, all players together."""
        return self._rows

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
