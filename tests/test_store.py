"""The stores: round trips, compare-and-set, durability, pruning, old rows and the size cap;
nothing stored for a visitor until they act, and new players limited per address."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of, states
from support.testing import Player, ServerProcess, early_in_a_clock_minute, session_cookie

from webapp.game import match as matches
from webapp.game.rules import MatchError
from webapp.server.app import create_app
from webapp.server.limits.shared_counts import LocalTally
from webapp.server.pages.routes import NewPlayers
from webapp.server.store.matches import DATABASE_FILE, Conflict, RedisStore, SQLiteStore, update

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

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


def test_update_starts_from_the_known_value_and_rechecks_what_it_refuses(
    store: SQLiteStore,
) -> None:
    stored = fresh()
    store.save("p1", stored, expected=None)
    newer = matches.new_match(random.Random(3), version=stored.version)
    store.save("p1", newer, expected=stored.version)
    seen: list[int] = []

    def refuse_the_old_one(current: matches.Match | None) -> matches.Match:
        assert current is not None
        seen.append(current.version)
        if current.version == stored.version:
            raise MatchError("not_your_turn", "decided on a stale value")
        return matches.new_match(random.Random(4), version=current.version)

    # The refusal was made on a stale value, never read: it is decided again on a read.
    changed = update(store, "p1", refuse_the_old_one, known=stored)
    assert seen == [stored.version, newer.version]
    assert changed.version == newer.version + 1 and store.load("p1") == changed
    # A write made on a stale known value is refused by compare-and-set, then redone.
    seen.clear()

    def renew(current: matches.Match | None) -> matches.Match:
        assert current is not None
        seen.append(current.version)
        return matches.new_match(random.Random(5), version=current.version)

    redone = update(store, "p1", renew, known=newer)
    assert seen == [newer.version, changed.version] and redone.version == changed.version + 1
    # No change on the known value is not final either; on the read value it is.
    unchanged = update(store, "p1", lambda current: current or fresh(), known=changed)
    assert unchanged == redone


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


# --- the schema, kept compatible ------------------------------------------------------


OLD_SCHEMA = (
    "CREATE TABLE matches (player TEXT PRIMARY KEY, version INTEGER NOT NULL,"
    " data TEXT NOT NULL, updated REAL NOT NULL)"
)


def test_a_database_of_an_earlier_release_opens_and_gains_the_new_tables(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    (row,) = [r for r in ROWS_0_1_0 if r["player"] == "adaptive-ai-to-move"]
    with sqlite3.connect(path) as db:
        db.execute(OLD_SCHEMA)  # exactly what releases up to 0.2.0 created
        db.execute(
            "INSERT INTO matches VALUES (?, ?, ?, ?)",
            (row["player"], row["version"], row["data"], row["updated"]),
        )
    store = SQLiteStore(path)
    loaded = store.load(row["player"])
    assert loaded is not None and loaded.version == row["version"]
    with sqlite3.connect(path) as db:
        names = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert {"matches", "damaged_matches", "health", "matches_by_updated"} <= names
    store.close()
    assert SQLiteStore(path).load(row["player"]) == loaded  # and opens again as it is


def test_check_reads_and_writes_through_a_new_connection(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    store = SQLiteStore(path)
    assert store.check() is None
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM health").fetchone() == (1,)
    store.save("p1", fresh(), expected=None)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path.write_bytes(b"garbage" * (path.stat().st_size // 7 + 1))
    assert store.load("p1") is not None  # this connection still answers from its cache
    reason = store.check()
    assert reason is not None and reason.startswith("SQLite: ") and "not a database" in reason


# --- the size cap -----------------------------------------------------------------------


def set_updated(path: Path, **updated: float) -> None:
    """Give rows their last-change times, to make who is longest idle certain."""
    with sqlite3.connect(path) as db:
        for player, when in updated.items():
            db.execute("UPDATE matches SET updated = ? WHERE player = ?", (when, player))


def players_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {player for (player,) in db.execute("SELECT player FROM matches")}


def full_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "TICTACTOE_MAX_MATCHES" in r.getMessage()]


def test_past_the_cap_the_longest_idle_go_first_and_the_log_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.sqlite3"
    store = SQLiteStore(path, max_matches=3)
    caplog.set_level(logging.WARNING)
    for player in ("a", "b", "c"):
        assert store.save(player, fresh(), expected=None)
    set_updated(path, a=300, b=100, c=200)  # b is the longest idle, then c
    assert full_lines(caplog) == []
    assert store.save("d", fresh(), expected=None)
    assert players_in(path) == {"a", "c", "d"}
    assert store.load("b") is None
    assert store.save("e", fresh(), expected=None)
    assert players_in(path) == {"a", "d", "e"}
    # A change to a stored match is no new match: nothing goes.
    moved = matches.new_match(random.Random(2), version=fresh().version)
    assert store.save("a", moved, expected=fresh().version)
    assert players_in(path) == {"a", "d", "e"}
    assert len(full_lines(caplog)) == 1


def test_the_cap_counts_the_rows_already_stored(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    first = SQLiteStore(path)
    for index in range(5):
        first.save(f"p{index}", fresh(), expected=None)
    set_updated(path, **{f"p{index}": float(index) for index in range(5)})
    first.close()
    SQLiteStore(path, max_matches=3).save("new", fresh(), expected=None)
    assert players_in(path) == {"p3", "p4", "new"}


def test_no_cap_keeps_every_match(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    store = SQLiteStore(path, max_matches=0)
    for index in range(50):
        store.save(f"p{index}", fresh(), expected=None)
    assert len(players_in(path)) == 50


@pytest.mark.server
def test_the_cap_setting_reaches_the_store(tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "MAX_MATCHES": 2}
    )
    players = []
    for _ in range(3):
        client = app.test_client()
        client.get("/")
        play = Actions(connect(app, client))
        play.new_match()  # acting stores the match
        players.append(player_of(client))
        set_updated(tmp_path / "matches.sqlite3", **{players[-1]: float(len(players))})
    assert players_in(tmp_path / "matches.sqlite3") == set(players[1:])


def test_redis_cap_drops_the_longest_idle_and_forgets_expired_players(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    plain = redis.Redis.from_url(redis_url)
    store = RedisStore(redis_url, idle_seconds=3600, max_matches=3)
    caplog.set_level(logging.WARNING)
    for player in ("a", "b", "c"):
        assert store.save(player, fresh(), expected=None)
    now = plain.time()[0]
    plain.zadd("tictactoe:matches", {"a": now, "b": now - 20, "c": now - 10})  # b idle longest
    assert store.save("d", fresh(), expected=None)
    assert store.load("b") is None and store.load("a") is not None
    assert store.save("e", fresh(), expected=None)
    assert store.load("c") is None
    assert {m.decode() for m in plain.zrange("tictactoe:matches", 0, -1)} == {"a", "d", "e"}
    # An entry whose match expired long ago is forgotten, not counted.
    plain.zadd("tictactoe:matches", {"gone": now - 7200})
    assert store.save("f", fresh(), expected=None)
    assert {m.decode() for m in plain.zrange("tictactoe:matches", 0, -1)} == {"d", "e", "f"}
    assert len(full_lines(caplog)) == 1


# --- nothing stored until a player acts ----------------------------------------------


def stored_count(app: Flask) -> int:
    with sqlite3.connect(Path(app.config["DATA_DIR"]) / DATABASE_FILE) as db:
        return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])


@pytest.mark.server
@pytest.mark.fresh_server  # counts every stored match
def test_connecting_stores_the_match_shown_once_and_hints_store_one_mark(
    app: Flask, client: FlaskClient
) -> None:
    # Its seeds are drawn at random, so the first tab stores it for every other to show.
    # A hint on the player's move in an HP game marks that move, once: one version more.
    shown = []
    for _ in range(3):
        sock = connect(app, client)
        shown.append(states(sock)[-1])
        assert sock.emit("hint", callback=True)["ok"]
        sock.disconnect()
    assert shown[0]["status"] == "playing" and shown[0]["turn"] == "human"
    assert shown[1] == shown[2] == {**shown[0], "version": shown[0]["version"] + 1}
    stored = app.extensions["tictactoe"].store.load(player_of(client))
    assert stored is not None and stored.version == shown[1]["version"]
    assert stored.game.hinted == (len(stored.game.history),)
    assert stored_count(app) == 1


@pytest.mark.parametrize("first", ["human", "ai"])
@pytest.mark.server
@pytest.mark.fresh_server  # counts every stored match
def test_the_first_move_stores_the_match_that_was_shown(app: Flask, first: str) -> None:
    client = as_new_player(app, first)
    play = Actions(connect(app, client))
    shown = play.state
    assert shown["first"] == first and shown["turn"] == "human"
    assert shown["version"] == (2 if first == "ai" else 1)
    assert [h["by"] for h in shown["history"]] == (["ai"] if first == "ai" else [])
    assert Actions(connect(app, client)).state == shown  # every tab, every reload
    cell = shown["board"].index(".")
    play.play([cell])
    stored = app.extensions["tictactoe"].store.load(player_of(client))
    assert stored is not None and stored.version == shown["version"] + 2
    history = [{"by": side, "cell": c} for side, c in stored.game.history]
    assert history[: len(shown["history"]) + 1] == [
        *shown["history"],
        {"by": "human", "cell": cell},
    ]
    assert stored_count(app) == 1


@pytest.mark.server
def test_other_processes_show_the_same_fresh_match(app: Flask, client: FlaskClient) -> None:
    shown = Actions(connect(app, client)).state
    other = create_app(dict(app.config))  # another process on the same key and data dir
    visitor = other.test_client()
    with visitor.session_transaction() as session:
        session["player"] = player_of(client)
    assert Actions(connect(other, visitor)).state == shown


def test_fresh_matches_differ_between_players(app: Flask) -> None:
    service = app.extensions["tictactoe"]
    fresh = [service.fresh(f"player-{index}") for index in range(40)]
    assert {match.game.first for match in fresh} == {"human", "ai"}
    assert len({match.game.dice.server_seed for match in fresh}) == 40


@pytest.mark.server
def test_two_tabs_racing_the_first_move_store_one_match(app: Flask, client: FlaskClient) -> None:
    tab_a, tab_b = Actions(connect(app, client)), Actions(connect(app, client))
    empty = [i for i, c in enumerate(tab_a.state["board"]) if c == "."]
    assert tab_a.emit("move", {"cell": empty[0]}) == {"ok": True}
    ack = tab_b.emit("move", {"cell": empty[1]})
    assert ack["ok"] or ack["error"]["code"] in {"cell_taken", "game_over"}
    assert tab_b.state["history"][: len(tab_a.state["history"])] == tab_a.state["history"]


def as_new_player(app: Flask, first: str) -> FlaskClient:
    """A browser whose player was given a fresh match in which ``first`` plays first."""
    service = app.extensions["tictactoe"]
    player = f"new-{first}"
    fresh = next(m for m in iter(lambda: service.fresh(player), None) if m.game.first == first)
    assert service.store.save(player, fresh, expected=None)
    client = app.test_client()
    with client.session_transaction() as session:
        session["player"] = player
    return client


# --- new players limited per client address ------------------------------------------


def limited_app(tmp_path: Path, per_minute: int = 3, **settings: Any) -> Flask:
    early_in_a_clock_minute()  # a test's new players in one minute's count
    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "NEW_PLAYERS_PER_MINUTE": per_minute}
    return create_app({**config, **settings})


def page_from(app: Flask, address: str, client: FlaskClient | None = None, **headers: str) -> Any:
    browser = client or app.test_client()
    return browser.get("/", environ_base={"REMOTE_ADDR": address}, headers=headers)


def test_new_players_per_address_are_limited(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_minute=3)
    returning = app.test_client()
    assert page_from(app, "10.0.0.1", returning).status_code == 200
    for _ in range(2):
        assert page_from(app, "10.0.0.1").status_code == 200
    refused = page_from(app, "10.0.0.1")
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "Set-Cookie" not in refused.headers
    assert "Too many new players" in refused.get_data(as_text=True)
    assert page_from(app, "10.0.0.1", returning).status_code == 200  # known players come in
    assert page_from(app, "10.0.0.2").status_code == 200  # other addresses too


def test_an_ipv6_address_counts_by_its_64_network(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_minute=2)
    assert page_from(app, "2001:db8:1:2::1").status_code == 200
    assert page_from(app, "2001:db8:1:2:ffff::9").status_code == 200
    assert page_from(app, "2001:db8:1:2::abcd").status_code == 429
    assert page_from(app, "2001:db8:1:3::1").status_code == 200


def test_behind_a_trusted_proxy_the_forwarded_address_counts(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_minute=1, TRUST_PROXY=True)
    forwarded = {"X-Forwarded-For": "203.0.113.7"}
    assert page_from(app, "127.0.0.1", **forwarded).status_code == 200
    assert page_from(app, "127.0.0.1", **forwarded).status_code == 429
    assert page_from(app, "127.0.0.1", **{"X-Forwarded-For": "203.0.113.8"}).status_code == 200


def test_zero_means_no_limit_on_new_players(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_minute=0)
    assert {page_from(app, "10.0.0.1").status_code for _ in range(50)} == {200}


def test_the_count_starts_again_each_minute() -> None:
    now = [120.0]
    tally = LocalTally(clock=lambda: now[0])
    limit = NewPlayers(2, tally)
    assert [limit.retry_after("a") for _ in range(3)] == [0.0, 0.0, 60.0]
    now[0] = 150.0
    assert limit.retry_after("a") == 30.0
    now[0] = 180.0
    assert limit.retry_after("a") == 0.0
    assert list(tally.counts.values()) == [1]  # the last minute's addresses are forgotten


def test_real_server_limits_new_players(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="2")
    early_in_a_clock_minute()  # the three new players in one minute's count
    cookie = session_cookie(server.url)
    session_cookie(server.url)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server.url + "/")
    assert refused.value.code == 429
    player = Player(server.url, cookie)  # a player already known plays on
    assert player.wait_for(lambda s: s["turn"] == "human")
    player.close()


def run_script(script: str, *args: str) -> str:
    """What ``script`` prints, run in a process of its own (gevent patches all of it)."""
    found = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr[-2000:]
    return found.stdout


GROUP_COMMIT = """
from gevent import monkey

monkey.patch_all()
import json, sqlite3, sys
from pathlib import Path

import gevent

from webapp.server.store.sqlite.db import open_database

path = sys.argv[1]
db = open_database(Path(path), ("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v INTEGER)",))
commits = []
commit = db.database._commit
db.database._commit = lambda: (commits.append(1), commit())
seen = []

def writer(i):
    def change():
        db.execute("INSERT INTO t VALUES (?, ?)", (f"k{i}", i))
        if i == 7:
            raise ValueError("refused")
        return i

    try:
        assert db.write(change) == i
    except ValueError:
        return
    # Returned: committed, so another connection (a restarted server) reads it.
    with sqlite3.connect(path) as other:
        seen.append(other.execute("SELECT count(*) FROM t WHERE k = ?", (f"k{i}",)).fetchone()[0])

gevent.joinall([gevent.spawn(writer, i) for i in range(50)])
with sqlite3.connect(path) as other:
    rows = sorted(row[0] for row in other.execute("SELECT k FROM t"))
print(json.dumps({"commits": len(commits), "seen": seen, "rows": rows}))
"""


def test_writes_of_one_turn_share_a_commit_and_return_only_once_committed(
    tmp_path: Path,
) -> None:
    result = json.loads(run_script(GROUP_COMMIT, str(tmp_path / "group.sqlite3")))
    assert result["seen"] == [1] * 49  # every write that returned was already durable
    assert result["rows"] == sorted(f"k{i}" for i in range(50) if i != 7)  # a refused one
    assert 1 <= result["commits"] < 49  # the writes shared their commits


REDIS_PIPELINE = """
from gevent import monkey

monkey.patch_all()
import json, random, sys

import gevent
import redis

from webapp.game.match import new_match
from webapp.server.store.redis.matches import RedisStore

url = sys.argv[1]
store = RedisStore(url, idle_seconds=60)
plain = redis.Redis.from_url(url)
first = {i: new_match(random.Random(i)) for i in range(50)}
for i in range(50):
    assert store.save(f"p{i}", first[i], expected=None)
plain.script_flush()  # as after a restart of Redis: the script is loaded again
plain.set("tictactoe:match:p9", "not a hash")
sent = store._pipeliner.pipelines
results, seen = {}, {}

def saver(i):
    newer = new_match(random.Random(100 + i), version=first[i].version)
    expected = first[i].version + (1 if i == 7 else 0)  # p7 expects a version never stored
    try:
        results[i] = store.save(f"p{i}", newer, expected=expected)
    except redis.ResponseError as err:
        results[i] = str(err)
        return
    if not results[i]:
        return
    # Returned: Redis has answered, so another client reads what was saved.
    seen[i] = int(plain.hget(f"tictactoe:match:p{i}", "version")) == newer.version

gevent.joinall([gevent.spawn(saver, i) for i in range(50)])
sent = store._pipeliner.pipelines - sent
print(json.dumps({"results": results, "seen": seen, "pipelines": sent}))
"""


def test_redis_saves_of_one_turn_share_a_pipeline_each_compared_and_set(redis_url: str) -> None:
    result = json.loads(run_script(REDIS_PIPELINE, redis_url))
    results = {int(i): saved for i, saved in result["results"].items()}
    assert results[7] is False  # refused alone: its expected version is not the stored one
    assert "WRONGTYPE" in results[9]  # a key of the wrong type fails that save alone
    assert all(results[i] is True for i in range(50) if i not in (7, 9))
    assert result["seen"] == {str(i): True for i in range(50) if i not in (7, 9)}
    assert 1 <= result["pipelines"] < 48  # the saves shared their pipelines


REDIS_RECONNECT = """
from gevent import monkey

monkey.patch_all()
import random, sys

import gevent
import redis

from webapp.game.match import new_match
from webapp.server.store.redis.matches import RedisStore

url = sys.argv[1]
store = RedisStore(url, idle_seconds=60)
match = new_match(random.Random(1))
assert gevent.spawn(store.save, "p", match, expected=None).get()
redis.Redis.from_url(url).client_kill_filter(_type="normal")  # as a restart of Redis would
assert gevent.spawn(store.save, "q", match, expected=None).get()
print("saved")
"""


def test_redis_saves_go_on_after_redis_closed_the_pipelines_connection(redis_url: str) -> None:
    assert run_script(REDIS_RECONNECT, redis_url).strip() == "saved"
