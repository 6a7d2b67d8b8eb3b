"""Storage with a ceiling: every table a stranger can grow has a cap and a pruning rule,
on SQLite and on Redis alike, and /healthz says how close each one is."""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, browser, connect, make_app, player_of
from support.testing import Player, ServerProcess, answering, session_cookie, wait_until

from webapp.game.history import finished_game, games_counted
from webapp.game.match import ai_move, human_move, new_match
from webapp.game.room import open_room
from webapp.server.process.worker_tasks import prune
from webapp.server.store.history import RedisHistory, open_history
from webapp.server.store.matches import RedisStore, SQLiteStore, StorageFull
from webapp.server.store.rooms import RedisRooms
from webapp.server.store.sqlite.db import open_database

ORIGIN = {"Origin": "http://localhost"}
STORES = ["sqlite", "redis"]


def new_room(web: FlaskClient) -> tuple[int, str]:
    """Press "Play a friend": the status, and the room's id or the refusal's code."""
    reply = web.post("/r", headers=ORIGIN)
    if reply.status_code == 303:
        return 303, str(reply.headers["Location"]).rsplit("/", 1)[1]
    found = reply.get_data(as_text=True).split('data-code="', 1)[1].split('"', 1)[0]
    return reply.status_code, found


def code(ack: dict[str, Any]) -> str | None:
    return None if ack.get("ok") else ack["error"]["code"]


# --- rooms ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.server
def test_open_rooms_have_a_global_cap(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = make_app(kind, tmp_path, request, MAX_ROOMS=4, MAX_ROOMS_PER_PLAYER=2)
    hosts = [browser(app) for _ in range(3)]
    made = [new_room(host) for host in hosts for _ in range(2)]
    assert [status for status, _ in made] == [303] * 4 + [503] * 2
    assert {found for _, found in made[4:]} == {"rooms_full"}
    assert app.extensions["rooms"].store.count() == 4
    # The one-device room is a room too: refused the same way, with a clear ack.
    sock = connect(app, hosts[2])
    assert code(sock.emit("room_join", {"room": "local"}, callback=True)) == "rooms_full"
    # A room that ends (everyone leaves) makes room for a new one.
    first = connect(app, hosts[0])
    room = made[0][1]
    assert code(first.emit("room_join", {"room": room}, callback=True)) is None
    assert code(first.emit("room_leave", {"room": room}, callback=True)) is None
    assert new_room(hosts[2])[0] == 303


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.server
def test_seats_are_capped_on_joining_as_on_creating(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = make_app(kind, tmp_path, request, MAX_ROOMS_PER_PLAYER=2)
    hosts = [browser(app) for _ in range(3)]
    rooms = [new_room(host)[1] for host in hosts]
    joiner = connect(app, browser(app))
    acks = [joiner.emit("room_join", {"room": room}, callback=True) for room in rooms]
    assert [code(ack) for ack in acks] == [None, None, "too_many_rooms"]
    assert all(ack["you"] for ack in acks[:2])
    # Refused, the third room is unchanged: still waiting for a friend.
    host = connect(app, hosts[2])
    host.emit("room_join", {"room": rooms[2]}, callback=True)
    snapshot = [p["args"][0] for p in host.get_received() if p["name"] == "room"][-1]
    assert snapshot["status"] == "waiting" and snapshot["seats"][1]["token"] is None
    # Leaving one frees a seat for the third.
    assert code(joiner.emit("room_leave", {"room": rooms[0]}, callback=True)) is None
    assert code(joiner.emit("room_join", {"room": rooms[2]}, callback=True)) is None


def backdate_rooms(data_dir: Path, hours: float) -> None:
    with sqlite3.connect(data_dir / "matches.sqlite3") as db:
        db.execute("UPDATE rooms SET updated = updated - ?", (hours * 3600,))


def stored_rooms(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "matches.sqlite3") as db:
        return int(db.execute("SELECT count(*) FROM rooms").fetchone()[0])


def test_expired_rooms_are_deleted_from_sqlite_by_the_periodic_prune(tmp_path: Path) -> None:
    app = make_app("sqlite", tmp_path, pytest.FixtureRequest)  # type: ignore[arg-type]
    hosts = [browser(app) for _ in range(3)]
    for host in hosts:
        new_room(host)
    assert stored_rooms(tmp_path) == 3
    backdate_rooms(tmp_path, 25)  # past the default idle time of 24 hours
    assert prune(app)[1] == 3
    assert stored_rooms(tmp_path) == 0


# --- history -------------------------------------------------------------------------


def finish_games(app: Flask, web: FlaskClient, count: int) -> None:
    """Play ``count`` games to their end as the player behind ``web``."""
    Actions(connect(app, web)).finish_games(count)


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.server
def test_history_has_a_global_budget_paid_by_whoever_grows_it(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = make_app(kind, tmp_path, request, MAX_HISTORY_GAMES=5, HISTORY_FLOOR=2)
    history = app.extensions["history"]
    idle, busy = browser(app), browser(app)
    finish_games(app, idle, 3)
    totals = history.counters(player_of(idle))
    time.sleep(1.1)  # Redis orders players by whole seconds
    finish_games(app, busy, 3)
    # As many games each: the one idle the longer loses their oldest.
    assert [len(history.games(player_of(p))) for p in (idle, busy)] == [2, 3]
    finish_games(app, busy, 4)  # the busy player now has the most: theirs go
    assert [len(history.games(player_of(p))) for p in (idle, busy)] == [2, 3]
    assert history.counters(player_of(idle)) == totals  # lifetime figures are never pruned
    assert games_counted(history.counters(player_of(busy))) == 7
    assert stored_games(app) == 5


def stored_games(app: Flask) -> int:
    """How many finished games the server's history holds, as a store opened now reads
    them (a store counts its own writes, and the server's are in another process)."""
    history = open_history(app.config)
    try:
        return history.count()
    finally:
        history.close()


# --- real server processes -------------------------------------------------------------


def healthz(url: str) -> tuple[int, dict[str, Any]]:
    """Status and JSON of a real server's /healthz, 503 included."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_: Any) -> None:
        return None


def post_room(url: str, cookie: str) -> tuple[int, str]:
    """``POST /r`` as the page's form: the status, and the room's id or the refusal's code."""
    opener = urllib.request.build_opener(NoRedirect)
    headers = {"Cookie": cookie, "Origin": url}
    try:
        with opener.open(urllib.request.Request(f"{url}/r", b"", headers)) as reply:
            return reply.status, ""
    except urllib.error.HTTPError as err:
        if err.code == 303:
            return 303, str(err.headers["Location"]).rsplit("/", 1)[1]
        return err.code, err.read().decode().split('data-code="', 1)[1].split('"', 1)[0]


def test_expired_rooms_are_deleted_from_sqlite_when_the_server_starts(
    server: ServerProcess,
) -> None:
    cookie = session_cookie(server.url)
    assert [post_room(server.url, cookie)[0] for _ in range(2)] == [303, 303]
    server.stop()
    backdate_rooms(server.data_dir, 25)
    server.start()
    assert stored_rooms(server.data_dir) == 0
    assert healthz(server.url)[1]["usage"]["rooms"]["used"] == 0


def filler_rows(data_dir: Path, megabytes: float) -> None:
    """Matches of players who never come back, until the file holds ``megabytes``."""
    with sqlite3.connect(data_dir / "matches.sqlite3") as db:
        rows = int(megabytes * (1 << 20) / 1100)
        db.executemany(
            "INSERT INTO matches (player, version, data, updated) VALUES (?, 1, ?, ?)",
            ((f"filler-{i}", "x" * 1000, time.time()) for i in range(rows)),
        )


def test_the_data_ceiling_refuses_new_rows_clearly_and_never_corrupts(
    server: ServerProcess,
) -> None:
    server.stop()
    filler_rows(server.data_dir, 1.2)
    server.env["TICTACTOE_MAX_DATA_MB"] = "1"
    server.start()
    status, body = healthz(server.url)
    assert status == 200 and body["usage"]["data_mb"]["share"] >= 0.98, body
    assert body["usage"]["data_mb"]["cap"] >= 1
    cookie = session_cookie(server.url)
    newcomer = Player(server.url, cookie)
    state = newcomer.human_turn()
    # Every cell of the board shown is refused for the storage, whatever the match made
    # anew at each move (unstored: a new coin toss, the AI's first move) holds there.
    for cell in [i for i, mark in enumerate(state["board"]) if mark == "."] * 3:
        ack = newcomer.move(cell)
        assert not ack["ok"] and ack["error"]["code"] == "storage_full", (cell, ack)
    assert post_room(server.url, session_cookie(server.url)) == (503, "storage_full")
    newcomer.close()
    server.stop()
    with sqlite3.connect(server.data_dir / "matches.sqlite3") as db:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    server.env["TICTACTOE_MAX_DATA_MB"] = "4"  # a higher ceiling: the same player plays
    server.start()
    again = Player(server.url, cookie)
    state = again.human_turn()
    assert again.move(state["board"].index(".")) == {"ok": True}
    again.close()


def overwrite_index(database: Path, index: str) -> None:
    """Overwrite every page of ``index`` with random bytes, as a failing disk might."""
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
        pages = [row[0] for row in db.execute("SELECT pageno FROM dbstat WHERE name = ?", (index,))]
    assert pages
    with database.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(os.urandom(size))


def test_an_overwritten_primary_key_index_fails_healthz_naming_the_store(
    server: ServerProcess,
) -> None:
    player = Player(server.url, session_cookie(server.url))
    state = player.human_turn()
    assert player.move(state["board"].index(".")) == {"ok": True}
    player.close()
    server.stop()
    overwrite_index(server.data_dir / "matches.sqlite3", "sqlite_autoindex_matches_1")
    server.start(ready=answering)
    status, body = healthz(server.url)
    assert status == 503 and body["status"] == "failing", body
    assert body["checks"]["store"].startswith("SQLite: "), body
    assert re.search("damaged|malformed", body["checks"]["store"]), body
    assert "is damaged (restore a backup)" in server.log_tail(20_000)


def test_an_index_overwritten_under_a_running_server_fails_healthz(
    server: ServerProcess,
) -> None:
    player = Player(server.url, session_cookie(server.url))
    state = player.human_turn()
    assert player.move(state["board"].index(".")) == {"ok": True}
    assert healthz(server.url)[0] == 200
    overwrite_index(server.data_dir / "matches.sqlite3", "sqlite_autoindex_matches_1")
    wait_until(lambda: healthz(server.url)[0] == 503, 10, "/healthz failing")
    assert "malformed" in healthz(server.url)[1]["checks"]["store"]
    player.close()


# --- the stores at their ceiling --------------------------------------------------------


def test_past_the_hard_ceiling_sqlite_undoes_the_write_and_says_storage_full(
    tmp_path: Path,
) -> None:
    path = tmp_path / "matches.sqlite3"
    store = SQLiteStore(path, max_data_mb=1)
    filler = open_database(path, ("CREATE TABLE IF NOT EXISTS filler (data TEXT)",))
    written = 0
    with pytest.raises(StorageFull) as full:
        for _ in range(1000):  # 4 MB: well past the ceiling of 1
            filler.write(lambda: filler.execute("INSERT INTO filler VALUES (?)", ("x" * 4000,)))
            written += 1
    assert full.value.code == "storage_full"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert db.execute("SELECT count(*) FROM filler").fetchone()[0] == written
    assert store.check() is None
    used, ceiling = store.size()
    assert ceiling == 1 << 20 and used <= ceiling
    filler.close()
    store.close()


def a_finished_game() -> Any:
    """One finished game as history keeps it."""
    match = new_match(random.Random(1))
    while match.game.turn is not None:
        if match.game.turn == "ai":
            match = ai_move(match)
        else:
            match = human_move(match, match.game.board.legal_moves()[0])
    return finished_game(match, game_id="g1", ended=time.time())


def test_redis_at_its_maxmemory_refuses_writes_clearly(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    rooms = RedisRooms(redis_url, idle_seconds=3600)
    matches = RedisStore(redis_url, idle_seconds=3600)
    history = RedisHistory(redis_url, per_player=5, idle_seconds=3600)
    client.config_set("maxmemory", "1")  # below what it holds: every write is refused
    try:
        room = open_room("R" * 22, "a", kind="online", now=time.time())
        with pytest.raises(StorageFull):
            rooms.save(room.id, room, expected=None)
        with pytest.raises(StorageFull):
            matches.save("p", new_match(random.Random(1)), expected=None)
        assert history.add("p", "1", a_finished_game()) is False  # not kept, no error
    finally:
        client.config_set("maxmemory", "0")
    assert rooms.count() == matches.count() == history.count() == 0
    assert rooms.save(room.id, room, expected=None)
    for store in (rooms, matches, history):
        store.close()


FULL_TURNS = """
from gevent import monkey

monkey.patch_all()
import json, sqlite3, sys
from pathlib import Path

import gevent

from webapp.server.store.sqlite.db import open_database
from webapp.server.store.interface import StorageFull

path = Path(sys.argv[1])
db = open_database(path, ("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)",))
db.database.limit_size(1)
answers = {}

def writer(i):
    try:
        db.write(lambda: db.execute("INSERT INTO t VALUES (?, ?)", (f"k{i}", "x" * 3000)))
        answers[i] = "ok"
    except StorageFull:
        answers[i] = "storage_full"

for turn in range(20):  # 20 turns of 30 writes: 1.8 MB asked of a 1 MB ceiling
    gevent.joinall([gevent.spawn(writer, turn * 30 + i) for i in range(30)])
db.close()
with sqlite3.connect(path) as other:
    rows = sorted(row[0] for row in other.execute("SELECT k FROM t"))
    check = other.execute("PRAGMA quick_check").fetchall()
ok = sorted(f"k{i}" for i, answer in answers.items() if answer == "ok")
print(json.dumps({"answers": sorted(set(answers.values())), "count": len(answers),
                  "stored_as_answered": rows == ok, "check": check}))
"""


def test_writes_sharing_a_commit_past_the_ceiling_are_all_answered_and_none_half_made(
    tmp_path: Path,
) -> None:
    found = subprocess.run(
        [sys.executable, "-c", FULL_TURNS, str(tmp_path / "full.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0, found.stderr[-2000:]
    result = json.loads(found.stdout)
    assert result["count"] == 600 and result["answers"] == ["ok", "storage_full"]
    assert result["stored_as_answered"] and result["check"] == [["ok"]]
