"""The Flask application: configuration, pages, and the Socket.IO server."""

from __future__ import annotations

import gc
import json
import logging
import os
import secrets
import socket
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
from flask import (
    Blueprint,
    Flask,
    Request,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    session,
)
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from socketio.packet import BINARY_EVENT, EVENT, Packet
from werkzeug.middleware.proxy_fix import ProxyFix

from . import __version__, engine
from .board import Board
from .store import RedisStore, SQLiteStore, Store

log = logging.getLogger(__name__)
PACKAGE_DIR = Path(__file__).resolve().parent

DEFAULTS: dict[str, Any] = {
    "HOST": "127.0.0.1",
    "PORT": 5000,
    "DATA_DIR": None,  # None: the Flask instance folder
    "AI_DELAY_MS": 350,
    "SECRET_KEY": None,  # None: generated once and kept in the data dir
    "ALLOWED_ORIGINS": None,  # None: same origin only
    "TRUST_PROXY": False,
    "IDLE_DAYS": 30,
    "RATE_PER_SECOND": 20.0,
    "RATE_BURST": 40,
    "MAX_PAYLOAD_BYTES": 2048,  # one event's JSON payload; the transport allows a bit more
    "ASYNC_MODE": "threading",
    "SEED": None,
    "REDIS_URL": None,  # None: SQLite in the data dir, one process
    "POLLING": False,  # let browsers fall back to long-polling (needs sticky sessions)
}
# Environment variables that override the defaults, and how to read each one.
ENV_SETTINGS: dict[str, Any] = {
    "HOST": str,
    "PORT": int,
    "DATA_DIR": str,
    "AI_DELAY_MS": int,
    "SECRET_KEY": str,
    "ALLOWED_ORIGINS": str,
    "TRUST_PROXY": lambda v: v.strip().lower() in ("1", "true", "yes", "on"),
    "IDLE_DAYS": float,
    "RATE_PER_SECOND": float,
    "RATE_BURST": int,
    "REDIS_URL": str,
    "POLLING": lambda v: v.strip().lower() in ("1", "true", "yes", "on"),
}
UNPREFIXED = ("HOST", "PORT")
# How `tictactoe serve` serves: gevent's WSGI server with gevent-websocket, on a listener
# with Nagle's algorithm off (docs/performance.md has the measurements behind this).
SERVING_WAY = "pywsgi-gws-nodelay"
PROXY_HOPS = {"x_for": 1, "x_proto": 1, "x_host": 1, "x_port": 1}  # one reverse proxy
TRANSPORT_SLACK_BYTES = 1024  # the event name, ack id and framing around a payload
LISTEN_BACKLOG = 2048
PRUNE_EVERY_SECONDS = 6 * 3600

pages = Blueprint("pages", __name__)


def resource_dir(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else beside it in a checkout."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / name


def env_config(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings read from ``TICTACTOE_*`` variables (and plain HOST and PORT)."""
    found: dict[str, Any] = {}
    for key, parse in ENV_SETTINGS.items():
        names = [f"TICTACTOE_{key}"] + ([key] if key in UNPREFIXED else [])
        for name in names:
            if environ.get(name):
                found[key] = parse(environ[name])
                break
    return found


class _SessionInterface(SecureCookieSessionInterface):
    """Marks the session cookie Secure whenever the request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:  # type: ignore[override]
        """The cookie's session; for a socket's later events, the copy made at connect.

        Flask-SocketIO swaps that copy in for every event anyway, so checking the
        cookie's signature again on each event would only cost time.
        """
        saved: SessionMixin | None = request.environ.get("saved_session")
        return saved if saved is not None else super().open_session(app, request)


class _Json:
    """The JSON of Socket.IO packets: orjson out (ten times faster), the standard library in.

    Incoming packets keep the standard parser, which takes what clients may send and
    orjson refuses (integers over 64 bits, NaN); outgoing text that orjson cannot
    write (a lone surrogate echoed in an error message) falls back to it as well.
    """

    @staticmethod
    def dumps(data: object, **_: object) -> str:
        try:
            return orjson.dumps(data).decode()
        except TypeError:
            return json.dumps(data, separators=(",", ":"))

    loads = staticmethod(json.loads)


class _Packet(Packet):  # type: ignore[misc]
    """Socket.IO packets without the search for binary data in every outgoing one.

    The server only ever sends JSON; clients' binary attachments are still decoded.
    """

    uses_binary_events = False
    json = _Json

    def decode(self, encoded_packet: str | bytes) -> int:
        attachments = int(super().decode(encoded_packet) or 0)
        # python-socketio takes an event named "*" for its catch-all and cannot dispatch
        # it; renamed, it reaches the catch-all and is refused as an unknown event.
        is_event = self.packet_type in (EVENT, BINARY_EVENT)
        if is_event and isinstance(self.data, list) and self.data[:1] == ["*"]:
            self.data[0] = "(*)"
        return attachments


def _secret_key(data_dir: Path) -> str:
    """The key kept in the data dir, created once with owner-only permissions."""
    path = data_dir / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then ``test_config``."""
    app = Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
    )
    app.config.update(DEFAULTS)
    app.config.update(env_config(os.environ))
    app.config.update(test_config or {})
    data_dir = Path(app.config["DATA_DIR"] or app.instance_path)
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)
    app.config["SECRET_KEY"] = app.config["SECRET_KEY"] or _secret_key(data_dir)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=app.config["IDLE_DAYS"]),
    )
    app.session_interface = _SessionInterface()
    app.register_blueprint(pages)
    app.after_request(_security_headers)

    from .events import Games, GatedSocketIO, register

    store = open_store(app.config)
    check = origin_check(_origins(app.config["ALLOWED_ORIGINS"]))
    app.extensions["origin_check"] = check
    socketio = GatedSocketIO(
        app,
        async_mode=app.config["ASYNC_MODE"],
        cors_allowed_origins=check,
        max_http_buffer_size=transport_limit(app.config["MAX_PAYLOAD_BYTES"]),
        serializer=_Packet,
        message_queue=app.config["REDIS_URL"],
    )
    if app.config["TRUST_PROXY"]:
        # Outermost, so that the Socket.IO handshake sees the proxy's scheme and host too.
        app.wsgi_app = ProxyFix(app.wsgi_app, **PROXY_HOPS)  # type: ignore[method-assign]
    games = Games(app.config, store, socketio)
    app.extensions["tictactoe"] = games
    register(socketio, games)
    return app


def open_store(config: Mapping[str, Any]) -> Store:
    """Redis when ``REDIS_URL`` is set (several processes), else SQLite in the data dir."""
    idle_seconds = float(config["IDLE_DAYS"]) * 86400
    if config["REDIS_URL"]:
        return RedisStore(config["REDIS_URL"], idle_seconds=idle_seconds)
    store = SQLiteStore(Path(config["DATA_DIR"]) / "matches.sqlite3")
    store.prune(idle_seconds)
    return store


def transport_limit(payload_limit: int) -> int:
    """Socket.IO's message limit: a bit above the app's, so the app answers ``bad_payload``."""
    return int(payload_limit) + TRANSPORT_SLACK_BYTES


def _origins(setting: str | None) -> list[str] | None:
    if not setting:
        return None
    return [origin.strip() for origin in setting.split(",") if origin.strip()]


def origin_check(allowed: list[str] | None) -> Callable[[str | None, Mapping[str, Any]], bool]:
    """Accept the configured origins, else only our own scheme and host.

    The scheme and host are the request's own, which ProxyFix has already taken from
    X-Forwarded-* when (and only when) TRUST_PROXY is on.
    """

    def check(origin: str | None, environ: Mapping[str, Any]) -> bool:
        if allowed is not None:
            return origin in allowed
        return origin == f"{environ.get('wsgi.url_scheme')}://{environ.get('HTTP_HOST')}"

    return check


def _security_headers(response: Response) -> Response:
    """Pages may load only our own scripts and styles, and never inside a frame."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


@pages.get("/")
def index() -> str:
    """The game page; gives a new browser its player id in the session cookie."""
    if "player" not in session:
        session["player"] = secrets.token_urlsafe(18)
    session.permanent = True
    transports = "websocket,polling" if current_app.config["POLLING"] else "websocket"
    return render_template("index.html", version=__version__, transports=transports)


@pages.get("/healthz")
def healthz() -> Response:
    """Liveness probe for supervisors and proxies."""
    return jsonify(status="ok", version=__version__)


def production_app() -> Flask:
    """The app as production serves it, on gevent (the caller has monkey-patched)."""
    return create_app({"ASYNC_MODE": "gevent"})


def handshake_allowed(app: Flask, environ: dict[str, Any]) -> bool:
    """Whether a request's Origin (if any) passes the check Engine.IO applies."""
    origin = environ.get("HTTP_ORIGIN")
    if not origin:
        return True
    seen = environ
    if app.config["TRUST_PROXY"]:
        seen = {}

        def capture(fixed: dict[str, Any], start_response: object) -> list[bytes]:
            seen.update(fixed)
            return []

        ProxyFix(capture, **PROXY_HOPS)(dict(environ), lambda *_: None)  # type: ignore[arg-type]
    return bool(app.extensions["origin_check"](origin, seen))


def origin_checking_handler() -> type:
    """gevent-websocket's handler class, refusing a foreign Origin before the upgrade.

    gevent-websocket completes the websocket handshake before the app runs, so
    Engine.IO's own origin check could only close a socket already open; this answers
    400 instead, as Engine.IO does over the other servers.
    """
    from geventwebsocket.handler import WebSocketHandler

    class OriginCheckingHandler(WebSocketHandler):  # type: ignore[misc]
        def upgrade_websocket(self) -> Any:
            if not handshake_allowed(self.application, self.environ):
                self.start_response("400 BAD REQUEST", [("Content-Type", "text/plain")])
                return [b"Not an accepted origin."]
            return super().upgrade_websocket()

    return OriginCheckingHandler


def listener(host: str, port: int) -> socket.socket:
    """A listening TCP socket whose connections send small messages at once.

    With Nagle's algorithm on, the second and third of a move's replies (state, state,
    ack) wait for the client's delayed ACK, which adds up to 40 ms to a round trip.
    Accepted sockets inherit TCP_NODELAY from the listener.
    """
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(LISTEN_BACKLOG)
    return sock


def settle() -> None:
    """Build the engine's tables now, then keep everything built so far out of the GC's way.

    Full collections otherwise walk every long-lived object (the solved table and its
    analyses, the app and its modules) and stall all connections at once.
    """
    for cells in engine.solved():
        engine.analyse(Board(cells))
    gc.collect()
    gc.freeze()


def serve(*, host: str | None = None, port: int | None = None, workers: int = 1) -> None:
    """Run the production server (gevent; the caller has monkey-patched) until stopped.

    With several workers, forked processes share one listening socket and meet in
    Redis for matches and messages, so any of them can serve any player's socket.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    settings = {**DEFAULTS, **env_config(os.environ)}
    if workers > 1 and not settings["REDIS_URL"]:
        raise SystemExit(
            "several workers share their matches through Redis: set TICTACTOE_REDIS_URL"
        )
    host = host or settings["HOST"]
    port = port or settings["PORT"]
    sock = listener(host, port)
    settle()  # before forking, so that workers share the engine's tables
    log.info(
        "tictactoe %s listening on http://%s:%s (%d worker(s))", __version__, host, port, workers
    )
    if workers == 1:
        _serve_on(sock)
    else:
        _supervise(sock, workers)


def _serve_on(sock: socket.socket) -> None:
    from gevent import pywsgi

    app = production_app()
    gc.collect()
    gc.freeze()  # the app's long-lived objects too, not only the engine's tables
    app.extensions["socketio"].start_background_task(_prune_forever, app)
    # What socketio.run(app) builds with gevent-websocket installed, on our own listener.
    server = pywsgi.WSGIServer(sock, app, handler_class=origin_checking_handler(), log=None)
    server.serve_forever()


def _prune_forever(app: Flask) -> None:
    """Delete idle matches every few hours, for servers that run for months."""
    idle_seconds = float(app.config["IDLE_DAYS"]) * 86400
    while True:
        app.extensions["socketio"].sleep(PRUNE_EVERY_SECONDS)
        pruned = app.extensions["tictactoe"].store.prune(idle_seconds)
        log.info("pruned %d idle match(es)", pruned)


def _supervise(sock: socket.socket, workers: int) -> None:
    """Fork ``workers`` servers on ``sock``, replace any that dies, stop all on a signal."""
    import signal

    import gevent

    children: set[int] = set()
    stopping = False

    def spawn() -> None:
        pid = gevent.fork()
        if pid == 0:
            # A worker stops on the signals the supervisor sends; it has no children.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            try:
                _serve_on(sock)
            finally:
                os._exit(0)
        children.add(pid)

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in children:
            os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(workers):
        spawn()
    while children:
        pid, status = os.waitpid(-1, 0)
        children.discard(pid)
        if not stopping:
            log.warning("worker %d ended (status %d); starting another", pid, status)
            spawn()
