"""What a websocket may send, checked from each frame's header before its payload is read.

gunicorn's gevent worker hands a websocket's socket to the app in the WSGI environ
(``gunicorn.socket``), and Engine.IO's gevent driver reads it through simple-websocket
(wsproto underneath). ``WebSocketGuard``, a WSGI middleware, gives simple-websocket that
socket behind a ``FrameGuard``, which follows the frames in the bytes as they arrive:

- a data message whose frames announce more than the limit, added up over its fragments,
  is refused (close 1009) from the header that crosses it, before its payload is read;
- compression is never negotiated (the client's offer is taken out of the handshake), so
  a frame flagged as compressed (a reserved bit) is refused (close 1002) uninflated:
  simple-websocket would accept permessage-deflate and inflate each read before counting;
- the socket gives up after ``timeout`` seconds without progress, so that a dead peer
  cannot hold its connection (Engine.IO's pings keep a live one far busier than that);
- frames are read at most at ``pace`` a second on average (bursts of ``2 * pace``),
  ``READ_BYTES`` at a time, the other connections served between full reads:
  simple-websocket's reader greenlet reads whatever arrives into a list without bound,
  never yielding while the socket has bytes, so a flooder would fill the memory and
  starve the other connections before the flood limits (guard.py) see a packet. Paced,
  the flood waits in its own socket (TCP pushes back), and the flood limits, counting
  at a quarter of the pace, refuse it and cut it off;
- once the server has sent its close frame, reading ends: simple-websocket would go on
  reading what a flooder still sends (and mark the connection open again on the next
  message), and would wait for a silent peer's reply, so a connection closed by the
  server would stay open until its socket timed out;
- what simple-websocket sends is sent whole (its ``send`` may write part of a frame).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import time
from typing import Any

from .limits import TokenBucket

TOO_BIG, PROTOCOL_ERROR = 1009, 1002
REASONS = {TOO_BIG: b"message too big", PROTOCOL_ERROR: b"no extension was negotiated"}
RESERVED_BITS, OPCODE, MASKED, LENGTH = 0x70, 0x0F, 0x80, 0x7F
TEXT, BINARY = 0x1, 0x2
CLOSE_FRAME = 0x88  # the first byte of a whole close frame
# The most read at once: what one read brings is parsed and handled without a pause for
# the other connections (about 25 small messages here, 195 in simple-websocket's 4 KB).
READ_BYTES = 512


def header_size(head: bytes | bytearray) -> int:
    """A frame header's length (RFC 6455 5.2), from its first two bytes."""
    extended = {126: 2, 127: 8}.get(head[1] & LENGTH, 0)
    return 2 + extended + (4 if head[1] & MASKED else 0)


def payload_length(head: bytes | bytearray) -> int:
    """The payload length a whole frame header announces."""
    short = head[1] & LENGTH
    if short < 126:
        return short
    return int.from_bytes(head[2 : 4 if short == 126 else 10], "big")


def close_frame(code: int) -> bytes:
    """A server's close frame (unmasked) with its status code and reason."""
    body = struct.pack("!H", code) + REASONS[code]
    return bytes([0x88, len(body)]) + body


class FrameGuard:
    """A websocket's socket, watching frame headers in what ``recv`` returns."""

    __slots__ = ("_closed", "_frames", "_head", "_message", "_skip", "_sock", "_yield", "limit")

    def __init__(self, sock: Any, limit: int, pace: float) -> None:
        self._sock, self.limit = sock, limit
        self._frames = TokenBucket(pace, 2 * pace) if pace else None
        self._yield = False  # the last read filled the buffer: more may be waiting
        self._closed = False  # a close frame was sent: nothing more is read
        self._head = bytearray()  # the header being read
        self._skip = 0  # payload bytes of the current frame still to come
        self._message = 0  # bytes announced so far by the current message's frames

    def recv(self, size: int) -> bytes:
        """What the peer sent; nothing (the end) once it broke a rule, told why."""
        frames = self._frames
        debt = frames.debt_seconds() if frames is not None else 0.0
        if debt or self._yield:
            time.sleep(debt)  # gevent's: the other connections take their turn
        if self._closed:
            return b""
        size = min(size, READ_BYTES)
        data: bytes = self._sock.recv(size)
        self._yield = len(data) == size
        refusal = self.check(data) if data else 0
        if refusal:
            with contextlib.suppress(OSError):
                self.send(close_frame(refusal))
            return b""
        return data

    def check(self, data: bytes) -> int:
        """0 while ``data`` keeps the rules, else the close code that refuses it."""
        at, size = 0, len(data)
        while at < size:
            if self._skip:
                step = min(self._skip, size - at)
                self._skip -= step
                at += step
                continue
            head = self._head
            head.append(data[at])
            at += 1
            if len(head) >= 2 and len(head) == header_size(head):
                self._head = bytearray()
                refusal = self._frame(head)
                if refusal:
                    return refusal
        return 0

    def _frame(self, head: bytearray) -> int:
        if head[0] & RESERVED_BITS:
            return PROTOCOL_ERROR
        length, opcode = payload_length(head), head[0] & OPCODE
        if opcode in (TEXT, BINARY):
            self._message = 0
        if self._frames is not None:
            self._frames.spend(1)
        if opcode <= BINARY:  # text, binary or a continuation
            self._message += length
            if self._message > self.limit:
                return TOO_BIG
        self._skip = length
        return 0

    def send(self, data: bytes) -> int:
        """Send all of ``data``."""
        self._sock.sendall(data)
        if data[:1] == bytes([CLOSE_FRAME]) and not self._closed:
            # A waiting read ends now (simple-websocket's close does not wake its reader),
            # so its greenlets end and the connection closes.
            self._closed = True
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RD)
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)  # close, fileno, ...


class WebSocketGuard:
    """WSGI middleware: a websocket handshake's socket behind a ``FrameGuard``, uncompressed."""

    def __init__(self, app: Any, limit: int, timeout: float, *, pace: float = 0.0) -> None:
        self.app, self.limit, self.timeout, self.pace = app, limit, timeout, pace

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Pass the request on; a websocket's with its socket guarded."""
        sock = environ.get("gunicorn.socket")
        if sock is not None and environ.get("HTTP_UPGRADE", "").lower() == "websocket":
            environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
            sock.settimeout(self.timeout)
            environ["gunicorn.socket"] = FrameGuard(sock, self.limit, self.pace)
        return self.app(environ, start_response)
