"""Hostile clients below the Socket.IO events: Engine.IO packets, long-polling, bad frames.

Against real server processes, bounded in size and time, loopback only. Each attack is
judged by what must hold (cut, refused, nothing in the log, the bystander answered),
never by a time compared with a quiet one: bench/attack.py measures that.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from support.testing import Player, RawWebSocket, ServerProcess, session_cookie

from webapp.server.limits.rates import QuietLog
from webapp.server.wire.polling import unreadable
from webapp.server.wire.websocket import WebSocketGuard

pytestmark = pytest.mark.attack  # real servers under hostile clients

PAUSE_SECONDS = 0.07  # between a bystander's calls: well under the 20 events/s limit
UPGRADE = RawWebSocket.frame("5")  # Engine.IO's upgrade packet: answered with a noop
TOO_MANY_PACKETS = 1008
UNREADABLE = 1007
UNJOINED_PACKETS = 8  # the setting's default


def outcome(raw: RawWebSocket, seconds: float) -> tuple[str, int]:
    """How the server ends ``raw`` within ``seconds`` ("close <code>", "hung up" or
    "open") and how many noops it answered meanwhile."""
    noops = 0
    raw.sock.settimeout(seconds)
    try:
        for opcode, payload in raw.frames():
            noops += opcode == 0x1 and payload == b"6"
            if opcode == 0x8:
                return f"close {int.from_bytes(payload[:2], 'big')}", noops
    except TimeoutError:
        return "open", noops
    except OSError:
        pass  # reset: the server hung up on what we were still sending
    return "hung up", noops


def asking(bystander: Player, stop: threading.Event, answers: list[bool]) -> None:
    """The bystander's hints, about 14 a second, until ``stop``; each answer's ``ok``
    (a call unanswered in 5 s raises, and ends the thread)."""
    while not stop.is_set():
        answers.append(bool(bystander.call("hint")["ok"]))
        time.sleep(PAUSE_SECONDS)


def while_answering(server: ServerProcess, attack: Callable[[], None]) -> tuple[list[bool], Player]:
    """Run ``attack`` while a bystander on 127.0.0.1 asks for hints; the answers."""
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda state: True)
    stop, answers = threading.Event(), []
    asker = threading.Thread(target=asking, args=(bystander, stop, answers))
    asker.start()
    try:
        attack()
    finally:
        stop.set()
        asker.join(10)
    return answers, bystander


def test_engineio_packets_from_many_sockets_of_one_address_are_cut(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # 64 joined sockets of 8 players from 127.0.0.2, each sending upgrade packets at 80 a
    # second, its own frame pace: 5,120 packets a second, which Engine.IO answered one by
    # one, never counted. The address's packets are one budget: its sockets are cut.
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
    cookies = [session_cookie(server.url) for _ in range(8)]
    sockets = [
        RawWebSocket.joined(server.port, cookie, source="127.0.0.2")
        for cookie in cookies
        for _ in range(8)
    ]
    ends: list[tuple[str, int]] = []

    def flood() -> None:
        started = time.monotonic()
        while time.monotonic() < started + 5:
            for raw in sockets:
                with contextlib.suppress(OSError):
                    raw.sock.sendall(UPGRADE * 8)
            time.sleep(0.1)
        ends.extend(outcome(raw, 3) for raw in sockets)

    answers, bystander = while_answering(server, flood)
    for raw in sockets:
        raw.close()
    cut = [end for end, _ in ends if end in (f"close {TOO_MANY_PACKETS}", "hung up")]
    assert len(cut) >= len(sockets) // 2, ends
    assert answers and all(answers) and bystander.connected
    bystander.close()


def test_unjoined_sockets_flooding_engineio_packets_are_cut(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Cookie-less sockets from 127.0.0.3 that never join, each sending 40 upgrade packets,
    # reopened as they close: each used to be answered until its handshake deadline.
    server = server_factory()
    ends: list[tuple[str, int]] = []
    refused = 0

    def flood() -> None:
        nonlocal refused
        started = time.monotonic()
        while time.monotonic() < started + 4 and len(ends) < 200:
            raw = RawWebSocket(server.port, source="127.0.0.3")
            if raw.status != 101:
                refused += raw.status == 429
                raw.close()
                continue
            with contextlib.suppress(OSError):
                raw.sock.sendall(UPGRADE * 40)
            ends.append(outcome(raw, 5))
            raw.close()

    answers, bystander = while_answering(server, flood)
    assert ends, refused
    assert all(end in (f"close {TOO_MANY_PACKETS}", "hung up") for end, _ in ends), ends
    assert max(noops for _, noops in ends) <= UNJOINED_PACKETS, ends
    assert answers and all(answers) and bystander.connected
    bystander.close()


def test_an_empty_text_frame_is_closed_without_a_traceback_or_a_500(
    server: ServerProcess,
) -> None:
    # Engine.IO raised on an empty packet: gunicorn logged 3.5 KB of traceback for each
    # connection and wrote "HTTP/1.1 500" onto the websocket.
    before = len(server.log_tail(1 << 24))
    received = b""
    for text in [b""] * 30 + [b"x", b"b!!!", b"\xd9\xa3", b"0", b"7"]:
        raw = RawWebSocket(server.port)
        raw.sock.sendall(RawWebSocket.header(0x1, len(text)) + text)
        raw.sock.settimeout(5)
        with contextlib.suppress(OSError):
            while chunk := raw.sock.recv(65536):
                received += chunk
        raw.close()
        assert UNREADABLE.to_bytes(2, "big") in received[-40:], (text, received[-200:])
    time.sleep(0.5)  # the server's last lines
    grown = server.log_tail(1 << 24)[before:]
    assert b"HTTP/1.1 500" not in received
    assert "Traceback" not in grown and "Error handling request" not in grown
    assert len(grown.encode()) <= 300 * 35, grown


def http(url: str, body: bytes | None = None) -> tuple[int, bytes]:
    """GET (or POST ``body`` to) ``url``: the status and the body."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_long_polling_is_refused_unless_it_is_turned_on(server: ServerProcess) -> None:
    polling = server.url + "/socket.io/?EIO=4&transport=polling"
    assert http(polling)[0] == 400
    assert http(polling + "&sid=abc", b"40")[0] == 400
    assert RawWebSocket(server.port).status == 101  # the websocket is served


@pytest.mark.parametrize("count", [17, 100])
def test_a_long_polling_body_of_too_many_packets_is_a_400(
    server_factory: Callable[..., ServerProcess], count: int
) -> None:
    # Engine.IO decodes 16 packets of one body at most and raised past that: a traceback
    # in the log for each POST, answered 200 "OK".
    server = server_factory(TICTACTOE_POLLING="1")
    polling = server.url + "/socket.io/?EIO=4&transport=polling"
    status, opened = http(polling)
    assert status == 200
    sid = json.loads(opened.decode()[1:])["sid"]
    before = len(server.log_tail(1 << 24))
    assert http(f"{polling}&sid={sid}", b"\x1e".join([b"3"] * 16)) == (200, b"OK")
    for _ in range(20):
        status, body = http(f"{polling}&sid={sid}", b"\x1e".join([b"3"] * count))
        assert status == 400 and b"too many packets" in body
    assert http(f"{polling}&sid={sid}", b"3\x1e\x1e3")[0] == 400  # an empty packet
    grown = server.log_tail(1 << 24)[before:]
    assert "Traceback" not in grown and "error" not in grown.lower()
    assert len(grown) < 300 * 25, grown


# --- the guards themselves, in-process ---------------------------------------------------------


def test_an_error_after_the_upgrade_closes_the_websocket_with_1011_not_a_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ours, theirs = socket.socketpair()

    def app(environ: dict[str, Any], start_response: object) -> list[bytes]:
        environ["gunicorn.socket"].send(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
        raise ValueError("Invalid empty packet received")

    log = QuietLog(logging.getLogger("test.transport"))
    guard = WebSocketGuard(app, 1024, 5.0, log=log)
    environ = {"gunicorn.socket": ours, "HTTP_UPGRADE": "websocket", "REMOTE_ADDR": "127.0.0.9"}
    with caplog.at_level(logging.WARNING), pytest.raises(StopIteration):
        guard(environ, lambda *args: None)
    theirs.settimeout(5)
    sent = theirs.recv(4096)
    assert sent.endswith(b"\x88\x0e\x03\xf3server error") and b"500" not in sent
    assert caplog.text.count("\n") == 1 and "ValueError: Invalid empty packet" in caplog.text
    ours.close()
    theirs.close()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"\x1e".join([b"3"] * 16), ""),
        (b"\x1e".join([b"3"] * 17), "too many packets: 17 in one body, over 16"),
        (b"3\x1e\x1e3", "not an Engine.IO packet"),
        (b"x", "not an Engine.IO packet"),
        (b"4\xff", "not UTF-8"),
    ],
)
def test_a_long_polling_body_is_read_packet_by_packet(body: bytes, problem: str) -> None:
    assert unreadable(body.split(b"\x1e")) == problem


def test_long_polling_packets_are_paid_from_the_address_budget(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # POSTs of 16 packets, the most a body may hold, were never counted: 190,000 packets
    # in 20 s. Now they are paid from the address's 400 a second (bursts of 800), and
    # past 2 s of debt a request is refused 429.
    server = server_factory(TICTACTOE_POLLING="1")
    polling = server.url + "/socket.io/?EIO=4&transport=polling"
    sid = json.loads(http(polling)[1].decode()[1:])["sid"]
    body, taken, statuses = b"\x1e".join([b"3"] * 16), 0, []
    started = time.monotonic()
    while 429 not in statuses and len(statuses) < 1000:
        statuses.append(http(f"{polling}&sid={sid}", body)[0])
        taken += 16 if statuses[-1] == 200 else 0
    elapsed = time.monotonic() - started
    assert 429 in statuses and set(statuses) == {200, 429}, statuses
    assert taken <= 800 + 400 * elapsed + 800 + 16, (taken, elapsed)
