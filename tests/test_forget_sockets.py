"""After "Delete everything" the player's open sockets are gone: each, in every process, is
told ``player_deleted`` and disconnected, and nothing sent from it or with its cookie
stores anything under the deleted id again (no match, no seat)."""

from __future__ import annotations

import json
import secrets
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import (
    PAGE,
    LiveSocket,
    connect,
    events,
    live_server,
    player_of,
    server_environment,
    session_of,
    states,
)
from support.testing import ServerProcess, delete_everything, session_cookie

from webapp import __version__
from webapp.server.app import create_app
from webapp.server.services.page_player import page_token
from webapp.server.store.forgotten import RedisForgotten, SQLiteForgotten
from webapp.server.store.sqlite.db import DATABASE_FILE

ORIGIN = {"Origin": "http://localhost"}
DELETED = "player_deleted"  # the push, the refusal and the error code alike


def code(ack: Any) -> str | None:
    """The error code of an ack, or None when it was accepted."""
    return None if ack.get("ok") else str(ack["error"]["code"])


def seated_in_a_friends_room(app: Flask, sock: LiveSocket) -> str:
    """A room made by another player, in which ``sock``'s player holds the second seat."""
    friend = app.test_client()
    assert friend.get("/").status_code == 200
    made = friend.post("/r", headers=ORIGIN)
    assert made.status_code == 303
    room = str(made.headers["Location"]).rsplit("/", 1)[1]
    joined = sock.emit("room_join", {"room": room}, callback=True)
    assert joined["ok"] and joined["you"] is not None, joined
    return room


def seats(app: Flask, room: str) -> list[str | None]:
    """Who holds each seat of ``room``, as stored."""
    found = app.extensions["rooms"].load(room)
    assert found is not None
    return list(found.seats)


def pushes_until_closed(sock: LiveSocket) -> int:
    """How many ``player_deleted`` pushes ``sock`` gets, read until the server closes it
    (or 5 s have passed)."""
    told, deadline = 0, time.monotonic() + 5
    while time.monotonic() < deadline:
        told += len(list(events(sock, DELETED)))
        if not sock.is_connected():
            return told + len(list(events(sock, DELETED)))
        time.sleep(0.05)
    return told


def check_detached(app: Flask, web: FlaskClient, urls: list[str]) -> None:
    """Open a socket of one player on each of ``urls``, seat the player in a friend's
    room, delete the player on the last; then act from every old socket."""
    player, cookie = player_of(web), session_of(app, web)
    auth = {"release": __version__, "view": "match"}
    sockets = [LiveSocket(url, cookie, auth, headers={}) for url in urls]
    assert all(sock.connected for sock in sockets)
    room = seated_in_a_friends_room(app, sockets[0])
    assert player in seats(app, room)

    assert delete_everything(urls[-1], cookie) == 204
    told = [pushes_until_closed(sock) for sock in sockets]
    for sock in sockets:  # what an old tab sends next, if it still can
        sock.emit("move", {"cell": 4})
        sock.emit("room_sit", {"room": room})
    assert told == [1, 1], "each socket is told once"
    assert not any(sock.is_connected() for sock in sockets)

    service = app.extensions["tictactoe"]
    assert service.store.load(player) is None, "a match row was stored for the deleted id"
    assert player not in seats(app, room), "the deleted player took a seat again"
    again = LiveSocket(urls[0], cookie, auth, headers={})  # the cookie kept from before
    assert not again.connected and again.refusal is not None
    assert again.refusal["data"]["code"] == DELETED
    assert service.store.load(player) is None
    fresh = session_cookie(urls[0], cookie)  # the page gives a new player in its place
    assert fresh and fresh != cookie
    assert not app.extensions["history"].games(player)
    check_old_pages_refused(app, urls, player, fresh)


def check_old_pages_refused(app: Flask, urls: list[str], player: str, fresh: str) -> None:
    """A page made for the deleted ``player`` is refused on every process, though the
    browser's cookie (``fresh``) is a new player's by then; that player's own page is not,
    nor is one whose token was not signed here."""
    made_for = page_token(app.config, player)
    forged = made_for[:-4] + ("0000" if not made_for.endswith("0000") else "1111")
    for url in urls:
        old = LiveSocket(url, fresh, {"release": __version__, "page": made_for}, headers={})
        assert old.refusal is not None and old.refusal["data"]["code"] == DELETED, url
        for page in ("", forged, None, 7):
            auth = {"release": __version__, "page": page}
            sock = LiveSocket(url, fresh, auth, headers={})
            assert sock.connected, (url, page)
            sock.disconnect()


@pytest.mark.server
def test_sockets_of_a_deleted_player_are_told_and_detached_on_sqlite(
    app: Flask, client: FlaskClient
) -> None:
    url = live_server(app).url
    check_detached(app, client, [url, url])


def test_sockets_on_two_processes_are_told_and_detached_on_redis(
    tmp_path: Path, server_factory: Callable[..., ServerProcess], redis_url: str
) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_BURST": 10_000}
    key, signing = secrets.token_hex(16), secrets.token_hex(32)
    keys = {"SECRET_KEY": key, "SIGNING_KEY": signing}
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, **keys, **settings})
    first = live_server(app)
    second = server_factory(**server_environment(app), TICTACTOE_SECRET_KEY=key)
    web = app.test_client()
    assert web.get("/").status_code == 200
    check_detached(app, web, [first.url, second.url])


def test_an_event_racing_the_push_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient, socket_client: LiveSocket
) -> None:
    player = player_of(client)
    room = seated_in_a_friends_room(app, socket_client)
    service = app.extensions["tictactoe"]
    before = service.store.load(player)
    assert before is not None
    free = states(socket_client)[-1]["board"].index(".")
    room_before = seats(app, room)
    # The player is deleted, and its seat freed, but the push has not reached this socket.
    app.extensions["forgotten"].add(player)
    app.extensions["rooms"].leave_all(player)
    assert player not in seats(app, room)
    for event, payload in [
        ("move", {"cell": free}),
        ("room_sit", {"room": room}),
        ("new_match", {}),
    ]:
        ack = socket_client.emit(event, payload, callback=True)
        if ack is not None:  # else the socket was closed first, which is as good
            assert code(ack) == DELETED, (event, ack)
    assert service.store.load(player) == before
    assert player not in seats(app, room) and room_before[0] in seats(app, room)
    assert not socket_client.is_connected()
    late = connect(app, client, auth=PAGE)
    assert late.refusal is not None and late.refusal["data"]["code"] == DELETED


def test_a_database_of_the_release_before_gains_the_list_of_deleted_players(
    tmp_path: Path,
) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "TESTING": True}
    create_app(settings)
    with sqlite3.connect(tmp_path / DATABASE_FILE) as db:  # as 0.5.0.dev0 left it
        db.execute("DROP TABLE forgotten_players")
    app = create_app(settings)
    web = app.test_client()
    assert web.get("/").status_code == 200
    player = player_of(web)
    assert web.post("/history/forget", headers=ORIGIN).status_code == 204
    assert app.extensions["forgotten"].holds(player)
    assert create_app(settings).extensions["forgotten"].holds(player)  # kept on restart


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_the_list_of_deleted_players_is_bounded_in_count_and_time(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    now = [1000.0]
    options: dict[str, Any] = {"keep_seconds": 60.0, "cap": 3, "clock": lambda: now[0]}
    forgotten = (
        SQLiteForgotten(tmp_path, **options)
        if kind == "sqlite"
        else RedisForgotten(request.getfixturevalue("redis_url"), **options)
    )
    for index in range(5):
        now[0] += 1
        forgotten.add(f"p{index}")
    assert [forgotten.holds(f"p{index}") for index in range(5)] == [False, False] + [True] * 3
    now[0] += 58  # p2 was kept until 1063, p3 until 1064
    assert [forgotten.holds(f"p{index}") for index in range(2, 5)] == [False, True, True]
    now[0] += 3
    assert not any(forgotten.holds(f"p{index}") for index in range(5))


def test_a_socket_is_told_whose_it_is(
    app: Flask, client: FlaskClient, socket_client: LiveSocket
) -> None:
    told = list(events(socket_client, "player"))
    assert told == [{"token": page_token(app.config, player_of(client))}]


def test_every_events_check_of_deleted_players_reads_no_table(tmp_path: Path) -> None:
    forgotten = SQLiteForgotten(tmp_path, keep_seconds=60.0, cap=3, clock=time.time)
    forgotten.add("gone")
    statements: list[str] = []
    forgotten._db.database.connection.set_trace_callback(statements.append)
    assert forgotten.holds("gone") and not forgotten.holds("here")
    assert statements == ["PRAGMA data_version"] * 2
    forgotten._db.database.connection.set_trace_callback(None)
    forgotten.close()
    assert SQLiteForgotten(tmp_path, keep_seconds=60.0, cap=3, clock=time.time).holds("gone")


REDIS_CHECKS = """
from gevent import monkey

monkey.patch_all()
import json, sys, time

import gevent

from webapp.server.store.forgotten import RedisForgotten

forgotten = RedisForgotten(sys.argv[1], keep_seconds=60.0, cap=100, clock=time.time)
forgotten.add("p3")
held = {}

def check(i):
    held[i] = forgotten.holds(f"p{i % 5}")

gevent.joinall([gevent.spawn(check, i) for i in range(50)])
print(json.dumps({"held": held, "pipelines": forgotten._pipeliner.pipelines}))
"""


def test_on_redis_the_checks_of_one_turn_share_a_pipeline(redis_url: str) -> None:
    found = subprocess.run(
        [sys.executable, "-c", REDIS_CHECKS, redis_url], capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr[-2000:]
    result = json.loads(found.stdout)
    assert result["held"] == {str(i): i % 5 == 3 for i in range(50)}
    assert 1 <= result["pipelines"] < 48  # not a round trip to Redis each
