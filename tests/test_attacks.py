"""Hostile clients against a real server: each attack slows only the attacker.

Bounded in size and time, loopback only. Where a test measures, others' p99 is compared
with a quiet baseline measured in the same test (never a fixed time).
"""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator

import pytest

from webapp.testing import (
    Player,
    RawWebSocket,
    ServerProcess,
    percentile,
    rss_kb,
    session_cookie,
    timed_calls,
)

MB = 1 << 20
TOO_BIG = 1009
PROBE_SECONDS = 2.0
FLOOR_SECONDS = 0.010  # below this a p99 is noise on a shared 2-core machine


@pytest.fixture
def bystander(server: ServerProcess) -> Iterator[Player]:
    """Another player, who should not notice the attack."""
    player = Player(server.url, session_cookie(server.url))
    player.wait_for(lambda s: True)
    yield player
    player.close()


def p99_of_hints(player: Player) -> float:
    """The p99 of ``hint`` round trips over a short while."""
    return percentile(timed_calls(lambda: player.call("hint"), PROBE_SECONDS), 0.99)


def p99_of_health(url: str) -> float:
    """The p99 of /healthz over a short while."""

    def get() -> None:
        with urllib.request.urlopen(url + "/healthz", timeout=30) as reply:
            reply.read()

    return percentile(timed_calls(get, PROBE_SECONDS), 0.99)


def within_twice(quiet: float, during: float) -> bool:
    """Whether ``during`` is at most twice ``quiet`` (with a floor for tiny baselines)."""
    return during <= 2 * max(quiet, FLOOR_SECONDS)


def test_huge_frame_is_refused_from_its_header(server: ServerProcess) -> None:
    before = rss_kb(server.pids())
    attacker = RawWebSocket(server.port)
    assert attacker.status == 101
    attacker.sock.sendall(RawWebSocket.header(0x1, 8 << 30))  # announces 8 GB, sends none
    assert attacker.close_code() == TOO_BIG
    assert rss_kb(server.pids()) - before < 20 * 1024


def test_fragments_adding_up_past_the_limit_are_refused(server: ServerProcess) -> None:
    attacker = RawWebSocket(server.port)
    chunk = b"4" + b"x" * 999
    attacker.sock.sendall(RawWebSocket.header(0x1, len(chunk), fin=False) + chunk)
    for _ in range(9):  # 10 KB in all, over the 3 KB a message may take
        attacker.sock.sendall(RawWebSocket.header(0x0, len(chunk), fin=False) + chunk)
    assert attacker.close_code() == TOO_BIG


def test_a_message_within_the_limit_still_works(server: ServerProcess) -> None:
    client = RawWebSocket(server.port)
    opcode, payload = next(client.frames())
    assert opcode == 0x1 and payload.startswith(b"0{")  # Engine.IO's open packet
    client.send_text("40")  # Socket.IO's connect, refused for want of a session cookie
    opcode, payload = next(client.frames())
    assert opcode == 0x1 and payload.startswith(b"44") and b"no_session" in payload
    client.close()


def send_64_mb(port: int, codes: list[int | None]) -> None:
    """Send a whole 64 MB frame as fast as the server takes it; record the close code."""
    attacker = RawWebSocket(port)
    try:
        attacker.sock.sendall(RawWebSocket.header(0x1, 64 * MB))
        block = b"x" * MB
        for _ in range(64):
            attacker.sock.sendall(block)
    except OSError:
        pass  # refused before the payload was read: the server hung up
    codes.append(attacker.close_code())


def test_64_mb_frame_does_not_slow_other_players(server: ServerProcess, bystander: Player) -> None:
    quiet_hints, quiet_health = p99_of_hints(bystander), p99_of_health(server.url)
    codes: list[int | None] = []
    attack = threading.Thread(target=send_64_mb, args=(server.port, codes))
    attack.start()
    during_hints, during_health = p99_of_hints(bystander), p99_of_health(server.url)
    attack.join(60)
    assert codes in ([TOO_BIG], [None])  # refused at its header (or hung up on)
    assert within_twice(quiet_hints, during_hints), (quiet_hints, during_hints)
    assert within_twice(quiet_health, during_health), (quiet_health, during_health)
