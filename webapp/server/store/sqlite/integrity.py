"""Is the SQLite file whole? SQLite's full ``quick_check`` (at start-up, on a schedule in
a thread of its own, and again once damage was seen), and a probe cheap enough for
every health check.

The probe reads the first and the last entry of every table and index: a few pages of
each b-tree whatever its size, which is enough to find a b-tree whose root page was
overwritten (an index written over by a failing disk, say), the damage that let the
server report itself healthy while no player could play.
"""

from __future__ import annotations

import sqlite3

QUICK_CHECK_SECONDS = 60  # a full check again, once damage was seen, at most this often


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quick_check(db: sqlite3.Connection) -> str | None:
    """SQLite's ``quick_check`` of every table and index: None, or its first finding."""
    found = [str(row[0]) for row in db.execute("PRAGMA quick_check").fetchall()]
    return None if found == ["ok"] else "damaged: " + " ".join(found)[:300]


def probe_ends(db: sqlite3.Connection) -> None:
    """Read the first and the last entry of every table and index: a few pages each,
    whatever the size, which raises DatabaseError if a b-tree's root (an index
    overwritten, say) cannot be read."""
    trees = db.execute(
        "SELECT type, name, tbl_name FROM sqlite_master"
        " WHERE type IN ('table', 'index') AND rootpage > 0"
    ).fetchall()
    for kind, name, table in trees:
        if kind == "table":
            ends = f"SELECT rowid FROM {_quoted(table)} ORDER BY rowid"
        else:
            column = _quoted(db.execute(f"PRAGMA index_info({_quoted(name)})").fetchone()[2])
            ends = f"SELECT {column} FROM {_quoted(table)} INDEXED BY {_quoted(name)}"
            ends += f" ORDER BY {column}"
        for order in ("", " DESC"):
            db.execute(ends + order + " LIMIT 1").fetchall()
