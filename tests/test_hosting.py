"""Production hosting: security headers, cookies, one proxy hop, payload and rate limits."""

from __future__ import annotations

import gc
import json
import logging
import random
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import socketio
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of
from support.testing import HOST, Player, ServerProcess, free_port, session_cookie

from webapp import __version__
from webapp.game import engine
from webapp.game import match as matches
from webapp.server import settings as config
from webapp.server.app import create_app, transport_limit
from webapp.server.process import serve
from webapp.server.settings import DEFAULTS
from webapp.server.store import matches as stores
from webapp.server.store.matches import SQLiteStore, update
from webapp.server.wire.security import handshake_allowed

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

PROXY_HEADERS = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "public.example"}
PUBLIC = "https://public.example"
FORGED_HOST = {**PROXY_HEADERS, "X-Forwarded-Host": "evil.example"}


def proxied_app(tmp_path: Path, *, trust: bool) -> Flask:
    """The app as it runs behind a reverse proxy, trusting it or not."""
    settings = {"DATA_DIR": str(tmp_path), "TRUST_PROXY": trust, "PUBLIC_HOSTS": "public.example"}
    return create_app({"TESTING": True, **settings})


def set_cookie(client: FlaskClient, **headers: str) -> str:
    """The Set-Cookie header of the page."""
    return str(client.get("/", headers=headers).headers["Set-Cookie"])


def error_code(ack: dict[str, Any]) -> str:
    assert ack["ok"] is False, ack
    return str(ack["error"]["code"])


# --- pages ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/healthz"])
def test_security_headers(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    directives = (part.partition(" ") for part in headers["Content-Security-Policy"].split("; "))
    policy = {name: value for name, _, value in directives}
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"  # no 'unsafe-inline', no other host
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"


def test_page_has_no_inline_script(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for tag in page.split("<script")[1:]:
        opening = tag.split(">", 1)[0]
        assert "src=" in opening, f"inline script: <script{opening}>"
    assert " on" + "click=" not in page and "javascript:" not in page


def test_session_cookie_flags_over_http(app: Flask) -> None:
    cookie = set_cookie(app.test_client())
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie


def test_session_cookie_is_secure_over_https(app: Flask) -> None:
    cookie = app.test_client().get("/", base_url="https://localhost").headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


# --- behind one proxy hop ----------------------------------------------------------


def test_forwarded_https_marks_the_cookie_secure_when_trusted(tmp_path: Path) -> None:
    cookie = set_cookie(proxied_app(tmp_path, trust=True).test_client(), **PROXY_HEADERS)
    assert "Secure" in cookie


def test_forwarded_headers_are_ignored_without_trust(tmp_path: Path) -> None:
    cookie = set_cookie(proxied_app(tmp_path, trust=False).test_client(), **PROXY_HEADERS)
    assert "Secure" not in cookie


def test_trust_proxy_is_read_from_the_environment() -> None:
    assert config.load({"TICTACTOE_TRUST_PROXY": "1"}) == {**DEFAULTS, "TRUST_PROXY": True}
    assert config.load({"TICTACTOE_TRUST_PROXY": "off"}) == {**DEFAULTS, "TRUST_PROXY": False}
    assert config.load({})["TRUST_PROXY"] is False


def open_socket(server: ServerProcess, cookie: str, origin: str, **headers: str) -> socketio.Client:
    """A websocket-only Socket.IO client sending exactly one Origin header."""
    client = socketio.Client(reconnection=False, websocket_extra_options={"origin": origin})
    client.connect(
        server.url,
        headers={"Cookie": cookie, **headers},
        auth={"release": __version__},
        transports=["websocket"],
        wait_timeout=5,
    )
    return client


def test_real_server_behind_a_trusted_proxy(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(TICTACTOE_TRUST_PROXY="1", TICTACTOE_PUBLIC_HOSTS="public.example")
    cookie = session_cookie(server.url)
    accepted = open_socket(server, cookie, PUBLIC, **PROXY_HEADERS)
    assert accepted.call("hint", {}, timeout=5)["ok"] is True
    accepted.disconnect()
    for origin, headers in [
        (PUBLIC, {}),  # the proxy did not vouch for the public host
        ("https://attacker.example", PROXY_HEADERS),
        ("http://public.example", PROXY_HEADERS),  # the scheme must match too
    ]:
        with pytest.raises(socketio.exceptions.ConnectionError):
            open_socket(server, cookie, origin, **headers)


def test_real_server_refuses_forwarded_origin_without_trust(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    with pytest.raises(socketio.exceptions.ConnectionError):
        open_socket(server, cookie, PUBLIC, **PROXY_HEADERS)
    with pytest.raises(socketio.exceptions.ConnectionError):
        open_socket(server, cookie, "http://attacker.example")
    open_socket(server, cookie, server.url).disconnect()  # same origin is fine


@pytest.mark.parametrize(
    ("trust", "origin", "headers", "allowed"),
    [
        (True, PUBLIC, PROXY_HEADERS, True),
        (True, "http://localhost", {}, True),
        (True, PUBLIC, {}, False),
        (False, PUBLIC, PROXY_HEADERS, False),
        (False, "http://localhost", PROXY_HEADERS, True),
        (False, "http://attacker.example", {}, False),
        (False, None, {}, True),  # no Origin: not a browser, nothing to check
        # A forwarded host that is not listed as public is ignored.
        (
            True,
            "https://evil.example",
            {**PROXY_HEADERS, "X-Forwarded-Host": "evil.example"},
            False,
        ),
        (True, "https://localhost", {**PROXY_HEADERS, "X-Forwarded-Host": "evil.example"}, True),
    ],
)
def test_handshake_origin_check(
    tmp_path: Path, trust: bool, origin: str | None, headers: dict[str, str], allowed: bool
) -> None:
    app = proxied_app(tmp_path, trust=trust)
    environ = {"wsgi.url_scheme": "http", "HTTP_HOST": "localhost", "REMOTE_ADDR": "127.0.0.1"}
    environ.update({f"HTTP_{k.upper().replace('-', '_')}": v for k, v in headers.items()})
    if origin:
        environ["HTTP_ORIGIN"] = origin
    assert handshake_allowed(app, environ) is allowed


def test_real_server_cookie_behind_a_trusted_proxy(
    server_factory: Callable[..., ServerProcess],
) -> None:
    import urllib.request

    server = server_factory(TICTACTOE_TRUST_PROXY="1")
    request = urllib.request.Request(server.url + "/", headers=PROXY_HEADERS)
    with urllib.request.urlopen(request) as reply:
        cookie = reply.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


# --- payload limits -------------------------------------------------------------------


def test_transport_limit_sits_a_little_above_the_app_limit() -> None:
    app_limit = int(DEFAULTS["MAX_PAYLOAD_BYTES"])
    assert 1024 <= app_limit < transport_limit(app_limit) <= 8192


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("new_match", {"mode": "x" * 3000}),  # would be bad_setting if it were short
        ("move", {"cell": "9" * 3000}),  # would be cell_out_of_range
        ("hint", {"x": ["y" * 100] * 22}),  # a frame over the slack is closed: test_attacks
    ],
)
def test_oversized_payload_is_bad_payload(play: Actions, event: str, payload: object) -> None:
    assert len(json.dumps(payload)) > int(DEFAULTS["MAX_PAYLOAD_BYTES"])
    before = play.state
    assert error_code(play.emit(event, payload)) == "bad_payload"
    assert play.state == before


@pytest.mark.parametrize("event", ["move", "next_game", "new_match", "hint"])
@pytest.mark.parametrize("payload", [[1], "x", 3, 2.5, True])
def test_non_object_payload_is_bad_payload(play: Actions, event: str, payload: object) -> None:
    before = play.state
    assert error_code(play.emit(event, payload)) == "bad_payload"
    assert play.state == before


def test_real_server_payload_limits(server: ServerProcess) -> None:
    """Over the app's limit: a bad_payload ack. Over the transport's: the socket is dropped."""
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    state = player.human_turn()
    app_limit = int(DEFAULTS["MAX_PAYLOAD_BYTES"])
    between = {"mode": "x" * (app_limit + 100)}
    assert len(json.dumps(["new_match", between])) + 4 < transport_limit(app_limit)
    ack = player.client.call("new_match", between, timeout=5)
    assert error_code(ack) == "bad_payload"
    assert player.states[-1] == state and player.client.connected

    dropped = Player(server.url, cookie)
    with pytest.raises(socketio.exceptions.SocketIOError):
        dropped.client.call("new_match", {"mode": "x" * transport_limit(app_limit)}, timeout=5)
    deadline = time.monotonic() + 5
    while dropped.client.connected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not dropped.client.connected
    # The server lives on: the first player still plays.
    assert player.move(state["board"].index(".")) == {"ok": True}
    player.close()


def test_event_named_star_is_an_unknown_event(play: Actions) -> None:
    """python-socketio reserves "*" for catch-all handlers; a client may still send it."""
    before = play.state
    for payload in (None, {}):
        assert error_code(play.emit("*", payload)) == "unknown_event"
    assert play.state == before and play.sock.is_connected()


# --- rate limit ---------------------------------------------------------------------


def limited_app(tmp_path: Path, burst: int) -> Flask:
    """An app whose connections may send ``burst`` packets at once, then one a second."""
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_PER_SECOND": 1.0}
    return create_app({"TESTING": True, **settings, "RATE_BURST": burst})


@pytest.mark.server
def test_rate_limited_events_change_nothing(tmp_path: Path) -> None:
    app = limited_app(tmp_path, 3)  # the connect packet counts too
    client = app.test_client()
    client.get("/")
    sock = connect(app, client)
    store = app.extensions["tictactoe"].store
    assert sock.emit("hint", callback=True)["ok"] and sock.emit("hint", callback=True)["ok"]
    before = store.load(player_of(client))
    cell = before.game.board.cells.index(".")
    assert error_code(sock.emit("move", {"cell": cell}, callback=True)) == "rate_limited"
    assert store.load(player_of(client)) == before
    shown = [e["args"][0] for e in sock.get_received() if e["name"] == "state"]
    assert shown and all(state["version"] <= before.version for state in shown)


def test_rate_limit_settings_come_from_the_environment(tmp_path: Path) -> None:
    found = config.load({"TICTACTOE_RATE_PER_SECOND": "50", "TICTACTOE_RATE_BURST": "80"})
    assert found == {**DEFAULTS, "RATE_PER_SECOND": 50.0, "RATE_BURST": 80}
    app = create_app({**found, "TESTING": True, "DATA_DIR": str(tmp_path)})
    limits = app.extensions["rate_limits"]
    assert (limits.rate, limits.burst) == (50.0, 80)


@pytest.mark.server
def test_each_connection_has_its_own_bucket(tmp_path: Path) -> None:
    app = limited_app(tmp_path, 2)  # one for the connect packet, one for an event
    client = app.test_client()
    client.get("/")
    first, second = connect(app, client), connect(app, client)
    assert first.emit("hint", callback=True)["ok"]
    assert error_code(first.emit("hint", callback=True)) == "rate_limited"
    assert second.emit("hint", callback=True)["ok"]


def test_closed_transport_forgets_the_connection(app: Flask, client: FlaskClient) -> None:
    """In-process, where the limits' table can be read: Flask-SocketIO's test client, and
    Engine.IO's own disconnect handler called as a closed transport calls it."""
    engineio = app.extensions["socketio"].server.eio
    auth = {"release": __version__, "view": "match"}
    for _ in range(5):
        sock = app.extensions["socketio"].test_client(app, flask_test_client=client, auth=auth)
        sock.emit("hint", callback=True)
        assert sock.eio_sid in app.extensions["rate_limits"].connections
        sock.disconnect()  # Socket.IO's disconnect packet: the bucket stays with the transport
        assert sock.eio_sid in app.extensions["rate_limits"].connections
        engineio.handlers["disconnect"](sock.eio_sid, "transport close")  # as Engine.IO does
    assert app.extensions["rate_limits"].connections == {}
    assert app.extensions["tictactoe"].pending == set()


# --- serving ------------------------------------------------------------------------


def test_listener_turns_nagle_off() -> None:
    """Small replies (state, state, ack) must not wait for the client's delayed ACK.

    The arbiter opens the listening socket from the application's settings, as here.
    """
    from gunicorn.sock import create_sockets

    settings = {**config.load({}), "HOST": HOST, "PORT": free_port()}
    application = serve.Application(settings)
    (listener,) = create_sockets(application.cfg, logging.getLogger(__name__))
    try:
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        client = socket.create_connection(listener.getsockname(), timeout=5)
        listener.sock.settimeout(5)
        accepted, _ = listener.accept()
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        accepted.close()
        client.close()
    finally:
        listener.close()


def test_build_tables_solves_once_and_freezes_what_it_built() -> None:
    serve.build_tables()
    try:
        assert gc.get_freeze_count() > 0
        # Every position's analysis is cached now, so no worker builds one of its own.
        assert engine._analysis.cache_info().currsize == len(engine.solved()) == 5_478
    finally:
        gc.unfreeze()


# --- the store's parsed rows -----------------------------------------------------


def test_store_sees_a_row_written_by_another_process(tmp_path: Path) -> None:
    """Parsed matches are reused only while the row is unchanged: SQLite stays the truth."""
    rng = random.Random(3)
    path = tmp_path / "shared.sqlite3"
    ours, theirs = SQLiteStore(path), SQLiteStore(path)
    first = update(ours, "p", lambda current: current or matches.new_match(rng))
    assert ours.load("p") is first  # parsed once, reused
    moved = update(theirs, "p", lambda m: matches.ai_move(m) if m.game.turn == "ai" else m)
    moved = update(theirs, "p", lambda m: matches.human_move(m, m.game.board.cells.index(".")))
    seen = ours.load("p")
    assert seen == moved and seen is not first
    stale = ours.save("p", matches.new_match(rng, version=first.version), expected=first.version)
    assert not stale  # compare-and-set still refuses a write based on the old version
    assert ours.load("p") == moved


def test_store_keeps_a_bounded_number_of_parsed_rows(tmp_path: Path) -> None:
    rng = random.Random(4)
    store = SQLiteStore(tmp_path / "many.sqlite3")
    for index in range(stores.RECENT_ROWS + 50):
        update(store, f"p{index}", lambda current: current or matches.new_match(rng))
    assert len(store._parsed) == stores.RECENT_ROWS
    assert store.load("p0") is not None  # dropped from memory, still in SQLite


# --- under a base path ---------------------------------------------------------------------


@pytest.fixture
def under_path(tmp_path: Path) -> FlaskClient:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "BASE_PATH": "/tictactoe"})
    return app.test_client()


def test_under_a_base_path_every_url_carries_it(under_path: FlaskClient) -> None:
    page = under_path.get("/tictactoe/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert '<meta name="socket-path" content="/tictactoe/socket.io/">' in html
    assert 'src="/tictactoe/static/js/main.js' in html
    assert "Path=/tictactoe;" in page.headers["Set-Cookie"]
    assert under_path.get("/tictactoe/static/js/main.js").status_code == 200
    assert under_path.get("/tictactoe/healthz").status_code == 200


def test_under_a_base_path_other_paths_are_not_found(under_path: FlaskClient) -> None:
    assert under_path.get("/").status_code == 404
    assert under_path.get("/healthz").status_code == 404
    assert under_path.get("/tictactoes/").status_code == 404
    moved = under_path.get("/tictactoe")
    assert moved.status_code == 308 and moved.headers["Location"] == "/tictactoe/"
    assert "Content-Security-Policy" in moved.headers


@pytest.mark.parametrize(
    ("value", "parsed"), [("", None), ("/tictactoe/", "/tictactoe"), ("/games/ttt", "/games/ttt")]
)
def test_base_path_setting(value: str, parsed: str | None) -> None:
    assert config.load({"TICTACTOE_BASE_PATH": value})["BASE_PATH"] == parsed


@pytest.mark.parametrize("value", ["tictactoe", "/a//b", "/a b", "/<x>", "/%2e"])
def test_base_path_setting_refuses_what_is_not_a_plain_path(value: str) -> None:
    with pytest.raises(config.SettingError, match="TICTACTOE_BASE_PATH"):
        config.load({"TICTACTOE_BASE_PATH": value})
