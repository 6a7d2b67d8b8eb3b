"""Every override of a library's internals, in one place, each written for a pinned version.

An override reaches past a library's documented API, so an upgrade may silently break
it. ``PINNED`` names the versions these were written and tested against; a test fails
when the installed versions (which requirements.lock fixes) differ, so an upgrade is a
deliberate change that re-reads each override below.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import struct
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from flask import Flask, Request
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from flask_socketio import SocketIO
from socketio.packet import ACK, BINARY_EVENT, EVENT, Packet

from .limits import QuietLog, RateLimits, Verdict

# Distribution name -> the version every override below was written against.
PINNED: dict[str, str] = {
    "flask": "3.1.3",
    "flask-socketio": "5.7.0",
    "python-socketio": "5.18.1",
    "python-engineio": "4.15.1",
    "gevent": "26.9.0",
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


JSON_CODEC = _Json  # for python-socketio's message queue too


RESERVED_EVENTS = (["connect"], ["disconnect"], ["connect_error"], ["*"])


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
        # python-socketio dispatches an event by its name, so a client event named
        # "connect" would run the connect handler again and one named "*" cannot be
        # dispatched at all; renamed, they reach the catch-all as unknown events.
        is_event = self.packet_type in (EVENT, BINARY_EVENT)
        if is_event and isinstance(self.data, list) and self.data[:1] in RESERVED_EVENTS:
            self.data[0] = f"({self.data[0]})"
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
            # gevent-websocket calls this for every request; only a handshake is checked
            # here (a form's POST meets its own route's check).
            upgrading = self.environ.get("HTTP_UPGRADE", "").lower() == "websocket"
            if upgrading and not allowed(self.application, self.environ):
                self.start_response("400 BAD REQUEST", [("Content-Type", "text/plain")])
                return [b"Not an accepted origin."]
            return super().upgrade_websocket()

    return OriginCheckingHandler


# --- gevent's WSGI handler: a deadline for a request's head -----------------------------


LIVELY_SECONDS = 60.0
_BAD_REQUESTS = QuietLog(logging.getLogger("webapp.server.http"))
BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-length: 0\r\n\r\n"


def timed_handler(base: type, header_seconds: float) -> type:
    """``base`` (a gevent.pywsgi.WSGIHandler) that gives each request's head a deadline.

    ``WSGIHandler.handle_one_request`` reads the request line (``read_requestline``) and
    the headers (``read_request``) with no limit, so a client sending a byte now and then
    holds a connection and a file descriptor for ever. Here both must arrive within
    ``header_seconds`` of the request's start (an idle keep-alive connection counts too),
    and every read or write on the socket gives up after that long without progress.
    After the head, a socket may stay silent for ``LIVELY_SECONDS``: Engine.IO's pings
    keep a live connection busier than that, so only dead peers are dropped.
    """
    import gevent

    class TimedHandler(base):  # type: ignore[misc]
        _head_timer: Any = None

        def handle(self) -> None:
            self.socket.settimeout(header_seconds)
            super().handle()

        def handle_one_request(self) -> Any:
            timer = self._head_timer = gevent.Timeout(header_seconds)
            timer.start()
            try:
                return super().handle_one_request()
            except gevent.Timeout as expired:
                if expired is not timer:
                    raise
                return None  # closes the connection
            finally:
                timer.close()

        def _handle_client_error(self, ex: Exception) -> Any:
            # ``WSGIHandler._handle_client_error`` logs every bad request with its whole
            # line (up to 8 KB), some with a traceback: one client filled 58 MB of log in
            # 5 s. Here each cause is one short line now and then.
            _BAD_REQUESTS.warning("bad HTTP requests", f"{self.client_address}: {ex!s:.80}")
            return (
                "400",
                b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-length: 0\r\n\r\n",
            )

        def log_request(self) -> None:
            # gunicorn's access line reads the request's environ, which a request refused
            # before its head was read never had: that one was logged above, quietly.
            if self.environ is not None:
                super().log_request()

        def read_request(self, raw_requestline: str) -> Any:
            try:
                return super().read_request(raw_requestline)
            finally:
                # The head is in: the app takes its own time, and a socket stays open as
                # long as it shows life within a minute (Engine.IO pings every 25 s).
                self._head_timer.close()
                self.socket.settimeout(max(LIVELY_SECONDS, header_seconds))

    return TimedHandler


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
    Each ``receive`` yields to the other greenlets first.
    gevent-websocket negotiates no compression, so the bytes read are the bytes kept.
    Its ``close`` is replaced too, so that the close frame carries its status code.

    Once Engine.IO's writer takes it over (``batch_websocket_writes``) it sends the data
    frames of one batch of packets in one write: the frames gather in ``send_frame`` and
    leave in ``flush``, which the writer calls before it waits for more. A round trip's
    two states and its ack go out in one system call, not three. Any other frame (a
    close) flushes what gathered first, so the order on the wire stays the order sent.
    """
    import gevent
    from geventwebsocket.exceptions import ProtocolError, WebSocketError
    from geventwebsocket.websocket import Header, WebSocket

    class SizeLimitedWebSocket(WebSocket):  # type: ignore[misc]
        _message_bytes = 0
        batching = False  # set once Engine.IO's writer sends through it
        _out: list[bytes] | None = None

        def send_frame(self, message: Any, opcode: int) -> None:
            if not self.batching or self.closed or opcode > self.OPCODE_BINARY:
                if not self.flush():
                    raise WebSocketError("socket is dead")
                super().send_frame(message, opcode)
                return
            data = self._encode_bytes(message) if opcode == self.OPCODE_TEXT else bytes(message)
            frame = Header.encode_header(True, opcode, b"", len(data), 0) + data
            if self._out is None:
                self._out = [frame]
            else:
                self._out.append(frame)

        def flush(self) -> bool:
            """Write the frames gathered so far in one go; False if the socket is dead."""
            out, self._out = self._out, None
            if not out:
                return True
            try:
                self.raw_write(b"".join(out))
            except (OSError, TypeError, WebSocketError):  # raw_write is None once closed
                return False
            return True

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
            # A client whose messages are already buffered would otherwise be read without
            # a pause until its buffer is empty: yield first, so every connection (and a
            # disconnect decided by the rate limit) takes its turn.
            gevent.sleep(0)
            try:
                return super().receive()
            except MessageTooBig:
                self.close(1009, b"message too big")
                return None

        def close(self, code: int = 1000, message: bytes = b"") -> None:
            # ``WebSocket.close`` sends its message without the status code (and a
            # bytes message as its repr), so peers never learn why; this sends both.
            if not getattr(self, "closed", False):
                self.flush()
                with contextlib.suppress(WebSocketError):
                    self.send_frame(struct.pack("!H", code) + message, self.OPCODE_CLOSE)
                # Nor does it stop reading: a peer that never answers the close would hold
                # the connection until the socket times out. Reading ends here.
                with contextlib.suppress(OSError, AttributeError):
                    self.handler.socket.shutdown(socket.SHUT_RD)
            closed = {"closed": True, "stream": None, "raw_write": None, "raw_read": None}
            for name, value in {**closed, "environ": None}.items():
                setattr(self, name, value)

    return SizeLimitedWebSocket


def batch_websocket_writes() -> None:
    """Let Engine.IO's websocket writer send each batch of packets in one write.

    The writer (``Socket._websocket_handler`` in engineio/socket.py) takes every packet
    queued, sends each, then calls ``Socket.poll`` to wait for more: that call is where
    a batch ends, so it flushes first. A socket that died in the flush ends the writer
    as a failed send would have (an empty batch means closed).
    """
    from engineio.socket import Socket

    handle, poll = Socket._websocket_handler, Socket.poll

    def websocket_handler(self: Any, ws: Any) -> Any:
        frames: Any = getattr(ws, "_sock", None)
        if hasattr(frames, "flush"):
            frames.batching = True
            self.frames = frames
        return handle(self, ws)

    def flushed_poll(self: Any) -> Any:
        frames = getattr(self, "frames", None)
        if frames is not None and not frames.flush():
            return []
        return poll(self)

    Socket._websocket_handler, Socket.poll = websocket_handler, flushed_poll


def limit_websocket_messages(max_message_bytes: int) -> None:
    """Make gevent-websocket's handler build size-limited websockets in this process.

    ``WebSocketHandler.upgrade_connection`` builds ``WebSocket(...)`` by the module-level
    name in geventwebsocket/handler.py, so that name is the one to replace.
    """
    import geventwebsocket.handler

    geventwebsocket.handler.WebSocket = size_limited_websocket(max_message_bytes)


# --- python-socketio: every packet counted before it is parsed ---------------------------

_EVENT_ACK_ID = re.compile(r"2(\d{1,15})\[")  # an event on "/" asking for an ack


def guard_messages(
    server: Any,
    limits: RateLimits,
    log: QuietLog,
    *,
    refusal: object,
    bad_packet: object,
    handshake_seconds: float,
) -> None:
    """Route every Engine.IO message of ``server`` (a socketio.Server) through ``limits``.

    python-socketio registers ``Server._handle_eio_message`` with Engine.IO when it is
    built (socketio/base_server.py) and parses the packet there; this registers a wrapper
    instead, and sets it on the instance too, where Flask-SocketIO's test client calls
    it. A refused event is answered with ``refusal`` (its ack id is read without parsing
    the packet); a packet that cannot be read gets the event ``bad_packet``; a connection
    that keeps it up is disconnected. Binary packets are never accepted: they would hold
    their attachments in memory. Buckets are dropped on Engine.IO's disconnect, which no
    client packet can trigger. A connection that has not joined the default namespace
    ``handshake_seconds`` after it opened is closed.
    """
    handle, disconnected = server._handle_eio_message, server._handle_eio_disconnect
    connected = server._handle_eio_connect

    def on_connect(eio_sid: str, environ: dict[str, Any], *args: Any) -> Any:
        limits.open(eio_sid, environ.get("REMOTE_ADDR"))
        server.start_background_task(close_unless_joined, eio_sid)
        return connected(eio_sid, environ, *args)

    def close_unless_joined(eio_sid: str) -> None:
        server.sleep(handshake_seconds)
        if eio_sid in server.eio.sockets and not server.manager.sid_from_eio_sid(eio_sid, "/"):
            log.warning("handshakes not finished", f"{eio_sid} joined no game in time")
            server.eio.disconnect(eio_sid)

    def send(eio_sid: str, packet_type: int, data: object, ack: int | None = None) -> None:
        packet = server.packet_class(packet_type, data=data, namespace="/", id=ack)
        server._send_packet(eio_sid, packet)

    def on_message(eio_sid: str, data: object) -> None:
        verdict = limits.check(eio_sid)
        if verdict is Verdict.WAIT:
            # This connection's own reader sleeps: its later packets wait in its socket.
            server.sleep(limits.wait(eio_sid))
            verdict = Verdict.PASS
        if verdict is Verdict.PASS:
            problem = _unreadable(data) or _unjoined(server, eio_sid, data)
            problem = problem or _handled(handle, eio_sid, data)
            if problem is None:
                return
            verdict = limits.malformed(eio_sid)
            log.warning("unreadable packets", problem)
            if verdict is Verdict.REFUSE:
                send(eio_sid, EVENT, bad_packet)
        elif verdict is Verdict.REFUSE:
            found = _EVENT_ACK_ID.match(data[:18]) if isinstance(data, str) else None
            if found:
                send(eio_sid, ACK, [refusal], int(found[1]))
        if verdict is Verdict.CUT:
            log.warning("connections cut off", f"{eio_sid} stayed over its limit")
            server.start_background_task(server.eio.disconnect, eio_sid)

    def on_disconnect(eio_sid: str, *args: Any) -> None:
        try:
            disconnected(eio_sid, *args)
        finally:
            limits.forget(eio_sid)

    server._handle_eio_message, server._handle_eio_disconnect = on_message, on_disconnect
    server.eio.on("connect", on_connect)
    server.eio.on("message", on_message)
    server.eio.on("disconnect", on_disconnect)


def _unreadable(data: object) -> str | None:
    if not isinstance(data, str):
        return "a binary message"
    if data[:1] in ("5", "6"):
        return "a binary Socket.IO packet"
    return None


def _unjoined(server: Any, eio_sid: str, data: object) -> str | None:
    # python-socketio drops events of a connection that has not joined the namespace, but
    # only after parsing them: count them as unreadable instead.
    is_event = isinstance(data, str) and data[:1] == "2"
    if is_event and not server.manager.sid_from_eio_sid(eio_sid, "/"):
        return "an event before joining"
    return None


def _handled(handle: Callable[[str, object], None], eio_sid: str, data: object) -> str | None:
    try:
        handle(eio_sid, data)
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return None


def close_all_sockets(socketio: SocketIO) -> None:
    """Close every Engine.IO connection of this process, so that clients reconnect.

    ``socketio.server.eio`` is python-socketio's Engine.IO server; its ``disconnect()``
    with no sid closes every socket with a close packet.
    """
    socketio.server.eio.disconnect()
