"""The protocol tests' sockets, on the production stack.

``connect(app, client)`` opens a websocket to ``tictactoe serve`` (gunicorn's gevent
worker, Engine.IO's gevent driver and simple-websocket, as in production) started on the
test app's data dir and settings. The test app itself stays in the test's process for
what is not the socket: its pages, through Flask's test client, and a look into the
store they share.

A ``LiveSocket`` has the calls of Flask-SocketIO's test client that the tests use, and
reads its websocket in the caller's thread, so events come in the order the server sent
them. ``get_received`` first sends an event that the server does not know and waits for
its answer: whatever the server sent this socket before handling it has arrived by then,
other sockets' doings included.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webapp import __version__
from webapp.server import settings as config
from webapp.server.store import datadir

from .testing import ServerProcess

if TYPE_CHECKING:
    import pytest
    from flask import Flask
    from flask.testing import FlaskClient

BARRIER = "barrier"  # no such event: the server answers unknown_event and changes nothing
TIMEOUT = 10.0
# Set by the test process or the server process manager, never from a test's settings.
OWN = {"HOST", "PORT", "DATA_DIR", "SECRET_KEY"}

PAGE = object()  # the auth that this release's page sends

ServerKey = tuple[str, tuple[tuple[str, str], ...]]  # the data dir, the environment
_servers: dict[ServerKey, ServerProcess] = {}


def server_environment(app: Flask) -> dict[str, str]:
    """The environment that gives ``tictactoe serve`` the settings ``app`` was made with."""
    defaults = config.load({})
    env = {}
    for setting in config.SETTINGS:
        value = app.config.get(setting.name)
        if setting.env and setting.name not in OWN and value != defaults[setting.name]:
            env[setting.env] = _as_text(value)
    return env


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)
    return "" if value is None else str(value)


def live_server(app: Flask) -> ServerProcess:
    """The production server on ``app``'s data dir and settings, started on first use."""
    data_dir = app.config["DATA_DIR"]
    env = server_environment(app)
    if app.config["SECRET_KEY"] != datadir.secret_key(Path(data_dir)):
        env["TICTACTOE_SECRET_KEY"] = app.config["SECRET_KEY"]
    key = (data_dir, tuple(sorted(env.items())))
    if key not in _servers:
        server = ServerProcess(Path(data_dir), env)
        _servers[key] = server
        server.start()
    return _servers[key]


def server_log(app: Flask) -> str:
    """What the production server on ``app`` has written to its log so far."""
    return live_server(app).log_tail(chars=1_000_000)


def live_servers() -> frozenset[ServerKey]:
    """The servers running now, to keep when the ones started later are stopped."""
    return frozenset(_servers)


def stop_live_servers(keep: Set[ServerKey] = frozenset()) -> None:
    """Stop the servers that ``live_server`` started, but those in ``keep`` (killed: their
    data dirs are thrown away with the test)."""
    for key in [key for key in _servers if key not in keep]:
        _servers.pop(key).kill()


def make_app(kind: str, tmp_path: Path, request: pytest.FixtureRequest, **settings: Any) -> Flask:
    """The app with everything on SQLite in ``tmp_path``, or on the test Redis (emptied)."""
    from webapp.server.app import create_app

    base = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 3, "RATE_BURST": 10_000}
    if kind == "redis":
        base["REDIS_URL"] = request.getfixturevalue("redis_url")
    return create_app({"TESTING": True, **base, **settings})


def browser(app: Flask) -> FlaskClient:
    """A new player: a test client that has loaded the page (its session cookie)."""
    web = app.test_client()
    assert web.get("/").status_code == 200
    return web


def session_of(app: Flask, client: FlaskClient) -> str:
    """The Cookie header that ``client`` would send: its session, if it has one."""
    name = app.config["SESSION_COOKIE_NAME"]
    found = client.get_cookie(name)
    return f"{name}={found.value}" if found else ""


def post(app: Flask, client: FlaskClient, path: str, form: dict[str, str] | None = None) -> int:
    """POST ``form`` to ``path`` on the production server as the player behind ``client``
    (from the server's own origin, as its pages do), for what the server then tells
    sockets; the reply's status (a redirect is not followed)."""
    server = live_server(app)
    url = server.url + (app.config["BASE_PATH"] or "") + path
    headers = {"Origin": server.url, "Cookie": session_of(app, client)}
    body = urllib.parse.urlencode(form or {}).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=TIMEOUT) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def connect(
    app: Flask,
    client: FlaskClient,
    *,
    view: str = "match",
    auth: object = PAGE,
    headers: dict[str, str] | None = None,
) -> LiveSocket:
    """Open one more socket for the player behind ``client`` on the production server,
    showing ``view`` (their match, or their practice game); ``auth`` replaces the page's."""
    server = live_server(app)
    base = app.config["BASE_PATH"] or ""
    sent = {"release": __version__, "view": view} if auth is PAGE else auth
    return LiveSocket(server.url + base, session_of(app, client), sent, headers=headers or {})


class LiveSocket:
    """One Socket.IO connection over a websocket, read only when the caller reads."""

    def __init__(self, url: str, cookie: str, auth: object, *, headers: dict[str, str]) -> None:
        import websocket

        parts = urllib.parse.urlsplit(url)
        address = f"ws://{parts.netloc}{parts.path}/socket.io/?EIO=4&transport=websocket"
        self.received: list[dict[str, Any]] = []
        self.refusal: dict[str, Any] | None = None
        self.eio_sid = ""
        self.connected = False
        self._acks: dict[int, list[Any]] = {}
        self._next_id = 0
        self.ws: Any = None  # websocket-client's WebSocket, None once closed
        sent = [f"{name}: {value}" for name, value in headers.items() if name != "Origin"]
        try:
            self.ws = websocket.create_connection(
                address,
                header=[*sent, *([f"Cookie: {cookie}"] if cookie else [])],
                origin=headers.get("Origin", f"{parts.scheme}://{parts.netloc}"),
                timeout=TIMEOUT,
            )
        except (websocket.WebSocketException, OSError):
            return  # the upgrade was refused: never connected
        opened = self._read_raw()
        if opened is None or not opened.startswith("0"):
            self._close()
            return
        self.eio_sid = json.loads(opened[1:])["sid"]
        self._send("40" + ("" if auth is None else json.dumps(auth)))
        while not self.connected and self.ws is not None and self.refusal is None:
            self._read_one()

    # --- what the tests call ------------------------------------------------------

    def is_connected(self) -> bool:
        """Whether the server still holds this socket (after what it has sent is read)."""
        if self.connected:
            self._barrier()
        return self.connected

    def emit(self, event: str, *args: Any, callback: bool = False) -> Any:
        """Send an event; with ``callback``, wait for and return its acknowledgement."""
        ack_id = self._next_id if callback else None
        self._next_id += callback
        packet = "42" + ("" if ack_id is None else str(ack_id)) + json.dumps([event, *args])
        if not self._send(packet) or ack_id is None:
            return None
        while ack_id not in self._acks:
            if not self._read_one():
                return None  # the server closed the socket instead of answering
        answer = self._acks.pop(ack_id)
        return answer[0] if len(answer) == 1 else answer

    def flood(self, event: str, *args: Any, times: int) -> list[Any]:
        """Send ``event`` ``times`` times without waiting in between, as a flood does; the
        acknowledgements, None for each that the server left unanswered."""
        first = self._next_id
        self._next_id += times
        for ack_id in range(first, first + times):
            self._send("42" + str(ack_id) + json.dumps([event, *args]))
        while any(i not in self._acks for i in range(first, first + times)) and self._read_one():
            pass
        answers = [self._acks.pop(i, None) for i in range(first, first + times)]
        return [a if a is None else a[0] if len(a) == 1 else a for a in answers]

    def get_received(self, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every event received since the last call, oldest first."""
        del namespace  # one namespace, "/"
        if self.connected:
            self._barrier()
        else:
            self._drain()
        received, self.received = self.received, []
        return received

    def disconnect(self) -> None:
        """Leave, as a closing page does."""
        if self.connected:
            self._send("41")
        self.connected = False
        self._close()

    # --- the wire -------------------------------------------------------------------

    def _barrier(self) -> None:
        self.emit(BARRIER, callback=True)

    def _drain(self) -> None:
        """Read what is left after the server said goodbye, up to its close."""
        while self.ws is not None and self._read_one():
            pass

    def _send(self, text: str) -> bool:
        import websocket

        if self.ws is None:
            return False
        try:
            self.ws.send(text)
        except (websocket.WebSocketException, OSError):
            self._close()  # the server closed it: what it sent is still read
            return False
        return True

    def _read_raw(self) -> str | None:
        import websocket

        if self.ws is None:
            return None
        try:
            frame = self.ws.recv()
        except (websocket.WebSocketConnectionClosedException, OSError):
            self._close()
            return None
        if frame == "":  # a close frame
            self._close()
            return None
        return frame if isinstance(frame, str) else frame.decode()

    def _read_one(self) -> bool:
        """Read and handle one Engine.IO packet; False once the socket is closed."""
        text = self._read_raw()
        if text is None:
            return False
        kind, body = text[:1], text[1:]
        if kind == "2":
            self._send("3" + body)
        elif kind == "1":
            self._close()
            return False
        elif kind == "4":
            self._on_message(body)
        return True

    def _on_message(self, body: str) -> None:
        kind, rest = body[:1], body[1:]
        if rest.startswith("/"):
            rest = rest.split(",", 1)[1] if "," in rest else ""
        digits = len(rest) - len(rest.lstrip("0123456789"))
        packet_id = int(rest[:digits]) if digits else None
        data: Any = json.loads(rest[digits:]) if rest[digits:] else None
        if kind == "0":
            self.connected = True
        elif kind == "1":
            self.connected = False
        elif kind == "4":
            self.refusal = data if isinstance(data, dict) else {"message": data}
        elif kind == "2":
            self.received.append({"name": data[0], "args": data[1:], "namespace": "/"})
        elif kind == "3" and packet_id is not None:
            self._acks[packet_id] = data

    def _close(self) -> None:
        self.connected = False
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close(timeout=1)
            self.ws = None


def events(sock: LiveSocket, name: str) -> Iterator[Any]:
    """The first argument of each ``name`` event received since the last read."""
    for packet in sock.get_received():
        if packet["name"] == name:
            yield packet["args"][0]


def player_of(client: FlaskClient) -> str:
    """The player id in the client's session cookie."""
    with client.session_transaction() as sess:
        return str(sess["player"])


def states(sock: LiveSocket) -> list[dict[str, Any]]:
    """The ``state`` snapshots received since the last call, oldest first."""
    return [e["args"][0] for e in sock.get_received() if e["name"] == "state"]


class Actions:
    """Small helpers to drive one player through the protocol."""

    def __init__(self, sock: LiveSocket) -> None:
        self.sock = sock
        self.state: dict[str, Any] = {}
        self.refresh()

    def refresh(self) -> dict[str, Any]:
        """Read pending snapshots and keep the newest."""
        for snapshot in states(self.sock):
            self.state = snapshot
        return self.state

    def emit(self, event: str, payload: object = None) -> dict[str, Any]:
        """Send one event and return its acknowledgement."""
        args = () if payload is None else (payload,)
        ack = self.sock.emit(event, *args, callback=True)
        self.refresh()
        return ack  # type: ignore[no-any-return]

    def new_match(self, **settings: object) -> dict[str, Any]:
        """Start a new match; returns the ack."""
        return self.emit("new_match", settings)

    def play(self, cells: list[int]) -> dict[str, Any]:
        """Play ``cells`` in turn (the AI replies between them); returns the last state."""
        for cell in cells:
            ack = self.emit("move", {"cell": cell})
            assert ack == {"ok": True}, ack
        return self.state

    def play_out(self, choose: Callable[[dict[str, Any]], int] | None = None) -> dict[str, Any]:
        """Finish the current game, playing the first empty cell (or ``choose``'s pick)."""
        while self.state["turn"] == "human":
            pick = choose(self.state) if choose else self.state["board"].index(".")
            self.play([pick])
        return self.state

    def finish_games(self, count: int) -> None:
        """Play ``count`` games to their end, starting the next game (or match) after each."""
        for _ in range(count):
            self.play_out()
            ack = self.new_match() if self.state["match"]["over"] else self.emit("next_game")
            assert ack == {"ok": True}, ack
