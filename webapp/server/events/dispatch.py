"""How a Socket.IO event reaches its handler: the socket and player at hand, the payload
checked, domain errors turned into acks.

Every client event is answered with ``{"ok": true}`` or
``{"ok": false, "error": {"code", "message"}}``; a refused event changes nothing.
The handlers themselves are events/match.py's, events/room.py's and events/lab.py's.
The protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from flask import request, session
from flask_socketio import SocketIO

from webapp.game.board import RuleError
from webapp.server.limits.paid_work import Payer
from webapp.server.limits.rates import address_key
from webapp.server.protocol.payload import payload_object, payload_size
from webapp.server.protocol.vocabulary import Ack, ErrorCode, Event, error
from webapp.server.store.forgotten import Forgotten
from webapp.server.store.matches import Conflict

log = logging.getLogger("webapp.server.events")
Handler = Callable[[dict[str, Any]], Ack]


# The socket and player of the event at hand, for the events that ``attach`` dispatches.
_AT: ContextVar[tuple[str, str] | None] = ContextVar("socket_event", default=None)


def player_id() -> str:
    """The player of the event at hand, from the session cookie."""
    at = _AT.get()
    return at[1] if at else str(session["player"])


def socket_id() -> str:
    """The Socket.IO id of the connection at hand."""
    at = _AT.get()
    return at[0] if at else str(request.sid)  # type: ignore[attr-defined]


# Each server's connections -> their players, for the events that ``attach`` dispatches.
_PLAYERS: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()


def players_of(socketio: SocketIO) -> dict[str, str]:
    """The player of each connection of ``socketio``, kept from connect to disconnect."""
    return _PLAYERS.setdefault(socketio.server, {})


# Each server's list of deleted players, whose sockets' events are all refused.
_FORGOTTEN: weakref.WeakKeyDictionary[Any, Forgotten] = weakref.WeakKeyDictionary()


def refuse_forgotten(socketio: SocketIO, forgotten: Forgotten) -> None:
    """Refuse every event ``attach`` dispatches from a socket whose player was deleted."""
    _FORGOTTEN[socketio.server] = forgotten


def was_deleted(socketio: SocketIO, player: str) -> bool:
    """Whether ``player`` was deleted ("Delete everything"): nothing may act as them."""
    forgotten = _FORGOTTEN.get(socketio.server)
    return forgotten is not None and forgotten.holds(player)


@dataclass(frozen=True)
class Client:
    """Where a connection comes from: its client address (as ``address_key`` counts it)
    and, for a websocket, its own socket (None: not known)."""

    address: str
    socket: Any = None


# Each server's connections -> where they come from, kept as their players are.
_CLIENTS: weakref.WeakKeyDictionary[Any, dict[str, Client]] = weakref.WeakKeyDictionary()


def clients_of(socketio: SocketIO) -> dict[str, Client]:
    """Where each connection of ``socketio`` comes from, from connect to disconnect."""
    return _CLIENTS.setdefault(socketio.server, {})


def joined(socketio: SocketIO, environ: dict[str, Any]) -> None:
    """Keep where the connection at hand comes from, from its request's ``environ``: the
    client address, and the socket of a websocket (gunicorn's, in the WSGI environ)."""
    websocket = str(environ.get("HTTP_UPGRADE", "")).lower() == "websocket"
    sock = environ.get("gunicorn.socket") if websocket else None
    clients_of(socketio)[socket_id()] = Client(address_key(environ.get("REMOTE_ADDR")), sock)


def payer(socketio: SocketIO) -> Payer:
    """Who pays for the paid work of the event at hand: its connection and address. Its
    work stops once the connection has gone: its websocket's socket closed (an event is
    handled in its connection's reader, so Socket.IO hears of the close only after the
    handler returns; the websocket's own reader closes the socket as the peer goes), or
    Socket.IO no longer counts it connected."""
    sid, manager = socket_id(), socketio.server.manager
    client = clients_of(socketio).get(sid)
    sock = client.socket if client is not None else None

    def present() -> bool:
        return not _closed(sock) and bool(manager.is_connected(sid, "/"))

    return Payer(sid, client.address if client is not None else None, present)


def _closed(sock: Any) -> bool:
    if sock is None:
        return False
    try:
        return bool(sock.fileno() == -1)
    except OSError:
        return True


def attach(socketio: SocketIO, event: Event, handler: Callable[..., Ack]) -> None:
    """Handle ``event`` with ``handler``, registered on python-socketio's server itself.

    Flask-SocketIO would build and tear down a Flask request context around every event,
    the costliest part of a small one; these handlers need only the socket and its
    player, whom the connect handler keeps (``players_of``). Connecting and
    disconnecting still go through Flask-SocketIO, with the request context they use.

    A socket whose player was deleted (an old tab, or one that raced the push telling
    it) is refused ``player_deleted`` before its handler runs, and disconnected.
    """
    server, players = socketio.server, players_of(socketio)

    def run(sid: str, *args: object) -> Ack:
        player = players.get(sid)
        if player is None:
            return error(ErrorCode.INTERNAL, "this connection has no session: reload the page")
        if was_deleted(socketio, player):
            server.start_background_task(server.disconnect, sid)
            return error(ErrorCode.PLAYER_DELETED, "this player's data was deleted: reload")
        token = _AT.set((sid, str(player)))
        try:
            return handler(*args)
        except Exception as err:
            log.exception("unexpected error in a socket handler", exc_info=err)
            return error(ErrorCode.INTERNAL, "the server failed to handle this event")
        finally:
            _AT.reset(token)

    server.on(event, run, namespace="/")


def checked(max_payload: int, event: Event) -> Callable[[Handler], Callable[..., Ack]]:
    """Wrap a handler: check the payload's size and fields, turn domain errors into acks."""

    def wrap(handler: Handler) -> Callable[..., Ack]:
        @functools.wraps(handler)
        def run(*args: object) -> Ack:
            if len(args) > 1:
                return error(ErrorCode.BAD_PAYLOAD, "send one JSON object")
            payload = args[0] if args else None
            if payload is not None and payload_size(payload) > max_payload:
                return error(ErrorCode.BAD_PAYLOAD, f"the payload is over {max_payload} bytes")
            try:
                return handler(payload_object(payload, event))
            except RuleError as err:
                field, fields = getattr(err, "field", None), getattr(err, "fields", ())
                wait = getattr(err, "retry_after", None)
                return error(err.code, err.message, field=field, fields=fields, retry_after=wait)
            except Conflict:
                return error(ErrorCode.BUSY, "the match is busy: try again")

        return run

    return wrap
