"""The SQLite store: round trips, compare-and-set, durability, pruning and old rows."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from webapp.game import match as matches
from webapp.server.store import Conflict, SQLiteStore, update

ROWS_0_1_0 = [
    json.loads(line)
    for line in (Path(__file__).parent / "fixtures" / "matches-0.1.0.jsonl")
    .read_text()
    .splitlines()
    if line.strip()
]


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "matches.sqlite3")


def fresh(seed: int = 1) -> matches.Match:
    return matches.new_match(random.Random(seed))


def test_missing_player_loads_none(store: SQLiteStore) -> None:
    assert store.load("nobody") is None


def test_saved_match_loads_equal(store: SQLiteStore) -> None:
    match = fresh()
    assert store.save("p1", match, expected=None)
    assert store.load("p1") == match


def test_insert_only_once(store: SQLiteStore) -> None:
    assert store.save("p1", fresh(1), expected=None)
    assert not store.save("p1", fresh(2), expected=None)
    assert store.load("p1") == fresh(1)


def test_compare_and_set_refuses_a_stale_version(store: SQLiteStore) -> None:
    first = fresh()
    store.save("p1", first, expected=None)
    newer = matches.new_match(random.Random(3), version=first.version)
    assert store.save("p1", newer, expected=first.version)
    stale = matches.new_match(random.Random(4), version=first.version)
    assert not store.save("p1", stale, expected=first.version)
    assert store.load("p1") == newer


def test_update_creates_then_changes(store: SQLiteStore) -> None:
    created = update(store, "p1", lambda current: current or fresh())
    again = update(store, "p1", lambda current: current or fresh(9))
    assert again == created
    moved = update(store, "p1", lambda m: matches.new_match(random.Random(2), version=m.version))
    assert moved.version == created.version + 1
    assert store.load("p1") == moved


def test_update_gives_up_when_it_keeps_losing(store: SQLiteStore) -> None:
    store.save("p1", fresh(), expected=None)

    def interfering(current: matches.Match | None) -> matches.Match:
        assert current is not None
        # Another writer commits between this read and our write, every time.
        bumped = matches.new_match(random.Random(5), version=current.version)
        store.save("p1", bumped, expected=current.version)
        return matches.new_match(random.Random(6), version=current.version)

    with pytest.raises(Conflict):
        update(store, "p1", interfering, attempts=3)


def test_matches_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    first = SQLiteStore(path)
    first.save("p1", fresh(), expected=None)
    # No close: a crashed process never gets to close its connection.
    assert SQLiteStore(path).load("p1") == fresh()


def test_database_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    SQLiteStore(path)
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_prune_removes_only_idle_matches(store: SQLiteStore) -> None:
    store.save("old", fresh(), expected=None)
    time.sleep(0.05)
    store.save("new", fresh(), expected=None)
    assert store.prune(idle_seconds=0.03) == 1
    assert store.load("old") is None
    assert store.load("new") is not None


# --- rows written by earlier releases --------------------------------------------------


def insert_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write rows into the matches table as an earlier release did."""
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO matches (player, version, data, updated) VALUES (?, ?, ?, ?)",
            [(row["player"], row["version"], row["data"], row["updated"]) for row in rows],
        )


def stored_record(path: Path, player: str) -> dict[str, Any]:
    with sqlite3.connect(path) as db:
        (data,) = db.execute("SELECT data FROM matches WHERE player = ?", (player,)).fetchone()
    record: dict[str, Any] = json.loads(data)
    return record


def test_old_rows_are_only_rewritten_when_changed(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    insert_rows(path, ROWS_0_1_0)
    store = SQLiteStore(path)
    for row in ROWS_0_1_0:
        assert store.load(row["player"]) is not None
        assert update(store, row["player"], lambda m: m) == store.load(row["player"])
        assert stored_record(path, row["player"]) == json.loads(row["data"])
