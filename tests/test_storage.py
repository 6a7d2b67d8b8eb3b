"""Storage with a ceiling: every table a stranger can grow has a cap and a pruning rule,
on SQLite and on Redis alike, and /healthz says how close each one is."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp.server.app import create_app
from webapp.server.history_store import open_history
from webapp.server.room_store import open_rooms
from webapp.server.serve import prune
from webapp.testing import Actions, connect, player_of

ORIGIN = {"Origin": "http://localhost"}
STORES = ["sqlite", "redis"]


def make_app(kind: str, tmp_path: Path, request: pytest.FixtureRequest, **settings: Any) -> Flask:
    """The app with its rooms and history on SQLite in ``tmp_path``, or on the test Redis
    (emptied); Flask-SocketIO's test client needs the app without Redis's message queue,
    so the Redis stores are put in place after it is built."""
    base = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 3, "RATE_BURST": 10_000}
    app = create_app({"TESTING": True, **base, **settings})
    if kind == "redis":
        config = {**app.config, "REDIS_URL": request.getfixturevalue("redis_url")}
        app.extensions["rooms"].store = open_rooms(config)
        history = app.extensions["tictactoe"].history = open_history(config)
        app.extensions["history"] = history
    return app


def browser(app: Flask) -> FlaskClient:
    web = app.test_client()
    assert web.get("/").status_code == 200
    return web


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
    play = Actions(connect(app, web))
    for _ in range(count):
        play.play_out()
        ack = play.new_match() if play.state["match"]["over"] else play.emit("next_game")
        assert ack == {"ok": True}, ack


@pytest.mark.parametrize("kind", STORES)
def test_history_has_a_global_budget_the_longest_idle_pruned_first(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = make_app(kind, tmp_path, request, MAX_HISTORY_GAMES=5)
    history = app.extensions["history"]
    idle, busy = browser(app), browser(app)
    finish_games(app, idle, 3)
    assert len(history.games(player_of(idle))) == 3
    time.sleep(1.1)  # Redis orders players by whole seconds
    finish_games(app, busy, 3)
    assert len(history.games(player_of(busy))) == 3
    assert history.games(player_of(idle)) == []  # the longest idle went first
    assert history.count() == 3
    finish_games(app, busy, 4)  # alone past the budget: the player's own cap governs
    assert len(history.games(player_of(busy))) == 7 and history.count() == 7
