"""The attacks below the Socket.IO events, for bench/attack.py: Engine.IO packets from one
address's many sockets, joined or not; empty websocket messages; long-polling.

  packets    256 joined sockets from one address (32 players, 8 tabs each), each sending
             Engine.IO upgrade packets (``5``, answered with a noop) at 80 a second, its
             own frame pace, for 15 s
  unjoined   up to 1,000 cookie-less sockets from one address that never join, each
             sending upgrade packets at 80 a second, reopened as they close, for 15 s
  empty      an upgrade, then one empty text frame, no cookie, on 4 threads for 5 s: the
             close codes, any ``HTTP/1.1 500``, the log's growth per connection
  polling    long-polling against the server (off by default); then, against a server of
             its own with ``TICTACTOE_POLLING=1`` and a bystander of its own, POSTs of 17
             packets and of 16 on 4 threads for 5 s: statuses, packets taken, the log

Each runs in bench/attack.py's child process (``at``: its ``Attacker``), from its own
loopback addresses.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from support.testing import (
    HOST,
    Player,
    RawWebSocket,
    ServerProcess,
    percentile,
    session_cookie,
    timed_calls,
)

UPGRADE = RawWebSocket.frame("5")
NOOP = b"\x81\x016"  # the server's text frame carrying Engine.IO's noop
CUT = b"\x03\xf0too many packets"  # close 1008's code and reason
EMPTY = RawWebSocket.header(0x1, 0)  # a text frame of no payload
PACE = 80  # each socket's packets a second: its frame pace at the default rate
TICK = 0.1  # seconds between sends, each of PACE * TICK packets


def log_size(at: Any) -> int:
    """The bytes of the server's log so far."""
    path = Path(at.data_dir) / "server.log"
    return path.stat().st_size if path.exists() else 0


def drain(raw: RawWebSocket, tally: Counter[str]) -> bool:
    """Read what the server sent without waiting: count its noops; whether it closed."""
    try:
        data = raw.sock.recv(1 << 16, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        tally["reset"] += 1
        return True
    tally["noops"] += data.count(NOOP)
    if CUT in data:
        tally["close 1008"] += 1
        return True
    if not data or b"\x88" in data[-40:]:
        tally["closed otherwise"] += 1
        return True
    return False


def push(raw: RawWebSocket, pending: dict[int, bytes], tally: Counter[str]) -> None:
    """Queue PACE * TICK more upgrade packets on ``raw`` (unless a second's worth waits
    already) and write what its socket takes now, whole frames kept in order."""
    if id(raw) not in pending:
        raw.sock.setblocking(False)  # never waits: a timeout would wait before each call
    waiting = pending.get(id(raw), b"")
    if len(waiting) < PACE * len(UPGRADE):
        waiting += UPGRADE * int(PACE * TICK)
    try:
        sent = raw.sock.send(waiting, socket.MSG_DONTWAIT)
    except BlockingIOError:
        sent = 0  # the server reads no more for now: the flood waits in its socket
    except OSError:
        sent = len(waiting)  # gone: the drain tells
    tally["sent"] += sent // len(UPGRADE)
    pending[id(raw)] = waiting[sent:]


def send_round(sockets: list[RawWebSocket], pending: dict[int, bytes], tally: Counter[str]) -> None:
    """One round of the flood: each socket sends its share and reads what came back;
    those the server cut are closed and dropped from ``sockets``."""
    for raw in list(sockets):
        push(raw, pending, tally)
        if drain(raw, tally):
            sockets.remove(raw)
            raw.close()


def flood(sockets: list[RawWebSocket], seconds: float, tally: Counter[str]) -> float:
    """Send upgrade packets at PACE a second from each of ``sockets`` until all are cut
    or ``seconds`` pass; drops the cut ones; returns the seconds until the last was cut."""
    started = time.monotonic()
    pending: dict[int, bytes] = {}
    while sockets and time.monotonic() < started + seconds:
        send_round(sockets, pending, tally)
        time.sleep(TICK)
    return time.monotonic() - started


def attack_packets(at: Any) -> dict[str, Any]:
    """Joined sockets of one address, each sending Engine.IO packets at its frame pace."""
    count, seconds = at.size(256, 32), at.size(15.0, 4.0)
    verdicts: Counter[str] = Counter()
    sockets = []
    for cookie in at.cookies(count // 8):
        for _ in range(8):
            raw, verdict = at.open(cookie, 0, timeout=0.5)
            verdicts[verdict] += 1
            if raw is not None and verdict == "joined":
                sockets.append(raw)
            elif raw is not None:
                raw.close()
    joined = len(sockets)
    tally: Counter[str] = Counter()
    took = flood(sockets, seconds, tally)
    for raw in sockets:
        raw.close()
    got = (
        f"{joined} of {count} sockets joined from 1 address, {tally['sent']:,} packets sent"
        f" ({PACE}/s each), {tally['noops']:,} answered; {tally['close 1008']} cut (close"
        f" 1008), {len(sockets)} still open after {took:.1f} s"
    )
    return {"verdicts": dict(verdicts), **tally, "open_at_end": len(sockets), "got": got}


def attack_unjoined(at: Any) -> dict[str, Any]:
    """Cookie-less sockets of one address that never join, flooding, reopened as closed."""
    count, seconds = at.size(1000, 100), at.size(15.0, 4.0)
    tally: Counter[str] = Counter()
    sockets: list[RawWebSocket] = []
    started = time.monotonic()
    pending: dict[int, bytes] = {}
    while time.monotonic() < started + seconds:
        for _ in range(min(count - len(sockets), 100)):  # reopen, a hundred a round at most
            try:
                raw = RawWebSocket(at.port, source=at.address(0), timeout=0.5)
            except OSError:
                tally["connect failed"] += 1
                continue
            tally[f"http {raw.status}"] += 1
            if raw.status == 101:
                sockets.append(raw)
            else:
                raw.close()
        send_round(sockets, pending, tally)
        time.sleep(TICK)
    for raw in sockets:
        raw.close()
    got = (
        f"{tally['http 101']:,} sockets opened from 1 address ({tally['http 429']:,} handshakes"
        f" refused 429), {tally['sent']:,} packets sent, {tally['noops']:,} answered;"
        f" {tally['close 1008']:,} cut (close 1008), {tally['closed otherwise']:,} closed"
        f" otherwise"
    )
    return {**tally, "got": got}


def empty_frames(at: Any, deadline: float, tally: Counter[str], lock: threading.Lock) -> None:
    """Connections that each send one empty text frame, one after another, until ``deadline``."""
    while time.monotonic() < deadline:
        try:
            raw = RawWebSocket(at.port, source=at.address(0), timeout=5)
        except OSError:
            with lock:
                tally["connect failed"] += 1
            continue
        answer, code = raw.head + raw.buffer, f"http {raw.status}"
        if raw.status == 101:
            with contextlib.suppress(OSError):
                raw.sock.sendall(EMPTY)
                while chunk := raw.sock.recv(65536):
                    answer += chunk
            code = "close 1007" if b"\x03\xefnot an Engine.IO packet" in answer else "other"
        raw.close()
        with lock:
            tally[code] += 1
            tally["connections"] += 1
            tally["500 written"] += b"HTTP/1.1 500" in answer


def attack_empty(at: Any) -> dict[str, Any]:
    """An upgrade, then one empty text frame, no cookie, on 4 threads."""
    seconds = at.size(5.0, 2.0)
    before = log_size(at)
    tally: Counter[str] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(target=empty_frames, args=(at, deadline, tally, lock)) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(1)  # the server's last lines
    grown = log_size(at) - before
    per = grown / max(1, tally["connections"])
    got = (
        f"{tally['connections']:,} connections in {seconds:g} s: {tally['close 1007']:,} closed"
        f" 1007, {tally['http 429']:,} refused 429, {tally['500 written']} with a 500 written;"
        f" log +{grown:,} B ({per:.0f} B a connection)"
    )
    return {**tally, "log_bytes": grown, "got": got}


def request(port: int, source: str, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One HTTP request from ``source``: the status and the body."""
    conn = http.client.HTTPConnection(HOST, port, timeout=10, source_address=(source, 0))
    try:
        conn.request(method, path, body=body or None)
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


def posting(
    port: int, source: str, packets: int, deadline: float, tally: Counter[str], lock: threading.Lock
) -> None:
    """Open a long-polling connection, then POST ``packets`` pongs a body until ``deadline``."""
    base = "/socket.io/?EIO=4&transport=polling"
    status, opened = request(port, source, "GET", base)
    if status != 200:
        with lock:
            tally[f"open {status}"] += 1
        return
    sid = json.loads(opened.decode()[1:])["sid"]
    body = b"\x1e".join([b"3"] * packets)
    while time.monotonic() < deadline:
        status, _ = request(port, source, "POST", f"{base}&sid={sid}", body)
        with lock:
            tally[f"{packets} a POST: {status}"] += 1
            tally["packets taken"] += packets if status == 200 else 0
        if status == 400 and packets <= 16:
            return  # the connection was closed


def attack_polling(at: Any) -> dict[str, Any]:
    """Long-polling against the server; then POSTs of 17 and 16 packets against a server
    of its own with long-polling on, a bystander of its own measured quiet and during."""
    refused = Counter(
        request(at.port, at.address(0), method, f"/socket.io/?EIO=4&transport=polling{sid}")[0]
        for method, sid in (("GET", ""), ("POST", "&sid=x")) * 10
    )
    seconds = at.size(5.0, 2.0)
    server = ServerProcess(
        Path(tempfile.mkdtemp(prefix="bench-polling-")), {"TICTACTOE_POLLING": "1"}
    )
    server.start()
    try:
        bystander = Player(server.url, session_cookie(server.url))
        bystander.wait_for(lambda state: True)
        ask = lambda: bystander.call("hint")  # noqa: E731
        quiet = percentile(timed_calls(ask, 3.0, pause=0.07), 0.99)
        before = server.log.stat().st_size
        tally: Counter[str] = Counter()
        lock = threading.Lock()
        deadline = time.monotonic() + seconds
        threads = [
            threading.Thread(
                target=posting,
                args=(server.port, at.address(n), packets, deadline, tally, lock),
            )
            for n, packets in enumerate((17, 17, 17, 16))
        ]
        for thread in threads:
            thread.start()
        during = percentile(timed_calls(ask, seconds, pause=0.07), 0.99)
        for thread in threads:
            thread.join()
        time.sleep(1)
        log = server.log.read_text(errors="replace")[before:]
        bystander.close()
    finally:
        server.stop()
    posts = sum(n for key, n in tally.items() if "a POST" in key)
    got = (
        f"off: {dict(refused)}; on: {', '.join(f'{n:,} {k}' for k, n in tally.items())};"
        f" log +{len(log):,} B ({len(log) / max(1, posts):.0f} B a POST),"
        f" {log.count('Traceback')} tracebacks; its bystander's p99 {quiet * 1000:.1f} ->"
        f" {during * 1000:.1f} ms"
    )
    return {
        "off": dict(refused),
        **tally,
        "quiet_ms": quiet * 1000,
        "during_ms": during * 1000,
        "got": got,
    }
