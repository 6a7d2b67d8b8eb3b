"""A stored match that cannot be read: moved aside, logged once, the player told and playing on."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from support.live import LiveSocket, connect, player_of, server_log

from webapp.server.app import create_app
from webapp.server.protocol.snapshot import snapshot
from webapp.server.protocol.vocabulary import ErrorCode, NoticeCode, ServerEvent
from webapp.server.store.matches import Damaged, RedisStore, SQLiteStore

pytestmark = pytest.mark.server  # each test opens sockets on a production server

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads(
    (ROOT / "tests" / "fixtures" / "matches-0.1.0.jsonl").read_text().split("\n")[0]
)
GOOD = json.loads(FIXTURE["data"])
DAMAGED: dict[str, bytes] = {
    "not-json": b"{not json",
    "not-utf8": b"\xff\xfe\x00garbage",
    "empty": b"",
    "null": b"null",
    "future-format": json.dumps({**GOOD, "format": 99}).encode(),
    "no-game": json.dumps({k: v for k, v in GOOD.items() if k != "game"}).encode(),
    "bad-rules": json.dumps({**GOOD, "format": 2, "rules": {"start_human_hp": 0}}).encode(),
    "move-out-of-turn": json.dumps(
        {**GOOD, "game": {**GOOD["game"], "history": [["ai", 0], ["ai", 1]]}}
    ).encode(),
    "cell-taken": json.dumps(
        {**GOOD, "game": {"first": "human", "history": [["human", 4], ["ai", 4]], "ai_moves": []}}
    ).encode(),
}
DOCUMENTED = {str(code) for code in ErrorCode}


def insert_row(app: Flask, player: str, data: bytes, version: int = 7) -> None:
    """Store ``data`` as the player's row, as a damaged disk or an unknown release left it
    (just now: an old row would be pruned as idle when the server starts)."""
    path = Path(app.config["DATA_DIR"]) / "matches.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT OR REPLACE INTO matches (player, version, data, updated)"
            " VALUES (?, ?, CAST(? AS TEXT), ?)",
            (player, version, data, time.time()),
        )


def damaged_rows(app: Flask) -> list[tuple[str, bytes, str]]:
    path = Path(app.config["DATA_DIR"]) / "matches.sqlite3"
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT player, data, reason FROM damaged_matches").fetchall()
    return [(player, bytes(data), reason) for player, data, reason in rows]


def received(sock: LiveSocket) -> list[tuple[str, Any]]:
    """(event name, payload) of everything the socket received since the last call, but
    the ``player`` push each new socket gets (whose it is: nothing about the match)."""
    got = sock.get_received()
    return [(e["name"], e["args"][0]) for e in got if e["name"] != ServerEvent.PLAYER]


def logged_aside(app: Flask, player: str) -> list[str]:
    """The production server's log lines that say it moved ``player``'s match aside."""
    lines = server_log(app).splitlines()
    return [line for line in lines if player in line and "moved aside" in line]


def moved_aside_lines(caplog: pytest.LogCaptureFixture, player: str) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if player in r.getMessage() and "moved aside" in r.getMessage()
    ]


@pytest.mark.parametrize("kind", list(DAMAGED))
def test_connect_moves_the_row_aside_and_shows_a_fresh_match_with_a_notice(
    app: Flask, client: FlaskClient, kind: str
) -> None:
    player = player_of(client)
    insert_row(app, player, DAMAGED[kind])
    sock = connect(app, client)
    events = received(sock)
    # The notice, the fresh match to every tab, then the connection's own first state.
    assert [name for name, _ in events] == [ServerEvent.NOTICE, *[ServerEvent.STATE] * 2]
    assert events[0][1]["code"] == NoticeCode.MATCH_UNREADABLE
    assert "could not be read" in events[0][1]["message"]
    state = events[1][1]
    assert events[2][1] == state
    assert state["status"] == "playing" and state["turn"] == "human"
    assert state["match"]["games"] == 0 and state["match"]["human_hp"] == 100
    # Kept for inspection, byte for byte, with the reason; in its place, the match shown.
    ((moved_player, data, reason),) = damaged_rows(app)
    assert (moved_player, data) == (player, DAMAGED[kind]) and reason
    stored = app.extensions["tictactoe"].store.load(player)
    assert stored is not None and snapshot(stored) == state
    (line,) = logged_aside(app, player)
    assert "WARNING" in line and "Traceback" not in server_log(app)
    # Connecting again finds no row: no second notice, no second line, the same match.
    again = connect(app, client)
    assert received(again) == [(ServerEvent.STATE, state)]
    assert len(logged_aside(app, player)) == 1


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("new_match", {}),
        ("new_match", {"mode": "hard"}),
        ("move", {"cell": 4}),
        ("next_game", {}),
        ("hint", {}),
    ],
)
def test_no_event_on_a_damaged_row_answers_bad_state(
    app: Flask, client: FlaskClient, event: str, payload: dict[str, Any]
) -> None:
    sock = connect(app, client)
    received(sock)
    insert_row(app, player_of(client), DAMAGED["future-format"])  # damaged under an open tab
    ack = sock.emit(event, payload, callback=True)
    assert ack["ok"] or ack["error"]["code"] in DOCUMENTED, ack
    assert ack["ok"] or ack["error"]["code"] != "bad_state"
    events = received(sock)
    assert events[0] == (
        ServerEvent.NOTICE,
        {"code": "match_unreadable", "message": events[0][1]["message"]},
    )
    assert events[1][0] == ServerEvent.STATE
    assert events[1][1]["match"]["games"] == 0 and events[1][1]["version"] <= 2
    if event == "new_match":  # the way out that used to fail
        assert ack == {"ok": True}
        assert events[-1][0] == ServerEvent.STATE
        assert events[-1][1]["mode"] == payload.get("mode", "adaptive")
        stored = app.extensions["tictactoe"].store.load(player_of(client))
        assert stored is not None and stored.version == events[-1][1]["version"]
    assert len(damaged_rows(app)) == 1


def test_a_move_on_a_damaged_row_plays_on_the_fresh_match(app: Flask, client: FlaskClient) -> None:
    sock = connect(app, client)
    received(sock)
    insert_row(app, player_of(client), DAMAGED["not-json"])
    ack = sock.emit("move", {"cell": 4}, callback=True)
    states = [payload for name, payload in received(sock) if name == ServerEvent.STATE]
    fresh = states[0]  # the match that replaced the damaged one, shown before the move
    assert fresh["match"]["games"] == 0 and fresh["version"] <= 2
    if fresh["board"][4] != ".":  # the AI opened on it
        assert ack["error"]["code"] == "cell_taken"
        return
    assert ack == {"ok": True}
    assert states[-1]["history"][: len(fresh["history"]) + 1] == [
        *fresh["history"],
        {"by": "human", "cell": 4},
    ]


def test_a_move_made_on_the_lost_board_is_stale_and_the_fresh_match_shown(
    app: Flask, client: FlaskClient
) -> None:
    sock = connect(app, client)
    received(sock)
    insert_row(app, player_of(client), DAMAGED["no-game"], version=57)  # the tab shows 57
    ack = sock.emit("move", {"cell": 4, "version": 57}, callback=True)
    assert ack["ok"] is False and ack["error"]["code"] == "stale_version"
    names = [name for name, _ in received(sock)]
    assert names == [ServerEvent.NOTICE, ServerEvent.STATE]  # the page can play on


def test_store_moves_a_damaged_row_aside_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "matches.sqlite3"
    store, other = SQLiteStore(path), SQLiteStore(path)  # two readers of one file
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO matches VALUES ('p', 3, '{\"format\": 1}', 0)")
    caplog.set_level(logging.WARNING)
    with pytest.raises(Damaged) as caught:
        store.load("p")
    assert caught.value.player == "p" and caught.value.reason
    assert other.load("p") is None  # already moved: not moved, logged or reported again
    assert store.load("p") is None
    assert len(moved_aside_lines(caplog, "p")) == 1


def test_redis_moves_a_damaged_match_aside_with_an_expiry(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    plain = redis.Redis.from_url(redis_url)
    store = RedisStore(redis_url, idle_seconds=3600)
    plain.hset("tictactoe:match:p", mapping={"version": 4, "data": b"{not json"})
    plain.set("tictactoe:match:q", "a string, not a hash")
    caplog.set_level(logging.WARNING)
    for player in ("p", "q"):
        with pytest.raises(Damaged):
            store.load(player)
        assert store.load(player) is None
        (aside,) = plain.keys(f"tictactoe:damaged:{player}:*")
        assert re.fullmatch(rf"tictactoe:damaged:{player}:\d+\.\d+", aside.decode())
        assert 29 * 86400 < plain.ttl(aside) <= 30 * 86400
        assert len(moved_aside_lines(caplog, player)) == 1
    kept = plain.hgetall(plain.keys("tictactoe:damaged:p:*")[0])
    assert kept[b"data"] == b"{not json" and kept[b"player"] == b"p" and kept[b"reason"]


def test_redis_player_gets_a_fresh_match_and_a_notice(tmp_path: Path, redis_url: str) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "REDIS_URL": redis_url})
    client = app.test_client()
    assert client.get("/").status_code == 200
    player = player_of(client)
    redis.Redis.from_url(redis_url).hset(
        f"tictactoe:match:{player}", mapping={"version": 9, "data": DAMAGED["no-game"]}
    )
    sock = connect(app, client)
    names = [name for name, _ in received(sock)]
    assert names == [ServerEvent.NOTICE, ServerEvent.STATE, ServerEvent.STATE]
    assert sock.emit("new_match", {}, callback=True) == {"ok": True}


# --- the vocabulary ----------------------------------------------------------------


def test_notice_codes_agree_with_the_page_and_the_docs() -> None:
    script = (ROOT / "static" / "js" / "protocol.js").read_text()
    words = (ROOT / "static" / "js" / "words.js").read_text()
    docs = (ROOT / "docs" / "protocol.md").read_text()
    messages = re.search(
        r"export const NOTICE_MESSAGES = Object\.freeze\(\{(.*?)\}\);", words, re.S
    )
    names = re.search(r"export const NOTICES = Object\.freeze\(\{(.*?)\}\);", script, re.S)
    assert messages and names
    assert sorted(re.findall(r"(\w+): \"", messages[1])) == sorted(NoticeCode)
    assert sorted(re.findall(r': "([a-z_]+)"', names[1])) == sorted(NoticeCode)
    section = docs.split(f"## Server to client: `{ServerEvent.NOTICE}`", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\| `([a-z_]+)` \|", section, re.M) == list(NoticeCode)
    assert "bad_state" not in docs


def test_rows_moved_aside_are_kept_thirty_days(tmp_path: Path) -> None:
    path = tmp_path / "matches.sqlite3"
    store = SQLiteStore(path)
    now = time.time()
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO damaged_matches VALUES (?, x'00', 'test', ?)",
            [("recent", now - 29 * 86400), ("old", now - 31 * 86400)],
        )
    store.prune(idle_seconds=86400)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT player FROM damaged_matches").fetchall() == [("recent",)]
