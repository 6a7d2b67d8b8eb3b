"""What a websocket may send, checked from each frame's header before its payload is read.

gunicorn's gevent worker hands a websocket's socket to the app in the WSGI environ
(``gunicorn.socket``), and Engine.IO's gevent driver reads it through simple-websocket
(wsproto underneath). ``WebSocketGuard``, a WSGI middleware, gives simple-websocket that
socket behind a ``FrameGuard``, which follows the frames in the bytes as they arrive
(what it relies on of gunicorn and simple-websocket is pinned: overrides.py's PINNED):

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
  starve the other connections before the flood limits (wire/packets.py) see a packet. Paced,
  the flood waits in its own socket (TCP pushes back), and the flood limits, counting
  at a quarter of the pace, refuse it and cut it off;
- once the server has sent its close frame, reading ends: simple-websocket would go on
  reading what a flooder still sends (and mark the connection open again on the next
  message), and would wait for a silent peer's reply, so a connection closed by the
  server would stay open until its socket timed out;
- what simple-websocket sends is sent whole (its ``send`` may write part of a frame);
- every frame, of any kind, is also paid from its client address's bucket of packets
  (limits.AddressPackets), shared by all the address's connections: a read waits until
  the address's turn, and a connection that would wait more than ``longest`` seconds is
  cut (close 1008), what it read unhandled, so that many sockets of one address, each
  within its pace, cannot add up to more than the address's budget. A connection that
  has not joined the game may send ``unjoined`` frames at most (close 1008);
- a text message must begin with a packet type Engine.IO reads from a client (1 to 6),
  checked from its first payload byte: an empty message or any other would make
  Engine.IO raise, and gunicorn write a traceback to the log and ``500`` onto the
  websocket. It is closed with 1007 instead.

A new websocket's handshake is paid too (``HANDSHAKE_PACKETS``), and refused with 429
while its address is more than ``longest`` seconds in debt. Anything else that goes
wrong once the connection is a websocket ends it with 1011 and one short line in the
log now and then, never a 500 written onto the websocket. wire/polling.py does the
same for long-polling requests (when they are served at all).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from webapp.server.limits.rates import AddressPackets, QuietLog, TokenBucket

TOO_BIG, PROTOCOL_ERROR, UNREADABLE, TOO_MANY, BROKEN = 1009, 1002, 1007, 1008, 1011
REASONS = {
    TOO_BIG: b"message too big",
    PROTOCOL_ERROR: b"no extension was negotiated",
    UNREADABLE: b"not an Engine.IO packet",
    TOO_MANY: b"too many packets",
    BROKEN: b"server error",
}
CAUSES = {  # the log's line for each refusal (at most one a minute each)
    TOO_BIG: "websockets closed: a message too big",
    PROTOCOL_ERROR: "websockets closed: a compressed frame",
    UNREADABLE: "websockets closed: not an Engine.IO packet",
    TOO_MANY: "websockets cut off: too many packets",
}
RESERVED_BITS, OPCODE, MASKED, LENGTH, FIN = 0x70, 0x0F, 0x80, 0x7F, 0x80
TEXT, BINARY = 0x1, 0x2
CLOSE_FRAME = 0x88  # the first byte of a whole close frame
# The packet types Engine.IO reads from a client: close, ping, pong, message, upgrade, noop.
PACKET_TYPES = b"123456"
# The most read at once: what one read brings is parsed and handled without a pause for
# the other connections (about 25 small messages here, 195 in simple-websocket's 4 KB).
READ_BYTES = 512
# A new connection's handshake (the upgrade, Engine.IO's open packet, a socket and its
# timers) costs about as much as this many packets.
HANDSHAKE_PACKETS = 4
LONGEST_WAIT = 2.0  # seconds a read may wait for its address's turn before a cut
UPGRADED = b"HTTP/1.1 101"


def header_size(head: bytes | bytearray) -> int:
    """A frame header's length (RFC 6455 5.2), from its first two bytes."""
    short = head[1] & LENGTH
    extended = 0 if short < 126 else 2 if short == 126 else 8
    return 2 + extended + (4 if head[1] & MASKED else 0)


def payload_length(head: bytes | bytearray) -> int:
    """The payload length a whole frame header announces."""
    short = head[1] & LENGTH
    if short < 126:
        return short
    return int.from_bytes(head[2 : 4 if short == 126 else 10], "big")


class FrameHeader(NamedTuple):
    """What a whole frame header says (RFC 6455 5.2)."""

    fin: bool  # the last frame of its message
    reserved: int  # the RSV bits, which only a negotiated extension may set
    opcode: int
    masked: bool
    mask: int  # the masking key's first byte, which masks the payload's first (0: none)
    length: int  # of the payload


def read_frame_header(head: bytes | bytearray) -> FrameHeader:
    """What a whole frame header (``header_size`` bytes) says."""
    first, masked = head[0], bool(head[1] & MASKED)
    mask = head[-4] if masked else 0
    return FrameHeader(
        bool(first & FIN), first & RESERVED_BITS, first & OPCODE, masked, mask, payload_length(head)
    )


def close_frame(code: int) -> bytes:
    """A server's close frame (unmasked) with its status code and reason."""
    body = struct.pack("!H", code) + REASONS[code]
    return bytes([0x88, len(body)]) + body


class FrameGuard:
    """A websocket's socket, watching frame headers in what ``recv`` returns."""

    __slots__ = (
        "_address",
        "_closed",
        "_first",
        "_frames",
        "_head",
        "_mask",
        "_message",
        "_read",
        "_skip",
        "_sock",
        "_unjoined",
        "_yield",
        "limit",
        "longest",
        "refused",
        "upgraded",
    )

    def __init__(
        self,
        sock: Any,
        limit: int,
        pace: float,
        *,
        address: TokenBucket | None = None,
        unjoined: int | None = None,
        longest: float = LONGEST_WAIT,
    ) -> None:
        self._sock, self.limit, self.longest = sock, limit, longest
        self._frames = TokenBucket(pace, 2 * pace) if pace else None
        self._address = address  # the client address's packets, shared (None: no limit)
        self._unjoined = unjoined  # frames left before joining (None: joined, or no limit)
        self._yield = False  # the last read filled the buffer: more may be waiting
        self._closed = False  # a close frame was sent: nothing more is read
        self._head = bytearray()  # the header being read
        self._skip = 0  # payload bytes of the current frame still to come
        self._message = 0  # bytes announced so far by the current message's frames
        self._mask = -1  # the first byte of the current data frame's mask (-1: not data)
        self._first = False  # a text message whose first byte is still to come
        self._read = 0  # frames begun in the last read
        self.refused = 0  # the close code this guard refused the peer with (0: none)
        self.upgraded = False  # the handshake's 101 was sent: this is a websocket now

    def joined(self) -> None:
        """The connection joined the game: the allowance of an unjoined one ends."""
        self._unjoined = None

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
        self._read = 0
        refusal = self.check(data) if data else 0
        refusal = refusal or self._take_turn(self._read)
        if refusal:
            self.refuse(refusal)
            return b""
        return data

    def refuse(self, code: int) -> None:
        """Close the connection with ``code`` (nothing more is read)."""
        self.refused = code
        with contextlib.suppress(OSError):
            self.send(close_frame(code))

    def _take_turn(self, frames: int) -> int:
        """Pay ``frames`` from the allowances, waiting for the address's turn; or refuse."""
        if not frames:
            return 0
        if self._unjoined is not None:
            self._unjoined -= frames
            if self._unjoined < 0:
                return TOO_MANY
        shared = self._address
        if shared is None:
            return 0
        waited = 0.0
        while debt := shared.debt_seconds():  # the address's other readers go first
            waited += debt
            if waited > self.longest:
                return TOO_MANY
            time.sleep(debt)
        shared.spend(frames)
        return 0

    def check(self, data: bytes) -> int:
        """0 while ``data`` keeps the rules, else the close code that refuses it."""
        at, size = 0, len(data)
        while at < size:
            if self._skip:
                if self._first and self._mask >= 0:  # a text message's first byte
                    self._first = False
                    if data[at] ^ self._mask not in PACKET_TYPES:
                        return UNREADABLE
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
        fin, reserved, opcode, _, mask, length = read_frame_header(head)
        if reserved:
            return PROTOCOL_ERROR
        if opcode in (TEXT, BINARY):
            self._message = 0
            self._first = opcode == TEXT
        self._read += 1
        if self._frames is not None:
            self._frames.spend(1)
        self._mask = -1
        if opcode <= BINARY:  # text, binary or a continuation
            self._message += length
            if self._message > self.limit:
                return TOO_BIG
            if self._first and not self._message and fin:
                return UNREADABLE  # an empty text message
            self._mask = mask
        # A control frame's payload is skipped uncounted: wsproto refuses (close 1002) one
        # over 125 bytes or in fragments from its first two bytes.
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
        elif not self.upgraded and data.startswith(UPGRADED):
            self.upgraded = True
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)  # close, fileno, ...


Respond = Callable[..., Any]


def refuse_request(start_response: Respond, status: str, text: str) -> list[bytes]:
    """A short plain-text refusal of an HTTP request."""
    body = text.encode() + b"\n"
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    start_response(status, headers)
    return [body]


class WebSocketGuard:
    """WSGI middleware: a websocket handshake's socket behind a ``FrameGuard``, uncompressed,
    its address's packets counted (``packets``: None for no limit)."""

    def __init__(
        self,
        app: Any,
        limit: int,
        timeout: float,
        *,
        pace: float = 0.0,
        packets: AddressPackets | None = None,
        unjoined: int | None = None,
        log: QuietLog | None = None,
    ) -> None:
        self.app, self.limit, self.timeout, self.pace = app, limit, timeout, pace
        self.packets, self.unjoined, self.log = packets, unjoined, log

    def __call__(self, environ: dict[str, Any], start_response: Respond) -> Any:
        """Pass the request on; a websocket's with its socket guarded."""
        sock = environ.get("gunicorn.socket")
        if sock is None or environ.get("HTTP_UPGRADE", "").lower() != "websocket":
            return self.app(environ, start_response)
        address = environ.get("REMOTE_ADDR")
        shared = self.packets.enter(address) if self.packets else None
        try:
            if shared is not None and shared.debt_seconds() > LONGEST_WAIT:
                if self.log is not None:
                    self.log.warning("websocket handshakes refused", f"from {address}")
                return refuse_request(start_response, "429 Too Many Requests", "too many packets")
            if shared is not None:
                shared.spend(HANDSHAKE_PACKETS)
            environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
            sock.settimeout(self.timeout)
            # An upgrade of a long-polling connection (its sid named) has joined already.
            upgrade = "sid=" in environ.get("QUERY_STRING", "")
            unjoined = None if upgrade else self.unjoined
            guard = FrameGuard(sock, self.limit, self.pace, address=shared, unjoined=unjoined)
            environ["gunicorn.socket"] = guard
            return self._serve(guard, environ, start_response)
        finally:
            if self.packets:
                self.packets.leave(address)

    def _serve(self, guard: FrameGuard, environ: dict[str, Any], start_response: Respond) -> Any:
        try:
            return self.app(environ, start_response)
        except StopIteration:
            raise  # the websocket ended (simple-websocket's word for it under gunicorn)
        except Exception as err:
            if not guard.upgraded:
                raise  # an HTTP answer can still be written: gunicorn's own handling
            self._say(BROKEN, environ.get("REMOTE_ADDR"), err)
            if not guard.refused:
                guard.refuse(BROKEN)
            raise StopIteration from None  # gunicorn ends the connection, writing nothing
        finally:
            if guard.refused:
                self._say(guard.refused, environ.get("REMOTE_ADDR"))

    def _say(self, code: int, address: str | None, err: BaseException | None = None) -> None:
        if self.log is None:
            return
        if err is not None:  # where it was raised, in one short line
            where = err.__traceback__
            while where is not None and where.tb_next is not None:
                where = where.tb_next
            place = f"{where.tb_frame.f_code.co_filename}:{where.tb_lineno}" if where else ""
            self.log.warning("websocket errors", f"{type(err).__name__}: {err} at {place}")
        elif code in CAUSES:
            self.log.warning(CAUSES[code], f"from {address}")
