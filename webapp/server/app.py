"""The application factory: settings, store, Socket.IO and handlers wired together."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from datetime import timedelta
from functools import partial
from pathlib import Path
from types import FunctionType, MethodType
from typing import Any

from flask import Flask
from flask_socketio import SocketIO
from socketio import RedisManager

from webapp.game import strategies
from webapp.game.history import games_counted
from webapp.server import settings as config
from webapp.server.events.connect import SocketCaps
from webapp.server.events.dispatch import refuse_forgotten
from webapp.server.events.lab import register_lab
from webapp.server.events.match import register
from webapp.server.events.room import register_rooms
from webapp.server.limits.costly_pages import CostlyAnswers
from webapp.server.limits.paid_work import Budgets
from webapp.server.limits.presence import LocalPresence, RedisPresence
from webapp.server.limits.rates import AddressPackets, QuietLog, RateLimits
from webapp.server.limits.shared_counts import LocalTally, RedisTally
from webapp.server.pages.health import Health
from webapp.server.pages.practice import practice
from webapp.server.pages.routes import pages
from webapp.server.pages.static_files import StaticGzip
from webapp.server.pages.train import train
from webapp.server.pages.your_data import your_data
from webapp.server.protocol.vocabulary import ErrorCode, ServerEvent, error, problem
from webapp.server.services.lab.answers import Lab
from webapp.server.services.matches import MatchService
from webapp.server.services.odds import odds_for
from webapp.server.services.rooms import RoomService
from webapp.server.services.training import Training, with_cards
from webapp.server.store import books, datadir
from webapp.server.store.forgotten import open_forgotten
from webapp.server.store.history import open_history
from webapp.server.store.matches import open_store
from webapp.server.store.redis.client import POOL_SIZE
from webapp.server.store.rooms import open_rooms
from webapp.server.store.signing import signer
from webapp.server.store.training import open_training
from webapp.server.wire.codec import Json, JsonPacket
from webapp.server.wire.packets import guard_messages
from webapp.server.wire.polling import PollingGuard
from webapp.server.wire.security import (
    SecurityHeaders,
    SessionInterface,
    UnderPath,
    allowed_origins,
    comma_list,
    origin_check,
    refuse_large_bodies,
    trust_proxy,
)
from webapp.server.wire.websocket import WebSocketGuard

PACKAGE_DIR = Path(__file__).resolve().parent.parent
CHANNEL = "flask-socketio"  # Flask-SocketIO's own default channel
TRANSPORT_SLACK_BYTES = 1024  # the event name, ack id and framing around a payload
# A websocket silent this long is dead: Engine.IO pings every 25 s and expects a pong.
LIVELY_SECONDS = 60.0
FRAME_PACE = 4  # a websocket's frames are read at most this many times the event rate


def resource_dir(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else beside it in a checkout."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / name


def transport_limit(payload_limit: int) -> int:
    """Socket.IO's message limit: a bit above the app's, so the app answers ``bad_payload``."""
    return int(payload_limit) + TRANSPORT_SLACK_BYTES


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then ``test_config``."""
    app = Flask(
        "webapp",
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
        instance_path=str(PACKAGE_DIR.parent / "instance"),
    )
    app.config.update(config.load(os.environ))
    app.config.update(test_config or {})
    data_dir = Path(app.config["DATA_DIR"] or datadir.default(os.environ))
    datadir.prepare(data_dir)
    app.config["DATA_DIR"] = str(data_dir)
    # Every variant's perfect player (the AI, hints) looks up the data dir's opening book.
    strategies.use_solvers(partial(books.solver, data_dir=data_dir))
    app.config["SECRET_KEY"] = app.config["SECRET_KEY"] or datadir.secret_key(data_dir)
    # Cookies signed with an earlier key stay valid while it is listed here.
    app.config["SECRET_KEY_FALLBACKS"] = comma_list(app.config["SECRET_KEY_FALLBACKS"])
    app.extensions["signing"] = signer(app.config, data_dir)
    # "/static//x" is a 404, not a redirect built from whatever Host the client sent.
    app.url_map.merge_slashes = False
    for rule in app.url_map.iter_rules():
        rule.merge_slashes = False
    app.extensions["health"] = Health(app.config)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_PATH=app.config["BASE_PATH"] or "/",  # None or "": at the root
        PERMANENT_SESSION_LIFETIME=timedelta(days=app.config["IDLE_DAYS"]),
    )
    app.session_interface = SessionInterface()
    app.register_blueprint(pages)
    app.register_blueprint(your_data)
    app.register_blueprint(practice)
    app.register_blueprint(train)
    app.before_request(refuse_large_bodies)
    app.after_request(StaticGzip())
    _add_socketio(app)
    return app


def message_queue(url: str | None) -> dict[str, Any]:
    """Socket.IO's message queue on Redis, its pool as large as the server's own (redis-py's
    default of 100 connections is fewer than the emits of 200 busy players)."""
    if not url:
        return {}
    options = {"max_connections": POOL_SIZE}
    manager = RedisManager(url, channel=CHANNEL, redis_options=options, json=Json)
    return {"client_manager": manager}


def direct(layer: Any) -> Any:
    """A WSGI layer as a function or bound method, which the interpreter calls in place.

    Calling an object through its ``__call__`` runs it in a new C-level frame of the
    interpreter, and every idle websocket's reader greenlet keeps its whole C stack:
    each layer called directly is about 800 bytes less a connected player.
    """
    return layer if isinstance(layer, FunctionType | MethodType) else layer.__call__


def _add_transport_guards(app: Flask) -> None:
    """Each transport's packets counted per address before Engine.IO reads them; a
    websocket's socket guarded before anything reads from it (wire/websocket.py)."""
    limit = transport_limit(app.config["MAX_PAYLOAD_BYTES"])
    pace = FRAME_PACE * float(app.config["RATE_PER_SECOND"])
    packets = AddressPackets(FRAME_PACE * float(app.config["RATE_PER_ADDRESS"]))
    log = QuietLog(logging.getLogger("webapp.server.transport"))
    if app.config["POLLING"]:
        polling = PollingGuard(direct(app.wsgi_app), limit, packets=packets, log=log)
        app.wsgi_app = polling.__call__  # type: ignore[method-assign]
    unjoined = int(app.config["UNJOINED_PACKETS"])
    guard = WebSocketGuard(
        direct(app.wsgi_app),
        limit,
        LIVELY_SECONDS,
        pace=pace,
        packets=packets,
        unjoined=unjoined,
        log=log,
    )
    app.wsgi_app = guard.__call__  # type: ignore[method-assign]


def _add_socketio(app: Flask) -> None:
    check = origin_check(allowed_origins(app.config["ALLOWED_ORIGINS"]))
    app.extensions["origin_check"] = check
    socketio = SocketIO(
        app,
        async_mode=app.config["ASYNC_MODE"],
        # A connection's events are handled one after another in its own reader, so a
        # client that sends faster than it is served only waits for itself.
        async_handlers=False,
        cors_allowed_origins=check,
        max_http_buffer_size=transport_limit(app.config["MAX_PAYLOAD_BYTES"]),
        # Engine.IO answers 400 to the transports not listed (its default lists both).
        transports=None if app.config["POLLING"] else ["websocket"],
        json=Json,
        serializer=JsonPacket,
        **message_queue(app.config["REDIS_URL"]),
    )
    if app.config["BASE_PATH"]:
        app.wsgi_app = UnderPath(direct(app.wsgi_app), app.config["BASE_PATH"]).__call__  # type: ignore[method-assign]
    app.wsgi_app = SecurityHeaders(direct(app.wsgi_app)).__call__  # type: ignore[method-assign]
    _add_transport_guards(app)
    if app.config["TRUST_PROXY"]:
        trust_proxy(app)  # outermost: the guards count packets by the client's address
    redis_url = app.config["REDIS_URL"]
    tally = app.extensions["tally"] = RedisTally(redis_url) if redis_url else LocalTally()
    limits = RateLimits(
        float(app.config["RATE_PER_SECOND"]),
        int(app.config["RATE_BURST"]),
        cooldown_seconds=float(app.config["COOLDOWN_SECONDS"]),
        address_rate=float(app.config["RATE_PER_ADDRESS"]),
        tally=tally,
    )
    guard_messages(
        socketio.server,
        limits,
        QuietLog(logging.getLogger("webapp.server.limits")),
        refusal=error(ErrorCode.RATE_LIMITED, "too many events: slow down a little"),
        bad_packet=[ServerEvent.PROBLEM, problem(ErrorCode.BAD_PACKET, "unreadable packet")],
        handshake_seconds=float(app.config["HANDSHAKE_TIMEOUT"]),
    )
    history = open_history(app.config)
    app.extensions["history"] = history
    training = app.extensions["training"] = Training(
        open_training(app.config), history.games, lambda p: games_counted(history.counters(p))
    )
    ending = with_cards(history, training)  # the history, making each game's cards as it ends
    forgotten = app.extensions["forgotten"] = open_forgotten(app.config)
    refuse_forgotten(socketio, forgotten)
    service = MatchService(
        app.config, open_store(app.config), socketio, ending, app.extensions["signing"]
    )
    app.extensions["tictactoe"] = service
    app.extensions["rate_limits"] = limits
    presence = RedisPresence(redis_url) if redis_url else None
    app.extensions["presence"] = presence or LocalPresence()
    caps = SocketCaps(
        app.extensions["presence"],
        per_player=int(app.config["MAX_SOCKETS_PER_PLAYER"]),
        per_address=int(app.config["MAX_SOCKETS_PER_ADDRESS"]),
    )
    odds = odds_for(socketio.async_mode, app.config)
    rooms = RoomService(
        app.config, open_rooms(app.config), socketio, app.extensions["presence"], ending, tally
    )
    app.extensions["rooms"] = rooms
    max_payload = int(app.config["MAX_PAYLOAD_BYTES"])
    costly = app.extensions["costly"] = CostlyAnswers(
        int(app.config["COSTLY_PER_PLAYER_MINUTE"]),
        int(app.config["COSTLY_PER_ADDRESS_MINUTE"]),
        tally,
    )
    app.extensions["train_costly"] = CostlyAnswers(
        int(app.config["TRAIN_PER_PLAYER_MINUTE"]),
        int(app.config["TRAIN_PER_ADDRESS_MINUTE"]),
        tally,
        "train",
    )
    register(socketio, service, limits, caps, max_payload, odds, rooms, costly=costly)
    register_rooms(socketio, rooms, max_payload, int(app.config["ROOM_NAME_CHARS"]))
    lab_budgets = Budgets(
        odds.pause,  # the odds' slices and turn: their share of the process is for both
        odds.turn,
        "the lab's answers",
        ms_per_second=float(app.config["LAB_MS_PER_SECOND"]),
        burst_ms=float(app.config["LAB_BURST_MS"]),
        address_ms_per_second=float(app.config["LAB_MS_PER_ADDRESS"]),
        at_once=int(app.config["PAID_AT_ONCE_PER_ADDRESS"]),
        line=odds.budgets.line,  # the odds' kind of lock
    )
    lab = Lab(int(app.config["LAB_PAGE_SIZE"]), int(app.config["LAB_CURSORS"]), lab_budgets)
    register_lab(socketio, lab, max_payload, service)
