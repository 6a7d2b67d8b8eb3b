"""The Socket.IO protocol through Flask-SocketIO's test client (docs/protocol.md)."""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import ConnectionRefusedError
from support.live import Actions, LiveSocket, connect, live_server, player_of, states

from webapp import __version__
from webapp.game import engine
from webapp.game import match as matches
from webapp.game.board import Board
from webapp.game.fairness import Dice
from webapp.game.game import AiMove, Game, Side
from webapp.game.match import Match
from webapp.game.rules import MODES, MatchError, Rules
from webapp.server.app import create_app
from webapp.server.events.connect import check_release
from webapp.server.protocol.vocabulary import MODE_CHOICES
from webapp.server.store.matches import Conflict, update

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

STATE_KEYS = {
    "version",
    "mode",
    "board",
    "human",
    "ai",
    "first",
    "turn",
    "status",
    "winning_line",
    "history",
    "last_ai_move",
    "match",
}
MATCH_KEYS = {
    "human_hp",
    "ai_hp",
    "difficulty",
    "over",
    "winner",
    "games",
    "game",
    "record",
    "last_hp_change",
    "start_human_hp",
    "start_ai_hp",
}


def stage(app: Flask, client: FlaskClient, first: Side, cells: list[int], **fields: Any) -> Match:
    """Store a match whose current game has ``cells`` played alternately from ``first``."""
    game = Game(first=first, dice=Dice(random.Random(0).randbytes(32).hex(), "test", 1, used=1))
    side: Side = first
    for cell in cells:
        move = AiMove(cell, "perfect") if side == "ai" else None
        game = game.play(side, cell, move)
        side = "human" if side == "ai" else "ai"
    store = app.extensions["tictactoe"].store
    player = player_of(client)
    current = store.load(player)
    staged = Match(
        mode=fields.pop("mode", "adaptive"),
        rules=Rules(),
        human_hp=fields.pop("human_hp", 100),
        ai_hp=fields.pop("ai_hp", 100),
        game=game,
        version=(current.version if current else 0) + 1,
        next_seed=fields.pop("next_seed", random.Random(1).randbytes(32).hex()),
        **fields,
    )
    assert store.save(player, staged, expected=current.version if current else None)
    return staged


def slow_app(tmp_path: Path, delay_ms: int = 3000) -> Flask:
    """An app whose AI waits ``delay_ms`` before replying."""
    return create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "AI_DELAY_MS": delay_ms, "SEED": 1}
    )


def error_code(ack: dict[str, Any]) -> str:
    assert ack["ok"] is False, ack
    return str(ack["error"]["code"])


# --- connecting -----------------------------------------------------------------


def test_connect_creates_match_and_sends_state(play: Actions) -> None:
    state = play.state
    assert state.keys() >= STATE_KEYS
    assert state["match"].keys() >= MATCH_KEYS
    assert state["mode"] == "adaptive"
    assert state["match"]["human_hp"] == 100 and state["match"]["ai_hp"] == 100
    assert state["match"]["difficulty"] == 0
    assert {state["human"], state["ai"]} == {"X", "O"}
    assert state["status"] == "playing"
    assert state["turn"] == "human"  # the AI, if first, has already replied (no delay)


@pytest.mark.server
def test_the_sockets_reach_the_production_stack(app: Flask, client: FlaskClient) -> None:
    sock = connect(app, client)
    assert sock.is_connected()
    server = live_server(app)
    assert Path(server.command[0]).name == "tictactoe" and server.command[1] == "serve"
    (worker,) = server.workers()  # gunicorn's arbiter and its one worker
    assert "gevent" in Path(f"/proc/{worker}/maps").read_text()  # gevent's own C loop


@pytest.mark.server
def test_connection_without_session_is_refused(app: Flask) -> None:
    anonymous = app.test_client()  # never loaded the page, so no cookie
    sock = connect(app, anonymous)
    assert not sock.is_connected()


@pytest.mark.parametrize(
    "auth", [None, {}, {"release": "0.1.0"}, {"release": None}, {"version": __version__}, "0.2.0"]
)
@pytest.mark.server
def test_connection_from_another_release_is_refused(
    app: Flask, client: FlaskClient, auth: object
) -> None:
    sock = connect(app, client, auth=auth)
    assert not sock.is_connected()
    assert sock.refusal is not None and sock.refusal["data"]["code"] == "reload"
    assert app.extensions["tictactoe"].store.load(player_of(client)) is None
    # The same player, from this release's page, is welcome.
    assert connect(app, client).is_connected()


@pytest.mark.parametrize("auth", [None, {}, {"release": "0.1.0"}, [__version__], __version__])
def test_release_refusal_tells_the_page_to_reload(auth: object) -> None:
    with pytest.raises(ConnectionRefusedError) as caught:
        check_release(auth)
    assert caught.value.error_args == {
        "message": "the server was updated: reload",
        "data": {"code": "reload", "release": __version__},
    }
    check_release({"release": __version__})  # no refusal


def test_page_sets_a_safe_session_cookie(app: Flask) -> None:
    reply = app.test_client().get("/")
    cookie = reply.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http in tests


def test_healthz(app: Flask) -> None:
    reply = app.test_client().get("/healthz")
    checks = {"store": "ok", "key": "ok", "disk": "ok"}
    found = reply.get_json()
    assert {k: found[k] for k in ("status", "version", "checks")} == {
        "status": "ok",
        "version": __version__,
        "checks": checks,
    }
    assert set(found["usage"]) == {"data_mb", "history_games", "matches", "rooms"}


def test_page_names_its_release(app: Flask) -> None:
    page = app.test_client().get("/").get_data(as_text=True)
    assert f'<meta name="release" content="{__version__}">' in page


def test_reconnect_gets_same_match(app: Flask, client: FlaskClient, play: Actions) -> None:
    played = play.play([play.state["board"].index(".")])
    play.sock.disconnect()
    again = Actions(connect(app, client))
    assert again.state["board"] == played["board"]
    assert again.state["version"] == played["version"]


# --- playing --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["adaptive", "easy", "medium", "hard", "impossible"])
def test_full_game_in_each_mode(play: Actions, mode: str) -> None:
    assert play.new_match(mode=mode) == {"ok": True}
    assert play.state["mode"] == mode
    versions = [play.state["version"]]
    final = play.play_out()
    versions.append(final["version"])
    assert final["turn"] is None
    assert final["status"] in {"human_won", "ai_won", "draw"}
    assert versions[1] > versions[0]
    record = final["match"]["record"]
    assert sum(record.values()) == 1 and final["match"]["games"] == 1
    ai_moves = [h for h in final["history"] if h["by"] == "ai"]
    assert ai_moves and final["last_ai_move"]["cell"] == ai_moves[-1]["cell"]
    if mode == "adaptive":
        assert final["last_ai_move"]["decision"] in {"perfect", "random"}
        assert 0 <= final["last_ai_move"]["roll"] <= 99
    else:
        assert final["match"]["difficulty"] is None
        assert final["last_ai_move"]["roll"] is None


def test_impossible_mode_never_loses(play: Actions) -> None:
    rng = random.Random(11)
    play.new_match(mode="impossible")
    for _ in range(12):
        final = play.play_out(
            lambda s: rng.choice([i for i, c in enumerate(s["board"]) if c == "."])
        )
        assert final["status"] != "human_won"
        assert play.emit("next_game") == {"ok": True}
    assert play.state["match"]["record"]["wins"] == 0


def test_ai_reply_follows_the_human_move(play: Actions) -> None:
    before = play.state
    cell = before["board"].index(".")
    assert play.emit("move", {"cell": cell}) == {"ok": True}
    seen = play.state
    assert seen["history"][-2:][0] == {"by": "human", "cell": cell}
    assert seen["history"][-1]["by"] == "ai"
    assert seen["board"].count(".") == before["board"].count(".") - 2


def test_every_change_bumps_version_by_one(socket_client: LiveSocket) -> None:
    first = states(socket_client)[-1]
    socket_client.emit("move", {"cell": first["board"].index(".")}, callback=True)
    versions = [s["version"] for s in states(socket_client)]
    assert versions == [first["version"] + 1, first["version"] + 2]


@pytest.mark.parametrize(
    ("first", "cells", "last", "status", "human_hp", "ai_hp", "change"),
    [
        ("human", [0, 3, 1, 4], 2, "human_won", 100, 90, {"human": 0, "ai": -10}),
        ("ai", [0, 1, 2, 3, 4, 5, 7], 6, "ai_won", 66, 100, {"human": -34, "ai": 0}),
        ("human", [0, 1, 2, 3, 4, 6, 5, 8], 7, "draw", 90, 98, {"human": -10, "ai": -2}),
    ],
)
def test_hp_changes_after_win_loss_and_draw(
    app: Flask,
    client: FlaskClient,
    play: Actions,
    first: Side,
    cells: list[int],
    last: int,
    status: str,
    human_hp: int,
    ai_hp: int,
    change: dict[str, int],
) -> None:
    stage(app, client, first, cells)
    assert play.emit("move", {"cell": last}) == {"ok": True}
    state = play.state
    assert state["status"] == status
    assert (state["match"]["human_hp"], state["match"]["ai_hp"]) == (human_hp, ai_hp)
    assert state["match"]["last_hp_change"] == change
    assert state["match"]["difficulty"] == 100 - ai_hp


def test_human_win_heals_up_to_the_cap(app: Flask, client: FlaskClient, play: Actions) -> None:
    stage(app, client, "human", [0, 3, 1, 4], human_hp=95)
    play.emit("move", {"cell": 2})
    assert play.state["match"]["human_hp"] == 100
    assert play.state["match"]["last_hp_change"] == {"human": 5, "ai": -10}


def test_match_ends_when_human_hp_runs_out(app: Flask, client: FlaskClient, play: Actions) -> None:
    stage(app, client, "ai", [0, 1, 2, 3, 4, 5, 7], human_hp=30)
    play.emit("move", {"cell": 6})
    assert play.state["match"]["over"] is True
    assert play.state["match"]["winner"] == "ai"
    assert error_code(play.emit("next_game")) == "match_over"
    assert error_code(play.emit("move", {"cell": 8})) == "match_over"
    assert play.new_match() == {"ok": True}
    assert play.state["match"]["over"] is False and play.state["match"]["human_hp"] == 100


def test_next_game_starts_a_fresh_board(play: Actions) -> None:
    finished = play.play_out()
    assert play.emit("next_game") == {"ok": True}
    state = play.state
    assert state["match"]["game"] == finished["match"]["game"] + 1
    assert state["match"]["games"] == 1
    assert state["board"].count(".") >= 8
    assert state["status"] == "playing"


def test_new_match_with_settings(play: Actions) -> None:
    assert play.new_match(mode="adaptive", human_hp=40, ai_hp=25) == {"ok": True}
    match = play.state["match"]
    assert (match["human_hp"], match["ai_hp"], match["difficulty"]) == (40, 25, 75)
    assert (match["start_human_hp"], match["start_ai_hp"]) == (40, 25)
    assert match["record"] == {"wins": 0, "losses": 0, "draws": 0}


def test_hint_matches_the_engine(play: Actions) -> None:
    ack = play.emit("hint")
    assert ack["ok"] is True
    expected = engine.analyse(Board.parse(play.state["board"])).to_dict()["moves"]
    assert ack["analysis"] == expected
    assert set(ack["analysis"]) == {str(i) for i, c in enumerate(play.state["board"]) if c == "."}


def test_hint_is_empty_when_game_is_over(play: Actions) -> None:
    play.play_out()
    assert play.emit("hint") == {"ok": True, "analysis": {}}


# --- errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "payload", "code"),
    [
        ("move", {"cell": 9}, "cell_out_of_range"),
        ("move", {"cell": -1}, "cell_out_of_range"),
        ("move", {"cell": "4"}, "bad_payload"),
        ("move", {"cell": True}, "bad_payload"),
        ("move", {"cell": 4.0}, "bad_payload"),
        ("move", {}, "bad_payload"),
        ("move", [4], "bad_payload"),
        ("move", "4", "bad_payload"),
        ("move", {"cell": 4, "player": "x"}, "bad_payload"),
        ("next_game", {"force": True}, "bad_payload"),
        ("hint", 3, "bad_payload"),
        ("new_match", {"mode": "godlike"}, "bad_setting"),
        ("new_match", {"mode": 3}, "bad_payload"),
        ("new_match", {"human_hp": 0}, "bad_setting"),
        ("new_match", {"ai_hp": 101}, "bad_setting"),
        ("new_match", {"ai_hp": "50"}, "bad_payload"),
        ("new_match", {"ai_hp": 50.5}, "bad_payload"),
        ("new_match", {"colour": "red"}, "bad_payload"),
        ("teleport", {}, "unknown_event"),
    ],
)
def test_bad_events_change_nothing(play: Actions, event: str, payload: object, code: str) -> None:
    before = play.state
    assert error_code(play.emit(event, payload)) == code
    assert play.state == before
    assert play.sock.is_connected()


def test_cell_taken(app: Flask, client: FlaskClient, play: Actions) -> None:
    stage(app, client, "human", [4, 0])
    assert error_code(play.emit("move", {"cell": 0})) == "cell_taken"


def test_not_your_turn(app: Flask, client: FlaskClient, play: Actions) -> None:
    stage(app, client, "human", [4])  # the AI is to move and its reply is not due
    assert error_code(play.emit("move", {"cell": 0})) == "not_your_turn"


def test_game_over_for_moves_and_for_early_next_game(play: Actions) -> None:
    assert error_code(play.emit("next_game")) == "game_over"
    play.play_out()
    empty = play.state["board"].find(".")
    if empty >= 0:
        assert error_code(play.emit("move", {"cell": empty})) == "game_over"


@pytest.mark.server
def test_rate_limit(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_PER_SECOND": 1.0}
    app = create_app({**settings, "RATE_BURST": 4})  # the connect packet takes one
    client = app.test_client()
    client.get("/")
    sock = connect(app, client)
    acks = [sock.emit("hint", callback=True) for _ in range(6)]
    codes = [a.get("error", {}).get("code") for a in acks]
    assert codes[:3] == [None, None, None]
    assert "rate_limited" in codes[3:]


# --- players and tabs -------------------------------------------------------------


@pytest.mark.server
def test_two_tabs_of_one_player_both_receive_every_state(app: Flask, client: FlaskClient) -> None:
    tab_a, tab_b = Actions(connect(app, client)), Actions(connect(app, client))
    assert tab_a.state["version"] == tab_b.state["version"]
    tab_a.play([tab_a.state["board"].index(".")])
    received = states(tab_b.sock)
    assert [s["version"] for s in received] == [tab_a.state["version"] - 1, tab_a.state["version"]]
    assert received[-1] == tab_a.state


@pytest.mark.server
def test_two_tabs_racing_exactly_one_move_wins(tmp_path: Path) -> None:
    app = slow_app(tmp_path)
    client = app.test_client()
    client.get("/")
    stage(app, client, "human", [])
    tab_a, tab_b = Actions(connect(app, client)), Actions(connect(app, client))
    assert tab_a.emit("move", {"cell": 0}) == {"ok": True}
    assert error_code(tab_b.emit("move", {"cell": 1})) == "not_your_turn"
    assert tab_b.state["history"] == [{"by": "human", "cell": 0}]


def test_concurrent_writers_exactly_one_wins(app: Flask, client: FlaskClient) -> None:
    staged = stage(app, client, "human", [])
    store, player = app.extensions["tictactoe"].store, player_of(client)
    barrier = threading.Barrier(6)
    results: list[str] = []

    def racer(cell: int) -> None:
        def step(current: Match | None) -> Match:
            assert current is not None
            barrier.wait(timeout=5)  # everyone read the same version before anyone writes
            return matches.human_move(current, cell)

        try:
            update(store, player, step, attempts=1)
            results.append("won")
        except (Conflict, MatchError) as err:
            results.append(type(err).__name__)

    threads = [threading.Thread(target=racer, args=(cell,)) for cell in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert results.count("won") == 1 and len(results) == 6
    final = store.load(player)
    assert final.version == staged.version + 1
    assert len(final.game.history) == 1


@pytest.mark.server
def test_two_players_never_see_each_other(app: Flask) -> None:
    alice_client, bob_client = app.test_client(), app.test_client()
    alice_client.get("/")
    bob_client.get("/")
    assert player_of(alice_client) != player_of(bob_client)
    alice, bob = Actions(connect(app, alice_client)), Actions(connect(app, bob_client))
    bob_before = bob.state
    alice.play([alice.state["board"].index(".")])
    assert states(bob.sock) == []
    assert bob.emit("hint")["ok"] and bob.state == bob_before


@pytest.mark.server
def test_delayed_ai_reply_is_pushed_later(tmp_path: Path) -> None:
    app = slow_app(tmp_path, delay_ms=50)
    client = app.test_client()
    client.get("/")
    stage(app, client, "human", [])
    sock = connect(app, client)
    states(sock)
    assert sock.emit("move", {"cell": 4}, callback=True) == {"ok": True}
    now = states(sock)
    assert [s["turn"] for s in now] == ["ai"]  # the reply is not there yet
    for _ in range(100):
        time.sleep(0.02)
        later = states(sock)
        if later:
            break
    assert later and later[-1]["turn"] == "human" and later[-1]["history"][-1]["by"] == "ai"


@pytest.mark.server
def test_a_move_and_the_ai_reply_are_stored_together_and_shown_in_order(
    tmp_path: Path,
) -> None:
    app = slow_app(tmp_path, delay_ms=300)
    client = app.test_client()
    client.get("/")
    staged = stage(app, client, "human", [])
    store = app.extensions["tictactoe"].store
    sock, late = connect(app, client), connect(app, client)
    states(sock), states(late)
    assert sock.emit("move", {"cell": 4}, callback=True) == {"ok": True}
    # The move and the reply are both stored before the move's ack, in one version step
    # each, and only the move is shown.
    stored = store.load(player_of(client))
    assert stored.version == staged.version + 2
    assert [by for by, _ in stored.game.history] == ["human", "ai"]
    assert [s["version"] for s in states(sock)] == [staged.version + 1]
    # The reply is not shown yet, and the server refuses moves on it until it is.
    assert error_code(sock.emit("move", {"cell": 0}, callback=True)) == "not_your_turn"
    shown: list[dict[str, Any]] = []
    for _ in range(100):
        time.sleep(0.02)
        shown = states(sock)
        if shown:
            break
    assert [s["version"] for s in shown] == [staged.version + 2]
    assert shown[-1]["turn"] == "human" and shown[-1]["history"][-1]["by"] == "ai"
    # Every tab received the same states in the same order.
    assert [s["version"] for s in states(late)] == [staged.version + 1, staged.version + 2]


# --- the page ----------------------------------------------------------------------


def test_the_page_offers_every_mode(app: Flask) -> None:
    page = app.test_client().get("/").get_data(as_text=True)
    offered = re.findall(r'<input type="radio" name="mode" id="mode-(\w+)" value="(\w+)"', page)
    assert [value for value, _ in offered] == list(MODE_CHOICES) == list(MODES)
    for value, (name, description) in MODE_CHOICES.items():
        assert f'<label for="mode-{value}">{name}</label>' in page
        assert description in page
