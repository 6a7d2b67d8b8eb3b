"""Every override of a library's internals, in one place, each written for a pinned version.

An override reaches past a library's documented API, so an upgrade may silently break
it. ``PINNED`` names the versions these were written and tested against; a test fails
when the installed versions (which requirements.lock fixes) differ, so an upgrade is a
deliberate change that re-reads each override below.
"""

from __future__ import annotations

import contextlib
import json
import struct
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from flask import Flask, Request
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from flask_socketio import SocketIO
from socketio.packet import BINARY_EVENT, EVENT, Packet

# Distribution name -> the version every override below was written against.
PINNED: dict[str, str] = {
    "flask": "3.1.3",
    "flask-socketio": "5.7.0",
    "python-socketio": "5.18.1",
    "python-engineio": "4.15.1",
    "gevent-websocket": "0.10.1",
    "gunicorn": "27.0.1",
}


# --- Flask-SocketIO: the session of a socket's events ---------------------------------


class SessionInterface(SecureCookieSessionInterface):
    """Marks the session cookie Secure over https, and reuses a socket's session.

    Flask-SocketIO keeps a copy of the session made at connect in the WSGI environ under
    ``saved_session`` (flask_socketio/__init__.py, SocketIO._handle_event) and swaps it
    in for every event anyway, so checking the cookie's signature again on each event
    would only cost time (12% of the server's CPU under load).
    """

    def get_cookie_secure(self, app: Flask) -> bool:
        """Secure when configured so, or when this request came over https."""
        from flask import request

        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:  # type: ignore[override]
        """The cookie's session; for a socket's later events, the copy made at connect."""
        saved: SessionMixin | None = request.environ.get("saved_session")
        return saved if saved is not None else super().open_session(app, request)


# --- Flask-SocketIO: the rate limit before the request context ---------------------------


class GatedSocketIO(SocketIO):  # type: ignore[misc]
    """Flask-SocketIO that refuses an event over the rate limit before anything else.

    ``SocketIO._handle_event`` builds a request context for every event, which is most of
    what an event costs; checking first means a client flooding at 1,000 events a second
    takes about half as much CPU from everyone else.
    """

    UNLIMITED = frozenset({"connect", "disconnect"})
    allow: Callable[[str], bool] = staticmethod(lambda sid: True)
    refusal: dict[str, Any] = {}  # noqa: RUF012 (set once by the factory)

    def _handle_event(
        self, handler: Callable[..., Any], message: str, namespace: str, sid: str, *args: Any
    ) -> Any:
        if message not in self.UNLIMITED and not self.allow(sid):
            return self.refusal
        return super()._handle_event(handler, message, namespace, sid, *args)


# --- python-socketio: the packets' JSON -------------------------------------------------


class _Json:
    """orjson out (ten times faster), the standard library in.

    Incoming packets keep the standard parser, which takes what clients may send and
    orjson refuses (integers over 64 bits, NaN); outgoing text that orjson cannot write
    (a lone surrogate echoed in an error message) falls back to it as well.
    """

    @staticmethod
    def dumps(data: object, **_: object) -> str:
        try:
            return orjson.dumps(data).decode()
        except TypeError:
            return json.dumps(data, separators=(",", ":"))

    loads = staticmethod(json.loads)


class JsonPacket(Packet):  # type: ignore[misc]
    """Socket.IO packets without the search for binary data in every outgoing one.

    ``Packet.uses_binary_events`` and ``Packet.json`` are class attributes that
    socketio/packet.py reads in encode(); the server only ever sends JSON, and clients'
    binary attachments are still decoded.
    """

    uses_binary_events = False
    json = _Json

    def decode(self, encoded_packet: str | bytes) -> int:
        """Decode, renaming an event called "*" so that the catch-all refuses it."""
        attachments = int(super().decode(encoded_packet) or 0)
        # python-socketio takes an event named "*" for its catch-all and cannot dispatch
        # it; renamed, it reaches the catch-all and is refused as an unknown event.
        is_event = self.packet_type in (EVENT, BINARY_EVENT)
        if is_event and isinstance(self.data, list) and self.data[:1] == ["*"]:
            self.data[0] = "(*)"
        return attachments


# --- gevent-websocket: the Origin checked before the upgrade ----------------------------


def origin_checking_handler(allowed: Callable[[Any, Mapping[str, Any]], bool], base: type) -> type:
    """``base`` (gevent-websocket's handler, mixed with gunicorn's) refusing a foreign Origin.

    gevent-websocket completes the websocket handshake in
    ``WebSocketHandler.upgrade_websocket`` before the app runs, so Engine.IO's own origin
    check could only close a socket already open; this answers 400 instead, as Engine.IO
    does over the other servers. ``allowed(app, environ)`` decides.
    """

    class OriginCheckingHandler(base):  # type: ignore[misc]
        def upgrade_websocket(self) -> Any:
            if not allowed(self.application, self.environ):
                self.start_response("400 BAD REQUEST", [("Content-Type", "text/plain")])
                return [b"Not an accepted origin."]
            return super().upgrade_websocket()

    return OriginCheckingHandler


# --- gevent-websocket: a message's size checked from each frame's header ------------------


class MessageTooBig(Exception):
    """A websocket message announced more bytes than a connection may buffer."""


def size_limited_websocket(max_message_bytes: int) -> type:
    """gevent-websocket's ``WebSocket`` refusing any message over ``max_message_bytes``.

    ``WebSocket.read_frame`` (geventwebsocket/websocket.py) reads a frame's whole payload,
    however long its header says it is, and ``read_message`` joins fragments without a
    bound. This one checks the announced length of every data frame, added to the
    fragments before it, before a byte of its payload is read, and closes with 1009
    (message too big). Control frames are at most 125 bytes (``Header.decode_header``).
    gevent-websocket negotiates no compression, so the bytes read are the bytes kept.
    Its ``close`` is replaced too, so that the close frame carries its status code.
    """
    from geventwebsocket.exceptions import ProtocolError, WebSocketError
    from geventwebsocket.websocket import Header, WebSocket

    class SizeLimitedWebSocket(WebSocket):  # type: ignore[misc]
        _message_bytes = 0

        def read_frame(self) -> tuple[Any, bytes]:
            header = Header.decode_header(self.stream)
            if header.flags:
                raise ProtocolError("reserved bits set")
            if header.opcode in (self.OPCODE_TEXT, self.OPCODE_BINARY):
                self._message_bytes = 0
            if header.opcode <= self.OPCODE_BINARY:  # data: text, binary or continuation
                self._message_bytes += header.length
                if self._message_bytes > max_message_bytes:
                    raise MessageTooBig(header.length)
            if not header.length:
                return header, b""
            payload = self.raw_read(header.length)
            if len(payload) != header.length:
                raise WebSocketError("Unexpected EOF reading frame payload")
            return header, header.unmask_payload(payload) if header.mask else payload

        def receive(self) -> Any:
            try:
                return super().receive()
            except MessageTooBig:
                self.close(1009, b"message too big")
                return None

        def close(self, code: int = 1000, message: bytes = b"") -> None:
            # ``WebSocket.close`` sends its message without the status code (and a
            # bytes message as its repr), so peers never learn why; this sends both.
            if not getattr(self, "closed", False):
                with contextlib.suppress(WebSocketError):
                    self.send_frame(struct.pack("!H", code) + message, self.OPCODE_CLOSE)
            closed = {"closed": True, "stream": None, "raw_write": None, "raw_read": None}
            for name, value in {**closed, "environ": None}.items():
                setattr(self, name, value)

    return SizeLimitedWebSocket


def limit_websocket_messages(max_message_bytes: int) -> None:
    """Make gevent-websocket's handler build size-limited websockets in this process.

    ``WebSocketHandler.upgrade_connection`` builds ``WebSocket(...)`` by the module-level
    name in geventwebsocket/handler.py, so that name is the one to replace.
    """
    import geventwebsocket.handler

    geventwebsocket.handler.WebSocket = size_limited_websocket(max_message_bytes)


def close_all_sockets(socketio: SocketIO) -> None:
    """Close every Engine.IO connection of this process, so that clients reconnect.

    ``socketio.server.eio`` is python-socketio's Engine.IO server; its ``disconnect()``
    with no sid closes every socket with a close packet.
    """
    socketio.server.eio.disconnect()
