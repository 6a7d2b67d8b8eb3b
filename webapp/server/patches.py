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
import time
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
        application: Any  # set by gevent's WSGIHandler for each request

        def upgrade_websocket(self) -> Any:
            # gevent-websocket calls this for every request; only a handshake is checked
            # here (a form's POST meets its own route's check).
            upgrading = self.environ.get("HTTP_UPGRADE", "").lower() == "websocket"
            if upgrading and not allowed(self.application, self.environ):
                self.start_response("400 BAD REQUEST", [("Content-Type", "text/plain")])
                return [b"Not an accepted origin."]
            if upgrading:
                # ``Flask.__call__`` only calls ``wsgi_app``; calling that directly spares
                # every idle websocket's greenlet one C-level frame (app.direct).
                self.application = self.application.wsgi_app
            return super().upgrade_websocket()

    return OriginCheckingHandler


# --- gevent's server and WSGI handler: websockets that wait without a greenlet ----------


class _Detached:
    """What a parked websocket's gevent-websocket ``WebSocket`` still reads of its handler."""

    __slots__ = ("logger", "server", "socket")

    def __init__(self, handler: Any) -> None:
        self.socket, self.server, self.logger = handler.socket, handler.server, handler.logger


class _Unwound:
    """Stands for the websocket in the handler that let it go: already closed there."""

    closed = True


class Parked:
    """A websocket's socket kept by the server after its handler's greenlet ended."""

    __slots__ = ("_line", "_server", "_socket", "fileno")

    def __init__(self, server: Any, socket: Any, line: Any) -> None:
        self._server, self._socket, self._line = server, socket, line
        self.fileno: int = socket.fileno()

    def close(self) -> None:
        """Close the socket, free its place among the server's connections, log its line."""
        self._server.unpark(self._socket)
        self._line.time_finish = time.time()
        self._line.log_request()


LINE_FIELDS = ("client_address", "environ", "response_length", "server", "status", "time_start")


def parking_handler(base: type) -> type:
    """``base`` (gunicorn's WSGI handler with gevent-websocket's) able to let a websocket go.

    ``detach`` is called by ``WebSocketReader`` deep inside the app, in the handler's
    greenlet: it hands the socket to the server, and leaves the handler so that, as the
    request unwinds, gevent-websocket's ``run_websocket`` neither closes the websocket
    (it sees ``_Unwound``) nor gevent's ``WSGIHandler.handle`` reads from and closes the
    socket (its ``socket`` is None). The access line is written when the socket closes,
    from a copy of the few fields it reads, so that the handler itself is freed.
    """

    class ParkingHandler(base):  # type: ignore[misc]
        server: Any  # set by gevent's WSGIHandler for each connection
        socket: Any
        websocket: Any  # set by gevent-websocket's handler on the upgrade
        _parked = False

        def detach(self, ws: Any) -> Parked | None:
            """Give ``ws``'s socket to the server; None if the server cannot keep it."""
            server, socket = self.server, self.socket
            park = getattr(server, "park", None)
            if park is None or not park(socket):
                return None
            line = object.__new__(type(self))
            line.__dict__.update({name: getattr(self, name) for name in LINE_FIELDS})
            line.response_headers = []  # its format names none
            ws.handler, ws.stream.handler = _Detached(self), None
            self.websocket, self.socket, self._parked = _Unwound(), None, True
            return Parked(server, socket, line)

        def log_request(self) -> None:
            if not self._parked:  # a parked socket's line is written when it closes
                super().log_request()

    return ParkingHandler


def parking_server(base: type) -> type:
    """``base`` (a gevent ``WSGIServer``) keeping parked websockets and counting them.

    gunicorn's gevent worker gives the server a ``Pool`` of ``worker_connections``, and
    the server stops accepting while the pool is full. A parked websocket has no greenlet
    in the pool, so it takes one of the pool's places itself (``park``) until it closes
    (``unpark``), and the pool's free places are read from those places rather than from
    its greenlets: the server stops accepting when they are all taken, and on stop the
    worker waits (up to its grace period) until the parked sockets have closed too.
    The server's ``do_close``, called once a connection's greenlet ends, leaves a parked
    socket open.
    """

    class ParkingServer(base):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.parked: set[Any] = set()
            self.places: Any = None  # the pool's semaphore, when the pool has a size
            super().__init__(*args, **kwargs)

        def set_spawn(self, spawn: Any) -> None:
            super().set_spawn(spawn)
            pool = self.pool
            if pool is not None and pool.size is not None:
                # Read by the server's ``full`` (through ``Pool.full``) and by gunicorn's
                # worker, which waits on stop until every connection has closed.
                places = self.places = pool._semaphore
                pool.free_count = lambda: max(0, places.counter)

        def park(self, socket: Any) -> bool:
            """Keep ``socket`` open with no greenlet; False when every place is taken."""
            if self.places is not None and not self.places.acquire(blocking=False):
                return False
            self.parked.add(socket)
            return True

        def unpark(self, socket: Any) -> None:
            """Close a parked socket and give its place back."""
            self.parked.discard(socket)
            socket.close()
            if self.places is not None:
                self.places.release()

        def do_close(self, socket: Any, *args: Any) -> None:
            if socket not in self.parked:
                super().do_close(socket, *args)

    return ParkingServer


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

    class HeadTimeout(gevent.Timeout):  # type: ignore[misc]
        """A request's head took too long (each fires only in its own handler's greenlet)."""

    class TimedHandler(base):  # type: ignore[misc]
        _head_timer: Any = None

        def handle(self) -> None:
            self.socket.settimeout(header_seconds)
            super().handle()

        def handle_one_request(self) -> Any:
            # Held by the handler alone, so that a websocket does not keep it for its life.
            self._head_timer = HeadTimeout(header_seconds)
            self._head_timer.start()
            try:
                return super().handle_one_request()
            except HeadTimeout:
                return None  # closes the connection
            finally:
                if self._head_timer is not None:
                    self._head_timer.close()
                    self._head_timer = None

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
                self._head_timer = None  # a websocket would keep it for its whole life
                self.socket.settimeout(max(LIVELY_SECONDS, header_seconds))

    return TimedHandler


# --- gevent's WSGI handler: a body refused for its size is left unread -------------------


def unread_refused_bodies(base: type) -> type:
    """``base`` (a gevent.pywsgi.WSGIHandler) that leaves a refused body unread.

    ``WSGIHandler.handle_one_response`` reads whatever body the app left unread
    (``self.wsgi_input._discard()``) to find the next request on the connection, so a
    2 MB body that a route refused (413, ``Connection: close``) would be read anyway.
    After a 413 the connection closes, and there is no next request to find: the body's
    reader is replaced by an empty one.
    """
    from gevent.pywsgi import Input

    class UnreadHandler(base):  # type: ignore[misc]
        code: int | None  # set by gevent's start_response
        close_connection: bool
        rfile: Any
        wsgi_input: Any

        def run_application(self) -> Any:
            try:
                return super().run_application()
            finally:
                if self.code == 413 and self.close_connection:
                    self.wsgi_input = Input(self.rfile, 0)

    return UnreadHandler


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

    Two of its steps run a Python loop over every byte (about 5 us for a move): a
    payload is unmasked here as one integer XOR instead, and a text message's UTF-8 is
    checked once it is whole, by ``WebSocket._decode_bytes``, which closes with 1007 as
    the byte-by-byte validator did (a message is at most ``max_message_bytes`` anyway).
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
            return header, unmask(payload, header.mask) if header.mask else payload

        def validate_utf8(self, payload: bytes) -> None:
            """Checked once the message is whole, when it is decoded."""

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
                # Nor does it stop reading: a peer that never answers the close would hold
                # the connection until the socket times out. Reading ends here.
                with contextlib.suppress(OSError, AttributeError):
                    self.handler.socket.shutdown(socket.SHUT_RD)
            closed = {"closed": True, "stream": None, "raw_write": None, "raw_read": None}
            for name, value in {**closed, "environ": None}.items():
                setattr(self, name, value)

    return SizeLimitedWebSocket


def unmask(payload: bytes, mask: bytes) -> bytes:
    """A websocket client's payload unmasked (RFC 6455 5.3): XOR with the 4-byte mask."""
    size = len(payload)
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")


# --- python-engineio over gevent-websocket: a connection's greenlets ------------------------
#
# Under gevent every waiting greenlet keeps its part of the C stack and a chunk of
# Python's frame stack: several kilobytes each. Engine.IO gives a websocket three: its
# reader, a writer waiting on a queue, and one sleeping until the next ping (python-
# socketio adds a fourth, until the handshake's deadline). Here the reader is the only
# one: packets are written as they are sent, and pings and deadlines are loop timers.


def call_later(server: Any, seconds: float, callback: Callable[..., Any], *args: Any) -> None:
    """Call ``callback(*args)`` in ``seconds``, in ``server``'s (Socket.IO's or Engine.IO's) mode.

    Under gevent a loop timer holds the call (a watcher keeps itself alive while it
    waits), and the callback runs in the loop itself: it must not block, and spawns a
    greenlet for anything that may. In any other mode a background task sleeps first.
    """
    if server.async_mode == "gevent":
        import gevent

        gevent.get_hub().loop.timer(seconds).start(callback, *args)
        return

    def later() -> None:
        server.sleep(seconds)
        callback(*args)

    server.start_background_task(later)


class _NoQueue:
    """What an Engine.IO socket's queue becomes once its ``FrameWriter`` takes over.

    A gevent ``JoinableQueue`` a connection (2.4 KB) that nothing reads any more: sends
    and closes go to the writer, and a polling request to an upgraded socket is answered
    before it would wait on the queue.
    """

    def put(self, item: object) -> None:
        """Nothing is queued once the writer has taken over."""

    def task_done(self) -> None:
        """Nothing was taken."""

    def join(self) -> None:
        """Nothing waits."""


NO_QUEUE = _NoQueue()


def os_socket(sock: Any) -> Any:
    """The non-blocking OS socket a gevent socket wraps (None for anything else)."""
    return getattr(sock, "_sock", None)


class FrameWriter:
    """The frames of one websocket, written by whoever sends, without a writer greenlet.

    A packet sent is framed and kept; at the end of the event loop's turn everything
    kept leaves in one non-blocking write (a round trip's two states and its ack go out
    in one system call). What the socket would not take waits, in order, for a
    short-lived greenlet that writes it with the socket's timeout; later packets queue
    behind it. A peer that stops reading therefore slows only its own connection.
    ``close`` writes what is left, then the close frame, from the calling greenlet.
    """

    __slots__ = ("_drainer", "_header", "_out", "_raw", "_scheduled", "_ws", "closed")

    def __init__(self, ws: Any) -> None:
        from geventwebsocket.websocket import Header

        self._ws = ws
        # Writing to the OS socket directly never waits, so it can happen in the loop's
        # own callbacks.
        self._raw = os_socket(getattr(ws.handler, "socket", None))
        self._out: list[bytes] = []
        self._scheduled = False
        self._drainer: Any = None
        self.closed = False
        self._header = Header.encode_header

    def put(self, encoded: str | bytes) -> None:
        """Frame one encoded Engine.IO packet (text, or bytes as binary) to be written."""
        if self.closed:
            return
        text = isinstance(encoded, str)
        data = encoded.encode() if isinstance(encoded, str) else encoded
        opcode = 0x1 if text else 0x2
        self._out.append(self._header(True, opcode, b"", len(data), 0) + data)
        if not self._scheduled and self._drainer is None:
            import gevent

            self._scheduled = True
            gevent.get_hub().loop.run_callback(self._flush)

    def _flush(self) -> None:
        # In the hub: this must never block.
        self._scheduled = False
        if self._drainer is not None or not self._out or self.closed:
            return
        data = b"".join(self._out)
        self._out = []
        sent = 0
        if self._raw is not None:
            try:
                sent = self._raw.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._lost()
                return
        if sent < len(data):
            import gevent

            self._out.insert(0, data[sent:])
            self._drainer = gevent.spawn(self._drain)

    def _drain(self) -> None:
        try:
            while self._out and not self.closed:
                data = b"".join(self._out)
                self._out = []
                self._ws.raw_write(data)  # gevent's sendall, with the socket's timeout
        except Exception:  # a dead peer, a timeout: the reader sees the socket close
            self._drainer = None
            self._lost()
        else:
            self._drainer = None

    def _lost(self) -> None:
        import gevent

        self._out = []
        gevent.spawn(self.close)

    def close(self) -> None:
        """Write what is left, then the close frame, and stop reading; once."""
        if self.closed:
            return
        import gevent

        drainer = self._drainer
        if drainer is not None and drainer is not gevent.getcurrent():
            drainer.join()
        self.closed = True
        out, self._out = self._out, []
        with contextlib.suppress(Exception):
            if out:
                self._ws.raw_write(b"".join(out))
        self._ws.close()


def lean_websockets() -> None:
    """Give each Engine.IO websocket one greenlet (its reader) in this gevent process.

    ``Socket._websocket_handler`` (engineio/socket.py) starts a writer greenlet that
    waits on ``Socket.queue``; this version gives the socket a ``FrameWriter`` instead,
    which ``Socket.send`` and ``Socket.close`` use once the websocket is open (packets
    sent before that, such as the handshake's, wait in the queue and are written
    first). ``Socket.schedule_ping`` sleeps in a new greenlet until the next ping; here
    a loop timer waits instead. Once the websocket is open the handler forgets the
    request's parsed headers (the WSGI environ keeps what the app reads).
    """
    from engineio import packet as eio
    from engineio.socket import Socket

    send, close = Socket.send, Socket.close

    def writer_of(socket: Any) -> FrameWriter | None:
        return socket.__dict__.get("writer")  # type: ignore[no-any-return]

    def direct_send(self: Any, pkt: Any) -> None:
        writer = writer_of(self)
        if writer is None:
            send(self, pkt)
        elif self.check_ping_timeout():
            writer.put(pkt.encode())

    def direct_close(self: Any, wait: bool = True, abort: bool = False, reason: Any = None) -> None:
        writer = writer_of(self)
        if writer is None:
            close(self, wait, abort, reason)
            return
        if self.closed or self.closing:
            return
        self.closing = True
        disconnected = reason or self.server.reason.SERVER_DISCONNECT
        self.server._trigger_event("disconnect", self.sid, disconnected, run_async=False)
        if not abort:
            writer.put(eio.Packet(eio.CLOSE).encode())
        self.closed = True
        if writer.closed:
            return
        if wait:
            writer.close()
        else:
            self.server.start_background_task(writer.close)

    def schedule_ping(self: Any) -> None:
        if self.last_ping:  # as Engine.IO's: one ping waits at a time
            self.last_ping = None
            call_later(self.server, self.server.ping_interval, ping, self)

    def ping(self: Any) -> None:
        # In the loop: sending never blocks (the writer, or the queue before the upgrade),
        # and the socket cannot time out here, as its last ping was just now.
        if not self.closing and not self.closed:
            self.last_ping = time.time()
            self.send(eio.Packet(eio.PING))

    def websocket_handler(self: Any, ws: Any) -> list[Any]:
        frames = ws._sock
        reader = _read_unbuffered(frames, self.server.ping_interval + self.server.ping_timeout)
        # The request's parsed headers: the WSGI environ has them, and gunicorn's access
        # line, written when the socket closes, reads only the ones its format names.
        frames.handler.headers = {}
        if self.connected and not _upgraded(self, ws):
            return []
        self.connected = self.upgraded = True
        writer = FrameWriter(frames)
        empty = self.server.get_queue_empty_exception()
        while True:  # what was sent before the websocket opened goes first
            try:
                pkt = self.queue.get(block=False)
            except empty:
                break
            self.queue.task_done()
            if pkt is not None:
                writer.put(pkt.encode())
        self.writer, self.queue = writer, NO_QUEUE
        if self.closed:
            writer.close()
        WebSocketReader(self, frames, writer, reader).read()
        return []

    def upgrade_websocket(self: Any, environ: dict[str, Any], start_response: Any) -> Any:
        if self.upgraded:
            raise OSError("Socket has been upgraded already")
        ws = self.server._async["websocket"](self._websocket_handler, self.server)
        return ws.__call__(environ, start_response)  # bound: no new C-level frame

    Socket._upgrade_websocket = upgrade_websocket
    Socket.send, Socket.close = direct_send, direct_close
    Socket.schedule_ping, Socket._websocket_handler = schedule_ping, websocket_handler


class SocketReader:
    """Exactly ``n`` bytes at a time from a socket, holding bytes only while some wait.

    The WSGI handler reads through an 8 KB buffer that a websocket would keep for its
    whole life; this one keeps what one ``recv`` brought beyond the bytes asked for.
    ``try_recv`` is the OS socket's own ``recv``, which never waits (gevent's sockets are
    non-blocking underneath): ``ready`` uses it to look without blocking.
    """

    __slots__ = ("_pending", "_recv", "_try_recv")
    CHUNK = 4096

    def __init__(
        self,
        recv: Callable[[int], bytes],
        pending: bytes = b"",
        try_recv: Callable[[int], bytes] | None = None,
    ) -> None:
        self._recv, self._pending, self._try_recv = recv, pending, try_recv

    def read(self, n: int) -> bytes:
        """``n`` bytes, or fewer if the peer closed first."""
        pending = self._pending
        if len(pending) < n:
            parts = [pending]
            have = len(pending)
            while have < n:
                chunk = self._recv(max(n - have, self.CHUNK))
                if not chunk:
                    break
                parts.append(chunk)
                have += len(chunk)
            pending = b"".join(parts)
        self._pending = pending[n:]
        return pending[:n]

    @property
    def pending(self) -> bool:
        """Whether bytes already read wait to be taken."""
        return bool(self._pending)

    def ready(self) -> bool:
        """Whether a read would start without waiting: bytes are here, or the peer closed."""
        if self._pending or self._try_recv is None:
            return True
        try:
            self._pending = self._try_recv(self.CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            return True  # the read will meet the error
        return True  # bytes, or b"" for a peer that closed


def _read_unbuffered(ws: Any, timeout: float) -> SocketReader:
    """Make ``ws`` (a gevent-websocket WebSocket) read through a ``SocketReader``.

    What the handler's buffered reader already holds (a peer may send frames right
    behind its handshake) is taken over first: with the socket's timeout at 0, its
    ``read1`` returns the buffered bytes, or nothing, without waiting. That reader is
    then closed, which frees its buffer.
    """
    handler = ws.handler
    sock, rfile = handler.socket, handler.rfile
    sock.settimeout(0.0)
    try:
        pending = rfile.read1(65536)
    except OSError:
        pending = b""
    finally:
        sock.settimeout(timeout)
    raw = os_socket(sock)
    reader = SocketReader(sock.recv, pending or b"", raw.recv if raw is not None else None)
    ws.raw_read = ws.stream.read = reader.read
    rfile.close()
    return reader


class WebSocketReader:
    """Reads one Engine.IO websocket while messages come, and holds no greenlet between.

    Under gevent a greenlet waiting for a socket keeps its saved C stack and a page of
    Python's frame stack, about 9 KB, which is most of what an idle player costs. So
    ``read`` handles the messages that are ready, then *parks* the connection: a loop
    watcher waits for the socket to become readable and starts a greenlet that reads
    again. The first time, the connection leaves the WSGI handler (``detach``), whose
    greenlet then ends; the server (``parking_server``) keeps the socket open and counts
    it among its connections. A server that cannot park keeps reading in its greenlet.
    Once the connection closes, its socket is closed and its access line written.
    """

    __slots__ = ("_closing", "_frames", "_reader", "_socket", "_watcher", "_writer")

    def __init__(self, socket: Any, frames: Any, writer: FrameWriter, reader: SocketReader) -> None:
        self._socket, self._frames, self._writer, self._reader = socket, frames, writer, reader
        self._watcher: Any = None
        self._closing: Any = None  # the parked socket's closing, once detached

    def read(self) -> None:
        """Handle messages until none is ready (then park) or the connection ends."""
        import gevent
        from engineio import exceptions
        from engineio import packet as eio

        socket, frames = self._socket, self._frames
        limit = socket.server.max_http_buffer_size
        first = True
        while not socket.closed:
            # Woken, the socket is looked at once; after a message only the bytes already
            # read count, so an idle connection parks without another system call (the
            # loop's watcher fires at once if more came meanwhile).
            ready = self._reader.ready() if first else self._reader.pending
            if not ready and self._park():
                return
            if not first:
                # A client whose messages are already buffered would otherwise be read
                # without a pause until its buffer is empty: from the second message of a
                # wake on, every connection (and a disconnect decided by the rate limit)
                # takes its turn first. The first one comes straight from the loop.
                gevent.sleep(0)
            first = False
            try:
                data = frames.receive()
            except Exception:
                break
            if data is None or len(data) > limit:
                break
            try:
                socket.receive(eio.Packet(encoded_packet=data))
            except exceptions.UnknownPacketError:
                pass
            except exceptions.SocketIsClosedError:
                break
            except Exception:
                socket.server.logger.exception("Unknown receive error")
                break
        self._finish()

    def _park(self) -> bool:
        """Wait for the socket in a loop watcher instead of a greenlet, if the server allows."""
        import gevent

        if self._watcher is None:
            handler = self._frames.handler
            detach = getattr(handler, "detach", None)
            closing = detach(self._frames) if detach is not None else None
            if closing is None:
                return False  # this server cannot park: read in this greenlet
            self._closing = closing
            self._watcher = gevent.get_hub().loop.io(closing.fileno, 1)
        self._watcher.start(self._wake)
        return True

    def _wake(self) -> None:
        # In the loop: readable (or closed) at last; reading may block, so in a greenlet.
        import gevent

        self._watcher.stop()
        gevent.spawn(self.read)

    def _finish(self) -> None:
        socket = self._socket
        self._writer.close()
        socket.close(wait=False, abort=True, reason=socket.server.reason.TRANSPORT_CLOSE)
        if self._watcher is not None:
            # What Engine.IO does once a websocket's request returns, and the handler the
            # socket left behind would have done when the request ended.
            if socket.server.sockets.get(socket.sid) is socket:
                del socket.server.sockets[socket.sid]
            self._watcher.close()
            self._closing.close()


def _upgraded(socket: Any, ws: Any) -> bool:
    """Engine.IO's upgrade of a polling connection to this websocket (engineio/socket.py)."""
    from engineio import packet as eio

    socket.upgrading = True  # hold what is sent meanwhile in the queue
    try:
        probe = eio.Packet(encoded_packet=ws.wait())
        if probe.packet_type != eio.PING or probe.data != "probe":
            return False
        ws.send(eio.Packet(eio.PONG, data="probe").encode())
        socket.queue.put(eio.Packet(eio.NOOP))  # ends the pending poll
        upgrade = eio.Packet(encoded_packet=ws.wait())
        return bool(upgrade.packet_type == eio.UPGRADE)
    except Exception:
        return False
    finally:
        socket.upgrading = False


def share_the_environ() -> None:
    """Let Flask-SocketIO's middleware add its key to the WSGI environ instead of a copy.

    ``_SocketIOMiddleware.__call__`` (flask_socketio/__init__.py) copies the environ to
    add ``flask.app``, and python-socketio keeps that copy for the connection's life while
    the server keeps the original: two dicts a connection where one does. Each request
    has an environ of its own, so adding the key to it changes nothing else.
    """
    import flask_socketio

    middleware = flask_socketio._SocketIOMiddleware
    call = super(middleware, middleware).__call__  # engineio's WSGIApp.__call__

    def shared(self: Any, environ: dict[str, Any], start_response: Any) -> Any:
        environ["flask.app"] = self.flask_app
        return call(self, environ, start_response)

    middleware.__call__ = shared


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
        call_later(server, handshake_seconds, close_unless_joined, eio_sid)
        return connected(eio_sid, environ, *args)

    def close_unless_joined(eio_sid: str) -> None:  # in the loop: only looks, then spawns
        if eio_sid in server.eio.sockets and not server.manager.sid_from_eio_sid(eio_sid, "/"):
            server.start_background_task(close_unjoined, eio_sid)

    def close_unjoined(eio_sid: str) -> None:
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
