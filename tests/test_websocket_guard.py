"""The websocket guard (webapp/server/wire/websocket.py), in-process: its frame headers'
sizes, masks, fragments, control frames, and headers wherever the reads cut them; and
what it relies on of gunicorn and simple-websocket (wire/overrides.py's PINNED)."""

from __future__ import annotations

import contextlib
import itertools
import socket
import struct
from collections.abc import Callable

import pytest
import simple_websocket
from gunicorn.config import Config
from gunicorn.glogging import Logger
from gunicorn.http.parser import RequestParser

from webapp.server.process.serve import Worker
from webapp.server.wire.websocket import (
    PROTOCOL_ERROR,
    TOO_BIG,
    TOO_MANY,
    UNREADABLE,
    FrameGuard,
    FrameHeader,
    header_size,
    read_frame_header,
)

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
KEY = b"\x5a\x01\x02\x03"  # a masking key; its first byte masks a payload's first
MOST = 2**63 - 1  # the largest length the 64-bit form can say


def header(opcode: int, length: int, *, fin: bool = True, key: bytes = KEY, form: int = 0) -> bytes:
    """A frame header written by hand (RFC 6455 5.2); ``form`` 126 or 127 forces the
    16-bit or 64-bit length, else the shortest that holds ``length``."""
    form = form or (length if length < 126 else 126 if length < 65536 else 127)
    extended = length.to_bytes({126: 2, 127: 8}[form], "big") if form > 125 else b""
    first = opcode | (0x80 if fin else 0)
    return bytes([first, form | (0x80 if key else 0)]) + extended + key


def frame(opcode: int, payload: bytes, *, fin: bool = True, key: bytes = KEY) -> bytes:
    """A whole frame, its payload masked with ``key`` (none: sent as is)."""
    masked = bytes(byte ^ key[i % 4] for i, byte in enumerate(payload)) if key else payload
    return header(opcode, len(payload), fin=fin, key=key) + masked


def guard(limit: int = 1000, sock: object = None, **options: object) -> FrameGuard:
    """A guard with no pace, over ``sock`` (none: only ``check`` is called)."""
    return FrameGuard(sock, limit, 0.0, **options)  # type: ignore[arg-type]


def check_in_reads(data: bytes, cuts: tuple[int, ...], limit: int = 1000) -> int:
    """What a fresh guard says of ``data`` read in pieces cut at ``cuts``: the first refusal."""
    frames, bounds = guard(limit), (0, *cuts, len(data))
    for start, end in itertools.pairwise(bounds):
        refusal = frames.check(data[start:end])
        if refusal:
            return refusal
    return 0


# --- one header ---------------------------------------------------------------------------

SIZES = [  # (payload length, length form, header bytes unmasked)
    (0, 0, 2),
    (125, 0, 2),
    (126, 126, 4),  # the 16-bit length begins here
    (65535, 126, 4),
    (65536, 127, 10),  # the 64-bit length begins here
    (MOST, 127, 10),
    (5, 126, 4),  # longer forms than needed still say the length (wsproto refuses them)
    (5, 127, 10),
    (65535, 127, 10),
]


@pytest.mark.parametrize(("length", "form", "size"), SIZES)
@pytest.mark.parametrize("key", [KEY, b""])
def test_a_header_says_its_length_in_each_form(
    length: int, form: int, size: int, key: bytes
) -> None:
    head = header(BINARY, length, key=key, form=form)
    assert header_size(head[:2]) == size + len(key) == len(head)
    assert read_frame_header(head) == FrameHeader(
        True, 0, BINARY, bool(key), key[0] if key else 0, length
    )


@pytest.mark.parametrize(
    ("first", "fin", "reserved", "opcode"),
    [
        (0x01, False, 0, TEXT),  # a message's first fragment
        (0x00, False, 0, CONTINUATION),
        (0x80, True, 0, CONTINUATION),  # its last
        (0x82, True, 0, BINARY),
        (0x88, True, 0, CLOSE),
        (0x89, True, 0, PING),
        (0x8A, True, 0, PONG),
        (0x09, False, 0, PING),  # a fragmented control frame, as the bits say it
        (0xC1, True, 0x40, TEXT),  # compressed (RSV1)
        (0xB1, True, 0x30, TEXT),  # RSV2 and RSV3
    ],
)
def test_a_header_says_its_kind(first: int, fin: bool, reserved: int, opcode: int) -> None:
    head = bytes([first, 0x80 | 3]) + KEY
    assert read_frame_header(head) == FrameHeader(fin, reserved, opcode, True, KEY[0], 3)


# --- what a guard makes of the bytes ------------------------------------------------------


@pytest.mark.parametrize(("length", "form", "_"), [s for s in SIZES if s[0] < MOST])
@pytest.mark.parametrize("key", [KEY, b""])
def test_a_message_is_refused_from_the_header_that_crosses_the_limit(
    length: int, form: int, _: int, key: bytes
) -> None:
    head = header(BINARY, length, key=key, form=form)
    assert guard(limit=length).check(head) == 0
    if length:
        assert guard(limit=length - 1).check(head) == TOO_BIG


@pytest.mark.parametrize(("length", "form", "_"), [s for s in SIZES if s[0]])
@pytest.mark.parametrize("key", [KEY, b""])
def test_a_header_cut_into_single_bytes_is_refused_at_its_last(
    length: int, form: int, _: int, key: bytes
) -> None:
    head = header(BINARY, length, key=key, form=form)
    over = guard(limit=length - 1)
    assert [over.check(head[i : i + 1]) for i in range(len(head))] == [0] * (len(head) - 1) + [
        TOO_BIG
    ]


@pytest.mark.parametrize(("length", "form", "_"), [s for s in SIZES if s[0]])
@pytest.mark.parametrize(("byte", "refusal"), [(b"4", 0), (b"x", UNREADABLE)])
@pytest.mark.parametrize("key", [KEY, b""])
def test_a_text_message_s_first_byte_is_read_past_each_header_form(
    length: int, form: int, _: int, byte: bytes, refusal: int, key: bytes
) -> None:
    """The first payload byte is found after the length and key, and unmasked by the key."""
    sent = byte[0] ^ key[0] if key else byte[0]
    data = header(TEXT, length, key=key, form=form) + bytes([sent])
    assert guard(limit=length).check(data) == refusal


FRAGMENTS = frame(TEXT, b"4ab", fin=False) + frame(CONTINUATION, b"cd", fin=False)
FRAGMENTS += frame(CONTINUATION, b"ef")


@pytest.mark.parametrize(("limit", "refusal"), [(7, 0), (6, TOO_BIG)])
def test_fragments_add_up_to_one_message(limit: int, refusal: int) -> None:
    assert check_in_reads(FRAGMENTS, (), limit) == refusal


def test_a_new_message_counts_from_nothing() -> None:
    messages = FRAGMENTS + frame(BINARY, b"1234567") + frame(TEXT, b"4abcdef")
    assert check_in_reads(messages, (), 7) == 0


@pytest.mark.parametrize(
    ("data", "limit", "refusal"),
    [
        (FRAGMENTS, 7, 0),
        (FRAGMENTS, 6, TOO_BIG),
        (frame(TEXT, b"4a") + frame(BINARY, b"") + frame(PING, b"p"), 2, 0),
        (frame(TEXT, b"4a") + frame(TEXT, b"x"), 2, UNREADABLE),
        (frame(TEXT, b"4a") + frame(TEXT, b""), 2, UNREADABLE),
    ],
)
def test_several_frames_read_in_any_pieces_as_in_one_read(
    data: bytes, limit: int, refusal: int
) -> None:
    whole = check_in_reads(data, (), limit)
    halves = [check_in_reads(data, (cut,), limit) for cut in range(1, len(data))]
    singles = check_in_reads(data, tuple(range(1, len(data))), limit)
    assert (whole, set(halves), singles) == (refusal, {refusal}, refusal)


@pytest.mark.parametrize(
    ("data", "refusal"),
    [
        (frame(TEXT, b""), UNREADABLE),  # an empty text message
        (frame(TEXT, b"", fin=False) + frame(CONTINUATION, b""), UNREADABLE),
        (frame(TEXT, b"", fin=False) + frame(CONTINUATION, b"4"), 0),
        (frame(TEXT, b"", fin=False) + frame(CONTINUATION, b"x"), UNREADABLE),
        (frame(BINARY, b""), 0),
        (frame(TEXT, b"", key=b""), UNREADABLE),
        (frame(TEXT, b"4", key=b""), 0),
        (bytes([0xC1, 0x81]) + KEY + b"4", PROTOCOL_ERROR),  # compressed
        (bytes([0x91, 0x81]) + KEY + b"4", PROTOCOL_ERROR),  # RSV3
    ],
)
def test_what_a_text_message_may_be(data: bytes, refusal: int) -> None:
    assert check_in_reads(data, (), 1000) == refusal


@pytest.mark.parametrize(
    ("control", "limit", "refusal"),
    [
        (frame(PING, b"x" * 125), 3, 0),  # a control frame's payload is not the message's
        (frame(PONG, b"x" * 125), 3, 0),
        (frame(CLOSE, struct.pack("!H", 1000) + b"bye"), 3, 0),
        (frame(PING, b"xx"), 2, TOO_BIG),  # nor does it end the message
    ],
)
def test_control_frames_between_fragments_are_skipped(
    control: bytes, limit: int, refusal: int
) -> None:
    """The text's first byte is checked in the continuation, not in the control frame."""
    data = frame(TEXT, b"", fin=False) + control + frame(CONTINUATION, b"4xx")
    assert check_in_reads(data, (), limit) == refusal


MALFORMED_CONTROL = [  # (frame, wsproto's reason for refusing it)
    (frame(PING, b"x" * 126), b"Control frame with payload len > 125"),
    (header(PONG, MOST), b"Control frame with payload len > 125"),
    (frame(PING, b"p", fin=False), b"Invalid attempt to fragment control frame"),
    (frame(CLOSE, b"", fin=False), b"Invalid attempt to fragment control frame"),
]


@pytest.mark.parametrize(("data", "reason"), MALFORMED_CONTROL)
def test_a_malformed_control_frame_passes_the_guard(data: bytes, reason: bytes) -> None:
    assert check_in_reads(data, (), 10) == 0


class Peer:
    """A connected socket's far end in memory: ``reads`` to hand out, what was sent, and
    each read's or write's method and size."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads, self.sent, self.open = reads, b"", True
        self.calls: list[tuple[str, int]] = []

    def recv(self, size: int) -> bytes:
        self.calls.append(("recv", size))
        return self.reads.pop(0)[:size] if self.reads else b""

    def send(self, data: bytes) -> int:
        self.calls.append(("send", len(data)))
        self.sent += data
        return len(data)

    def sendall(self, data: bytes) -> None:
        self.calls.append(("sendall", len(data)))
        self.sent += data

    def shutdown(self, how: int) -> None:
        self.reads.clear()

    def close(self) -> None:
        self.open = False


class RunNow:
    """simple-websocket's reader thread, run to its end on ``start``."""

    def __init__(self, target: object) -> None:
        self.target, self.name = target, "reader"

    def start(self) -> None:
        self.target()  # type: ignore[operator]


HANDSHAKE = {
    "HTTP_HOST": "localhost",
    "HTTP_UPGRADE": "websocket",
    "HTTP_CONNECTION": "Upgrade",
    "HTTP_SEC_WEBSOCKET_KEY": "dGhlIHNhbXBsZSBub25jZQ==",
    "HTTP_SEC_WEBSOCKET_VERSION": "13",
}
DEFLATE = {"HTTP_SEC_WEBSOCKET_EXTENSIONS": "permessage-deflate"}


def served(reads: list[bytes], **options: object) -> tuple[FrameGuard, Peer, list[object]]:
    """``reads`` through a guard into simple-websocket, as Engine.IO serves them: the guard,
    the peer, and the messages simple-websocket took in."""
    peer = Peer(reads)
    frames = guard(1000, peer, **options)
    ws = simple_websocket.Server(
        {**HANDSHAKE, "gunicorn.socket": frames}, thread_class=RunNow, receive_bytes=4096
    )
    return frames, peer, list(ws.input_buffer)


@pytest.mark.parametrize(("data", "reason"), MALFORMED_CONTROL)
def test_a_malformed_control_frame_is_refused_by_wsproto_behind_the_guard(
    data: bytes, reason: bytes
) -> None:
    frames, peer, taken = served([frame(TEXT, b"4hi") + data + frame(TEXT, b"4no")])
    closing = peer.sent.split(b"\r\n\r\n", 1)[1]
    assert closing == bytes([0x88, 2 + len(reason)]) + struct.pack("!H", 1002) + reason
    assert (taken, frames.refused, peer.open) == (["4hi"], 0, False)


@pytest.mark.parametrize(
    ("reads", "unjoined", "taken", "refused"),
    [
        ([frame(TEXT, b"4a") + frame(TEXT, b"4b")], 2, ["4a", "4b"], 0),
        ([frame(TEXT, b"4a") + frame(TEXT, b"4b") + frame(TEXT, b"4c")], 2, [], TOO_MANY),
        ([frame(TEXT, b"4a")[:3], frame(TEXT, b"4a")[3:] + frame(TEXT, b"4b")], 2, ["4a", "4b"], 0),
        ([frame(TEXT, b"4a"), frame(TEXT, b"4b") + frame(TEXT, b"4c")], 2, ["4a"], TOO_MANY),
    ],
)
def test_every_frame_of_a_read_is_counted_once(
    reads: list[bytes], unjoined: int, taken: list[str], refused: int
) -> None:
    """A header cut between two reads is one frame; a read's frames are paid together."""
    frames, peer, messages = served(reads, unjoined=unjoined)
    assert (messages, frames.refused) == (taken, refused)
    assert peer.sent.endswith(b"too many packets") == bool(refused)


# --- what the guard relies on (wire/overrides.py's PINNED) -------------------------------


@pytest.mark.parametrize(("raises", "written"), [(False, True), (True, False)])
def test_gunicorns_gevent_worker_hands_the_app_its_socket(raises: bool, written: bool) -> None:
    """The guard finds the connection's socket as ``gunicorn.socket`` and puts its own
    there; a StopIteration out of the app ends the connection with nothing written."""
    cfg = Config()
    worker = Worker(0, 0, [], None, 30, cfg, Logger(cfg))
    environ: dict[str, object] = {}

    def app(given: dict[str, object], start_response: Callable[..., object]) -> list[bytes]:
        environ.update(given)
        if raises:
            raise StopIteration
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    worker.wsgi = app
    server, client = socket.socketpair()
    with server, client, contextlib.closing(worker.tmp):
        client.sendall(b"GET /socket.io/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
        request = next(iter(RequestParser(cfg, server, ("127.0.0.1", 1))))
        with pytest.raises(StopIteration) if raises else contextlib.nullcontext():
            worker.handle_request("listener", request, server, ("127.0.0.1", 1))
        client.setblocking(False)
        answer = b""
        with contextlib.suppress(BlockingIOError):
            answer = client.recv(100)
    assert answer.startswith(b"HTTP/1.1 200 OK") == written
    assert environ["gunicorn.socket"] is server


@pytest.mark.parametrize(("offer", "deflate"), [({}, False), (DEFLATE, True)])
def test_simple_websocket_reads_only_through_recv(offer: dict[str, str], deflate: bool) -> None:
    """simple-websocket takes ``gunicorn.socket``, answers the handshake the environ's
    headers make (so the guard's removal of the compression offer is heard), reads only
    through ``recv`` until it returns nothing, and writes only through ``send``."""
    peer = Peer([frame(TEXT, b"4hi"), frame(TEXT, b"4ho")])
    environ = {**HANDSHAKE, **offer, "gunicorn.socket": peer}
    ws = simple_websocket.Server(environ, thread_class=RunNow, receive_bytes=777)
    assert (ws.mode, ws.input_buffer, peer.open) == ("gunicorn", ["4hi", "4ho"], False)
    assert [call for call in peer.calls if call[0] != "send"] == [("recv", 777)] * 3
    assert (b"permessage-deflate" in peer.sent) == deflate
