"""Hostile clients at full size: what each attack costs everyone else, and what it gets.

tests/test_attacks.py and tests/test_caps.py run these attacks small, as tests; this
runs them at full size against one real server and prints a row per attack: a bystander
player's ``hint`` p99 (about 14 calls a second, under the rate limit) and the p99 of
/healthz, quiet and then during the attack; the server's RSS (all its processes) before
and at its peak; and what the attacker got.

  frames     a 100 MB frame sent whole, a frame header announcing 8 GB, a 64 MB frame
  malformed  10 s of ``42[broken`` as fast as one player can send, reconnecting whenever
             cut off; then 5 s of request lines that are not HTTP; how much the server's
             log grew each time (first, as the log says each kind of trouble once a minute)
  flood      10 s of ``42["hint",{}]`` the same way
  reserved   events named connect, disconnect, connect_error and *
  sockets    one player opening 2,000 sockets; one address opening 300 players' sockets
  slow       1,000 connections sending their request's head a byte a second
  disk       cookie-less visitors (GET / then connect) from one address, from 100
             addresses, then visitors who each make a move: rows stored
  spread     256 players' sockets from one address, each sending 19 events a second
             (just under the rate)
  deleted    100 players, each with two sockets and a seat in a friend's room, delete
             everything, then send a move and room_sit from both old sockets at once
             and connect again with the kept cookie: what they were told and stored
  odds       one connection asking for the odds of 20 new hard rule sets one at a time,
             then of 10 refused ones (too many HP states), each twice: round trips; then
             16 connections, each from its own address, asking for new ones non-stop
  rooms      one address's 30 new players each opening 5 rooms with a friend and one on
             one device; then one room from another address (bench/attack_caps.py)
  pages      a 500-game player's /history/games.json asked for by 4 threads (attack_pages.py)
  packets, unjoined, empty, polling: below the events (bench/attack_wire.py)
  paid       bench/attack_paid.py: 64 fresh sockets at a time from one address asking for
             the lab's costliest page, then hanging up: another address's cached odds,
             and the server's CPU once they have gone

One server per run on a free loopback port with its own temporary data dir (AI delay 0,
every other setting its default): this checkout's, or ``--server-command``'s (another
build, e.g. the previous release). Each attacker is a child process with a hard time
limit; a server whose RSS passes 2 GB is killed, one that stops answering is reported
so, and either is started again for the next attack. Attackers connect from other
loopback addresses (127.1x.y.z) than the bystander (127.0.0.1), as other clients would.
A failed probe counts as a 5 s round trip.

    .venv/bin/python bench/attack.py
    .venv/bin/python bench/attack.py --only flood --small
    .venv/bin/python bench/attack.py --json \\
        --server-command '/tmp/rel010/.venv/bin/tictactoe serve --host 127.0.0.1 --port {port}'
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attack_caps import attack_rooms
from players import ONE_ADDRESS_FOR_ALL, Server

from webapp import __version__

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from attack_deleted import attack_deleted  # after tests/support is on the path
from attack_pages import attack_pages
from attack_paid import attack_paid
from attack_wire import attack_empty, attack_packets, attack_polling, attack_unjoined
from support.testing import (
    HOST,
    Player,
    RawWebSocket,
    hard_rule_sets,
    healthy,
    percentile,
    rss_kb,
)

MB = 1 << 20
QUIET_SECONDS = 5.0
HINT_PAUSE = 0.07  # between the bystander's hints: about 14 a second, under the 20/s limit
HEALTH_PAUSE = 0.05
CALL_TIMEOUT = 5.0  # a probe that fails counts as this long
RSS_LIMIT_KB = 2 * 1024 * 1024  # the server is killed past 2 GB
SETTLE_SECONDS = 10.0  # at most, waiting for the server to go idle before an attack
ANSWER_SECONDS = 10.0  # how long a probe of the server's health may take after an attack
CLOSE = 0x8
TEXT = 0x1
# players.Server turns the limits per client address off (its players all come from
# loopback); here every setting keeps its default (an empty variable means the default).
DEFAULTS_ENV = {variable: "" for variable in ONE_ADDRESS_FOR_ALL}
RESERVED = ("connect", "disconnect", "connect_error", "*")
_RELEASE = re.compile(rb'<meta name="release" content="([^"]*)"')


# --- the attacker's tools (run in a child process) ---------------------------------------


class Raw(RawWebSocket):
    """support.testing's RawWebSocket that keeps the texts a join passed over."""

    def __init__(self, port: int, **options: Any) -> None:
        super().__init__(port, **options)
        self.backlog: list[str] = []  # texts that came before the answer to the connect


def read_until(raw: Raw, want: Callable[[str], bool], seconds: float) -> tuple[str, str]:
    """("text", t) for the first text ``want`` takes; ("closed", how) or ("timeout", "").

    The texts ``join`` passed over are looked at first, once. The socket's timeout is
    left as it was.
    """
    while raw.backlog:
        if want(text := raw.backlog.pop(0)):
            return "text", text
    deadline = time.monotonic() + seconds
    previous = raw.sock.gettimeout()
    try:
        while (left := deadline - time.monotonic()) > 0:
            raw.sock.settimeout(left)
            for opcode, payload in raw.frames():
                if opcode == CLOSE:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                    return "closed", f"close {code}" if code else "close (no code)"
                if opcode == TEXT and want(text := payload.decode(errors="replace")):
                    return "text", text
                raw.sock.settimeout(max(0.001, deadline - time.monotonic()))
            return "closed", "hung up"
    except TimeoutError:
        pass
    except OSError as err:
        return "closed", f"ended ({type(err).__name__})"
    finally:
        with contextlib.suppress(OSError):
            raw.sock.settimeout(previous)
    return "timeout", ""


def join(raw: Raw, release: str, seconds: float = 5) -> str:
    """Socket.IO's connect: "joined", the refusal's code, or how the connection ended."""
    if raw.status != 101:
        return f"http {raw.status}"
    raw.send_text("40" + json.dumps({"release": release}))

    def answer(text: str) -> bool:
        # The first state comes from the connect handler, before the answer itself.
        if text.startswith("40") or text.startswith("44"):
            return True
        raw.backlog.append(text)
        return False

    kind, text = read_until(raw, answer, seconds)
    if kind != "text":
        return kind if kind == "timeout" else f"closed ({text})"
    if text.startswith("40"):
        return "joined"
    with contextlib.suppress(ValueError, AttributeError):
        return str((json.loads(text[2:]).get("data") or {}).get("code") or "refused")
    return "refused"


def closed_by_server(raw: Raw) -> bool:
    """Whether the server has closed ``raw`` (a close frame, or the connection gone)."""
    return read_until(raw, lambda t: False, 0.001)[0] == "closed"


def get_page(port: int, source: str, cookie: str = "") -> tuple[int, str, str]:
    """GET / from ``source``: the status, the cookie to send back (or ""), the page's release."""
    conn = http.client.HTTPConnection(HOST, port, timeout=CALL_TIMEOUT, source_address=(source, 0))
    try:
        conn.request("GET", "/", headers={"Cookie": cookie} if cookie else {})
        reply = conn.getresponse()
        body = reply.read()
        given = reply.headers.get_all("Set-Cookie") or []
    finally:
        conn.close()
    found = _RELEASE.search(body)
    cookies = "; ".join(header.split(";", 1)[0].strip() for header in given)
    return reply.status, cookies or cookie, found.group(1).decode() if found else ""


def count_rows(data_dir: Path) -> tuple[int, int]:
    """Rows in the SQLite store's matches table, and the database's size in bytes."""
    path = data_dir / "matches.sqlite3"
    if not path.exists():
        return 0, 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT count(*) FROM matches").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        page = db.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.Error:
        return 0, 0
    finally:
        db.close()
    return int(rows), int(pages) * int(page)


@dataclass
class Attacker:
    """One attack's child process: the server's port, the size, its own loopback addresses."""

    port: int
    full: bool
    data_dir: Path
    slot: int
    release: str = __version__

    def report(self, result: dict[str, Any]) -> None:
        """Tell the parent what the attack got so far (the last line counts)."""
        print(json.dumps(result), flush=True)

    def size(self, full: Any, small: Any) -> Any:
        """The full size, or the one for ``--small``."""
        return full if self.full else small

    def address(self, index: int) -> str:
        """This attack's ``index``-th client address: 127.(10+slot).x.y."""
        return f"127.{10 + self.slot}.{index // 250}.{index % 250 + 1}"

    def cookies(self, count: int, *, first: int = 1, per_address: int = 25) -> list[str]:
        """``count`` players' cookies, gathered from as many addresses as the server needs."""
        found = []
        for index in range(count):
            status, cookie, release = get_page(
                self.port, self.address(first + index // per_address)
            )
            if status != 200:
                raise RuntimeError(f"GET / answered {status} while gathering cookies")
            self.release = release or self.release
            found.append(cookie)
        return found

    def open(self, cookie: str, source: int, *, timeout: float = 10) -> tuple[Raw | None, str]:
        """A socket from address ``source`` joined as ``cookie``'s player: (it, the verdict)."""
        try:
            raw = Raw(self.port, cookie=cookie, source=self.address(source), timeout=timeout)
        except OSError as err:
            return None, f"connect: {type(err).__name__}"
        try:
            return raw, join(raw, self.release)
        except OSError as err:
            raw.close()
            return None, f"join: {type(err).__name__}"


def counts(tally: dict[str, int]) -> str:
    """A tally as "1,992 too_many_sockets, 3 timeout", or "none"."""
    return ", ".join(f"{count:,} {name}" for name, count in tally.items()) or "none"


def mb(count: float) -> str:
    """Bytes as B, KB, MB or GB."""
    for unit, size in (("GB", 1 << 30), ("MB", MB), ("KB", 1024)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count:g} B"


def huge_frame(at: Attacker, length: int, whole: bool, wait: float) -> dict[str, Any]:
    """One frame of ``length`` bytes: its header, and its payload if ``whole``; the answer."""
    label = f"{mb(length)} {'frame' if whole else 'header'}"
    started, sent, error = time.monotonic(), 0, ""
    try:
        raw = Raw(at.port, source=at.address(0), timeout=wait)
    except OSError as err:
        answer = f"no websocket ({type(err).__name__})"
        seconds = round(time.monotonic() - started, 2)
        return {"frame": label, "answer": answer, "bytes_sent": 0, "seconds": seconds}
    try:
        raw.sock.sendall(RawWebSocket.header(0x1, length))
        block = b"x" * MB
        while whole and sent < length:
            raw.sock.sendall(block[: min(MB, length - sent)])
            sent += min(MB, length - sent)
    except OSError as err:
        error = type(err).__name__
    kind, answer = read_until(raw, lambda t: False, wait)
    raw.close()
    if kind == "timeout":
        answer = f"no answer in {wait:g} s"
    return {
        "frame": label,
        "answer": answer,
        "bytes_sent": sent,
        "send_error": error,
        "seconds": round(time.monotonic() - started, 2),
    }


def frames_got(results: list[dict[str, Any]]) -> str:
    """What the server answered to each frame."""
    return "; ".join(
        f"{r['frame']}: {r['answer']} after {r['seconds']:.1f} s"
        + (f" ({mb(r['bytes_sent'])} sent)" if "frame" in r["frame"] else "")
        for r in results
    )


def attack_frames(at: Attacker) -> dict[str, Any]:
    """Frames far over the limit, sent whole or only announced, again and again for a while."""
    sizes = at.size(
        [(100 * MB, True), (8 << 30, False), (64 * MB, True)],
        [(10 * MB, True), (8 << 30, False), (6 * MB, True)],
    )
    wait, seconds = at.size(10.0, 5.0), at.size(8.0, 3.0)
    first: list[dict[str, Any]] = []
    started = time.monotonic()
    for length, whole in sizes:
        first.append(huge_frame(at, length, whole, wait))
        at.report({"frames": first, "got": frames_got(first)})  # in case time runs out
    rounds = [first]
    while time.monotonic() < started + seconds:
        rounds.append([huge_frame(at, length, whole, wait) for length, whole in sizes])
    same = all([r["answer"] for r in one] == [r["answer"] for r in first] for one in rounds)
    got = frames_got(first)
    if len(rounds) > 1:
        got += f" ({len(rounds):,} rounds{', all alike' if same else ''})"
    return {"frames": first, "rounds": len(rounds), "all_alike": same, "got": got}


def reconnecting_flood(at: Attacker, text: str) -> dict[str, Any]:
    """Send ``text`` frames as fast as the server takes them, reconnecting when cut off."""
    seconds = at.size(10.0, 3.0)
    cookie = at.cookies(1)[0]
    batch = RawWebSocket.frame(text) * 500
    tally: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        raw, verdict = at.open(cookie, 0, timeout=2)
        tally[verdict] += 1
        if raw is None or verdict != "joined":
            if raw is not None:
                raw.close()
            time.sleep(0.05)
            continue
        try:
            while time.monotonic() < deadline:
                raw.sock.sendall(batch)
                tally["sent"] += 500
            tally["still connected at the end"] += 1
        except TimeoutError:
            tally["stalled (the server stopped reading)"] += 1
        except OSError:
            tally["cut"] += 1
        finally:
            raw.close()
        time.sleep(0.05)
    others = {k: v for k, v in tally.items() if k not in ("sent", "joined", "cut", "cooldown")}
    got = (
        f"{tally['sent']:,} sent in {seconds:g} s; joined {tally['joined']}, cut {tally['cut']},"
        f" cooldown refusals {tally['cooldown']}"
    )
    got += "".join(f", {k} {v}" for k, v in others.items())
    return {"tally": dict(tally), "got": got}


def attack_flood(at: Attacker) -> dict[str, Any]:
    """Events as fast as one player can send them."""
    return reconnecting_flood(at, '42["hint",{}]')


def attack_malformed(at: Attacker) -> dict[str, Any]:
    """Unreadable packets as fast as one player can send them; then bad request lines."""
    log = at.data_dir / "server.log"
    before = log.stat().st_size
    packets = reconnecting_flood(at, "42[broken")
    packets["log_bytes_added"] = log.stat().st_size - before
    at.report({**packets, "got": f"{packets['got']}; log +{mb(packets['log_bytes_added'])}"})
    lines = bad_request_lines(at, at.size(5.0, 2.0))
    lines["log_bytes_added"] = log.stat().st_size - before - packets["log_bytes_added"]
    got = (
        f"{packets['got']}; log +{mb(packets['log_bytes_added'])}. Then {lines['sent']:,}"
        f" request lines of 8 KB that are not HTTP, in {lines['seconds']:g} s:"
        f" log +{mb(lines['log_bytes_added'])}"
    )
    return {"packets": packets, "request_lines": lines, "got": got}


def bad_request_lines(at: Attacker, seconds: float) -> dict[str, Any]:
    """Connections that each send one 8 KB request line that is not HTTP, one after another."""
    line = b"X" * 8000 + b"\r\n\r\n"  # under gevent's 8 KB limit on a request line
    sent = failed = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(
                (HOST, at.port), timeout=2, source_address=(at.address(2), 0)
            ) as conn:
                conn.sendall(line)
                conn.recv(100)  # the server's answer, or its hanging up
            sent += 1
        except OSError:
            failed += 1
    return {"sent": sent, "failed": failed, "seconds": seconds}


def answer_to(raw: Raw, ack: int, seconds: float) -> str:
    """What the server did about event ``ack``: its ack (the error code), states, a close."""
    pushed: list[str] = []

    def done(text: str) -> bool:
        if text.startswith("42"):
            pushed.append(text[4:].split('"', 1)[0])  # the pushed event's name
        return text.startswith(f"43{ack}[")

    kind, text = read_until(raw, done, seconds)
    if kind == "text":
        found = re.search(r'"code":"([a-z_]+)"', text)
        bare = text[2 + len(str(ack)) :][:60]
        answer = found[1] if found else ("ok" if '"ok":true' in text else f"ack {bare}")
    else:
        answer = "no answer" if kind == "timeout" else f"connection {text}"
    return answer + "".join(f" + {name} pushed" for name in pushed)


def attack_reserved(at: Attacker) -> dict[str, Any]:
    """Events named as Socket.IO's own; then the same again, under the rate, for a while."""
    raw, verdict = at.open(at.cookies(1)[0], 0)
    if raw is None or verdict != "joined":
        return {"got": f"could not join: {verdict}"}
    read_until(raw, lambda t: t.startswith('42["state"'), 5)
    answers, ack, tally = {}, 0, Counter[str]()
    for name in RESERVED:
        ack += 1
        raw.send_text(f"42{ack}" + json.dumps([name, {}]))
        answers[name] = answer_to(raw, ack, 2.0)
    deadline = time.monotonic() + at.size(4.0, 2.0)
    with contextlib.suppress(OSError):  # the server hung up: the hint below says so
        while time.monotonic() < deadline:
            for name in (*RESERVED, "hint"):
                ack += 1
                raw.send_text(f"42{ack}" + json.dumps([name, {}]))
                tally[f"{name}: {answer_to(raw, ack, 1.0)}"] += 1
                time.sleep(0.08)
        ack += 1
        raw.send_text(f"42{ack}" + json.dumps(["hint", {}]))
    after = answer_to(raw, ack, 2.0)
    raw.close()
    grouped: dict[str, list[str]] = {}
    for name, answer in answers.items():
        grouped.setdefault(answer, []).append(name)
    got = "; ".join(f"{', '.join(names)}: {answer}" for answer, names in grouped.items())
    got += f"; then {sum(tally.values())} more, with hints between: a hint at the end {after}"
    return {"answers": answers, "repeated": dict(tally), "hint_after": after, "got": got}


def attack_sockets(at: Attacker) -> dict[str, Any]:
    """One player opening many sockets; then many players' sockets from one address."""
    count, hold = at.size(2000, 200), at.size(12.0, 11.0)
    cookie = at.cookies(1)[0]
    mine: list[tuple[Raw, str]] = []
    started = time.monotonic()
    one_player: Counter[str] = Counter()
    for _ in range(count):
        raw, verdict = at.open(cookie, 0)
        one_player[verdict] += 1
        if raw is not None:
            mine.append((raw, verdict))
    opened_in = time.monotonic() - started
    players = at.cookies(300, first=10)
    one_address: Counter[str] = Counter()
    for cookie in players:
        raw, verdict = at.open(cookie, 1)
        one_address[verdict] += 1
        if raw is not None:
            mine.append((raw, verdict))
    time.sleep(hold)
    closed: Counter[str] = Counter()
    for raw, verdict in mine:
        if closed_by_server(raw):
            closed[verdict] += 1
        raw.close()
    refused = {k: v for k, v in one_player.items() if k != "joined"}
    refused_address = {k: v for k, v in one_address.items() if k != "joined"}
    got = (
        f"1 player: {one_player['joined']:,} of {count:,} joined, refused {counts(refused)}"
        f" (in {opened_in:.0f} s); 1 address: {one_address['joined']} of {len(players)} players"
        f" joined, refused {counts(refused_address)}; closed by the server within"
        f" {hold:g} s: {counts(closed)}"
    )
    return {
        "one_player": dict(one_player),
        "one_address": dict(one_address),
        "closed_by_server": dict(closed),
        "got": got,
    }


def attack_slow(at: Attacker) -> dict[str, Any]:
    """Connections that send their request's head a byte a second; is the page served?"""
    count, limit = at.size(1000, 100), at.size(20.0, 14.0)
    cookie = at.cookies(1, first=5)[0]
    opened: list[tuple[socket.socket, float]] = []
    failed = 0
    for _ in range(count):
        try:
            conn = socket.create_connection(
                (HOST, at.port), timeout=5, source_address=(at.address(0), 0)
            )
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        except OSError:
            failed += 1
            continue
        conn.setblocking(False)
        opened.append((conn, time.monotonic()))
    ended: dict[int, float] = {}
    answered_with_data = 0
    page: list[float] = []
    page_failures = 0
    started = time.monotonic()
    next_byte = started + 1
    while time.monotonic() < started + limit and len(ended) < len(opened):
        now = time.monotonic()
        for index, (conn, since) in enumerate(opened):
            if index in ended:
                continue
            try:
                if now >= next_byte:
                    conn.send(b"X")
                data = conn.recv(4096)
                answered_with_data += bool(data)
                ended[index] = now - since
            except BlockingIOError:
                pass
            except OSError:
                ended[index] = now - since
        if now >= next_byte:
            next_byte += 1
        begun = time.perf_counter()
        try:
            status = get_page(at.port, at.address(1), cookie)[0]
            page.append(time.perf_counter() - begun)
            page_failures += status != 200
        except OSError:
            page.append(CALL_TIMEOUT)
            page_failures += 1
        time.sleep(max(0.0, 0.5 - (time.perf_counter() - begun)))
    for conn, _ in opened:
        conn.close()
    times = sorted(ended.values())
    still = len(opened) - len(ended)
    closed_text = (
        f"{len(ended):,} closed by the server after {times[0]:.1f}-{times[-1]:.1f} s"
        if times
        else "none closed by the server"
    )
    got = (
        f"{len(opened):,} opened, {closed_text}, {still:,} still open at {limit:g} s;"
        f" GET / answered {len(page) - page_failures}/{len(page)}"
        f" (p99 {percentile(page, 0.99) * 1000:.0f} ms)"
    )
    return {
        "opened": len(opened),
        "open_failed": failed,
        "closed_by_server": len(ended),
        "closed_with_an_answer": answered_with_data,
        "closed_after_s": [round(times[0], 2), round(times[-1], 2)] if times else None,
        "still_open": still,
        "page_tries": len(page),
        "page_failures": page_failures,
        "page_p99_ms": round(percentile(page, 0.99) * 1000, 1),
        "got": got,
    }


def human_turn(text: str) -> bool:
    """Whether ``text`` is a state in which the human is to move."""
    return text.startswith('42["state"') and '"turn":"human"' in text


def visit(at: Attacker, source: int, act: bool) -> tuple[int, str, bool]:
    """A cookie-less visitor: GET /, connect with what it got, maybe move; what it got."""
    try:
        status, cookie, _ = get_page(at.port, at.address(source))
    except OSError as err:
        return 0, f"GET: {type(err).__name__}", False
    raw, verdict = at.open(cookie, source, timeout=CALL_TIMEOUT)
    moved = False
    if raw is not None and verdict == "joined" and act:
        kind, text = read_until(raw, human_turn, CALL_TIMEOUT)
        if kind == "text":
            board = json.loads(text[2:])[1]["board"]
            raw.send_text("421" + json.dumps(["move", {"cell": board.index(".")}]))
            moved = answer_to(raw, 1, CALL_TIMEOUT).startswith("ok")
    if raw is not None:
        raw.close()
    return status, verdict, moved


def visitors(at: Attacker, sources: list[int], *, act: bool = False) -> dict[str, Any]:
    """One visitor from each of ``sources`` (8 at a time); what they got, rows stored."""
    before = count_rows(at.data_dir)
    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(lambda source: visit(at, source, act), sources))
    after = count_rows(at.data_dir)
    rows = after[0] - before[0]
    return {
        "visitors": len(sources),
        "addresses": len(set(sources)),
        "pages": dict(Counter(str(status) for status, _, _ in done)),
        "connects": dict(Counter(verdict for _, verdict, _ in done)),
        "moves": sum(moved for _, _, moved in done),
        "rows_added": rows,
        "db_bytes_added": after[1] - before[1],
        "bytes_per_row": round((after[1] - before[1]) / rows) if rows > 0 else None,
    }


def attack_disk(at: Attacker) -> dict[str, Any]:
    """Cookie-less visitors from one address and from many; then visitors who act."""
    count = at.size(1000, 200)
    one = visitors(at, [0] * count)
    many = visitors(at, [1 + index // 10 for index in range(count)])
    acting = visitors(at, [1000 + index // 10 for index in range(count)], act=True)
    per_row = f", {acting['bytes_per_row']} B/row" if acting["bytes_per_row"] else ""
    got = (
        f"1 address: {one['pages'].get('200', 0):,} of {count:,} got a page+cookie"
        f" ({one['pages'].get('429', 0):,} x 429), +{one['rows_added']:,} rows;"
        f" {many['addresses']} addresses: {many['connects'].get('joined', 0):,} joined,"
        f" +{many['rows_added']:,} rows; {acting['moves']:,} who moved:"
        f" +{acting['rows_added']:,} rows{per_row}"
    )
    return {"one_address": one, "many_addresses": many, "acting": acting, "got": got}


def attack_spread(at: Attacker) -> dict[str, Any]:
    """Many players' sockets from one address, each just under the rate limit."""
    count, seconds, rate = at.size(256, 32), at.size(10.0, 3.0), 19
    cookies = at.cookies(count)
    sockets: list[Raw] = []
    verdicts: Counter[str] = Counter()
    for cookie in cookies:
        raw, verdict = at.open(cookie, 0)
        verdicts[verdict] += 1
        if raw is not None and verdict == "joined":
            sockets.append(raw)
        elif raw is not None:
            raw.close()
    sent, cut, ack = 0, set(), 0
    started = time.monotonic()
    tick = started
    while time.monotonic() < started + seconds:
        ack += 1
        frame = RawWebSocket.frame(f"42{ack}" + '["hint",{}]')
        for index, raw in enumerate(sockets):
            if index in cut:
                continue
            try:
                raw.sock.sendall(frame)
                sent += 1
            except OSError:
                cut.add(index)
        tick += 1 / rate
        time.sleep(max(0.0, tick - time.monotonic()))
    answers: Counter[str] = Counter()
    drain_until = time.monotonic() + 5

    def count_ack(text: str) -> bool:
        if text.startswith("43"):
            answers["rate_limited" if "rate_limited" in text else "ok"] += 1
        return text.startswith(f"43{ack}[")

    for raw in sockets:
        read_until(raw, count_ack, max(0.05, drain_until - time.monotonic()))
        raw.close()
    got = (
        f"{len(sockets)} of {count} players' sockets joined from 1 address, {sent:,} events"
        f" ({rate}/s each) in {seconds:g} s, answered {answers['ok']:,} ok"
        f" + {answers['rate_limited']:,} rate_limited, {len(cut)} cut"
    )
    return {
        "verdicts": dict(verdicts),
        "sent": sent,
        "answers": dict(answers),
        "cut": len(cut),
        "got": got,
    }


def ask_odds(raw: Raw, ack: int, numbers: dict[str, int]) -> tuple[str, float]:
    """One ``odds`` event's answer (ok or the error code) and its round trip in ms."""
    started = time.perf_counter()
    raw.send_text(f"42{ack}" + json.dumps(["odds", {"rules": numbers}]))
    answer = answer_to(raw, ack, CALL_TIMEOUT)
    return answer, (time.perf_counter() - started) * 1000


def odds_costs(at: Attacker, sets: list[dict[str, int]]) -> dict[str, Any]:
    """Round trips of new rule sets, one at a time (spaced, within a connection's budget),
    and of refused ones: new, then asked again."""
    raw, verdict = at.open(at.cookies(1, first=40)[0], 40)
    if raw is None or verdict != "joined":
        return {"new_ms": [], "refused_ms": [], "again_ms": []}
    new_ms: list[float] = []
    refused_ms: list[float] = []
    again_ms: list[float] = []
    acks = itertools.count(1)
    for numbers in sets:
        answer, spent = ask_odds(raw, next(acks), numbers)
        if answer == "ok":
            new_ms.append(spent)
        time.sleep(0.4)
    too_many = {"max_hp": 1000, "start_ai_hp": 1000, "draw_ai_damage": 1}
    too_many |= {"human_win_ai_damage": 3, "ai_win_human_damage": 3, "draw_human_damage": 3}
    for index in range(10):
        numbers = {**too_many, "start_human_hp": 1000 - index}
        for times in (refused_ms, again_ms):
            answer, spent = ask_odds(raw, next(acks), numbers)
            if answer == "bad_setting":
                times.append(spent)
    raw.close()
    return {"new_ms": new_ms, "refused_ms": refused_ms, "again_ms": again_ms}


def attack_odds(at: Attacker) -> dict[str, Any]:
    """What odds cost one connection; then 16 connections asking for new ones non-stop."""
    count, seconds = at.size(16, 4), at.size(10.0, 3.0)
    sets = hard_rule_sets(
        at.size(1000, 200), ai_hps=range(1000, 500, -7), humans=range(200, 100, -1)
    )
    costs = odds_costs(at, sets[:20])
    cookies = at.cookies(count)
    shared = iter(sets[20:])
    lock = threading.Lock()
    answers: Counter[str] = Counter()
    deadline = time.monotonic() + seconds

    def asker(index: int, cookie: str) -> None:
        raw, verdict = at.open(cookie, 100 + index)
        if raw is None or verdict != "joined":
            answers[verdict] += 1
            return
        ack = 0
        while time.monotonic() < deadline:
            with lock:
                numbers = next(shared, None)
            if numbers is None:
                break
            ack += 1
            answer = ask_odds(raw, ack, numbers)[0].split(" + ")[0]
            with lock:
                answers[answer] += 1
            time.sleep(0.05)  # 20 events a second, the most a connection may send
        raw.close()

    threads = [threading.Thread(target=asker, args=pair) for pair in enumerate(cookies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    def spread(times: list[float]) -> str:
        if not times:
            return "none"
        return f"median {percentile(times, 0.5):.0f} ms, max {max(times):.0f} ms"

    got = (
        f"a new rule set: {spread(costs['new_ms'])}; a refused one:"
        f" {spread(costs['refused_ms'])}, again {spread(costs['again_ms'])};"
        f" {count} connections for {seconds:g} s: {counts(dict(answers))}"
    )
    return {**costs, "answers": dict(answers), "got": got}


@dataclass(frozen=True)
class Attack:
    """One attack: its name, what it does, its hard time limit, its child's function."""

    name: str
    what: str
    limit: float
    run: Callable[[Attacker], dict[str, Any]]


ATTACKS = (
    Attack("frames", "huge frames: 100 MB sent, 8 GB announced, 64 MB sent", 60, attack_frames),
    Attack("malformed", "unreadable packets 10 s, bad request lines 5 s", 50, attack_malformed),
    Attack("flood", "event flood, 10 s, one player", 40, attack_flood),
    Attack("reserved", "reserved event names", 30, attack_reserved),
    Attack("sockets", "2,000 sockets of 1 player; 300 players from 1 address", 90, attack_sockets),
    Attack("slow", "1,000 slowloris heads, a byte a second", 45, attack_slow),
    Attack("disk", "cookie-less visitors; visitors who move", 120, attack_disk),
    Attack("spread", "256 players from 1 address, each 19 events/s", 45, attack_spread),
    Attack("odds", "odds of new rule sets: one at a time, then 16 connections", 90, attack_odds),
    Attack("rooms", "rooms from 1 address: 30 players, 6 rooms each", 60, attack_rooms),
    Attack("pages", "a 500-game player's games.json, 4 threads, 10 s", 60, attack_pages),
    Attack("deleted", "deleted players' old tabs: a move, room_sit, reconnect", 90, attack_deleted),
    Attack("packets", "256 joined sockets of 1 address, Engine.IO packets", 120, attack_packets),
    Attack("unjoined", "1,000 unjoined sockets of 1 address, reopened", 60, attack_unjoined),
    Attack("empty", "an upgrade, then an empty text frame, 4 threads", 40, attack_empty),
    Attack("polling", "long-polling off; on: POSTs of 17 and 16 packets", 90, attack_polling),
    Attack("paid", "64 sockets at a time ask for the lab's last step, hang up", 120, attack_paid),
)
BY_NAME = {attack.name: attack for attack in ATTACKS}


def attacker_main(args: argparse.Namespace) -> int:
    """In the child: run one attack, print what it got as one JSON line."""
    slot = [attack.name for attack in ATTACKS].index(args.attacker)
    at = Attacker(args.port, not args.small, Path(args.data_dir), slot)
    at.report(BY_NAME[args.attacker].run(at))
    return 0


# --- the measurements (the parent) ----------------------------------------------------------


class Target:
    """The server under attack and its bystander; started again when an attack brings it down."""

    def __init__(self, command: str | None) -> None:
        self.command = command
        self.server = (
            Server.from_template("other", command, DEFAULTS_ENV)
            if command
            else Server.game(DEFAULTS_ENV)
        )
        self.bystander: Player | None = None
        self.restarts = 0

    def start(self) -> None:
        """Start the server."""
        self.server.start()

    def answers(self, seconds: float = ANSWER_SECONDS) -> bool:
        """Whether the server's process is alive and /healthz answers within ``seconds``."""
        process = self.server.process
        deadline = time.monotonic() + seconds
        while process is not None and process.poll() is None:
            if healthy(self.server.url):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        return False

    def ensure(self) -> None:
        """A server that answers, and a bystander connected to it."""
        if not self.answers():
            self.close_bystander()
            self.server.kill()
            self.server.start()
            self.restarts += 1
        if self.bystander is None or not self.bystander.connected:
            self.close_bystander()
            _, cookie, release = get_page(self.server.port, HOST)
            self.bystander = Player(self.server.url, cookie, release=release or __version__)
            self.bystander.wait_for(lambda state: True)

    def close_bystander(self) -> None:
        """Drop the bystander's connection."""
        if self.bystander is not None:
            with contextlib.suppress(Exception):
                self.bystander.close()
        self.bystander = None

    def rss_kb(self) -> int:
        """Resident memory of all the server's processes."""
        return rss_kb(self.server.pids())

    def log_bytes(self) -> int:
        """The size of the server's log so far."""
        return self.server.log.stat().st_size if self.server.log.exists() else 0

    def settle(self) -> None:
        """Wait until the server uses less than a tenth of a core (at most SETTLE_SECONDS)."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline:
            before = self.server.cpu_seconds()
            time.sleep(0.5)
            if self.server.cpu_seconds() - before < 0.05:
                return

    def stop(self) -> None:
        """Stop everything and remove the data dir."""
        self.close_bystander()
        self.server.stop()


class Probe(threading.Thread):
    """Calls ``call`` every ``pause`` seconds until stopped; keeps each round trip."""

    def __init__(self, call: Callable[[], object], pause: float, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.call, self.pause, self.stop = call, pause, stop
        self.durations: list[float] = []
        self.failures = 0

    def run(self) -> None:
        """Call until stopped; a failure counts as CALL_TIMEOUT."""
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                self.call()
                self.durations.append(time.perf_counter() - started)
            except Exception:
                self.durations.append(CALL_TIMEOUT)
                self.failures += 1
            self.stop.wait(self.pause)

    def summary(self) -> dict[str, Any]:
        """The p99 in ms, the number of calls and of failures."""
        p99 = percentile(self.durations, 0.99)
        return {
            "p50_ms": round(percentile(self.durations, 0.50) * 1000, 2),
            "p99_ms": round(p99 * 1000, 2),
            "calls": len(self.durations),
            "failed": self.failures,
        }


def probes(target: Target, running: Callable[[], bool]) -> dict[str, dict[str, Any]]:
    """The bystander's hints and /healthz, measured while ``running()`` holds."""
    bystander = target.bystander
    url = target.server.url

    def hint() -> None:
        if bystander is None:
            raise ConnectionError("no bystander")
        ack = bystander.call("hint")
        if not ack.get("ok"):
            raise RuntimeError(f"hint refused: {ack}")

    def health() -> None:
        with urllib.request.urlopen(url + "/healthz", timeout=CALL_TIMEOUT) as reply:
            reply.read()

    stop = threading.Event()
    threads = {"hint": Probe(hint, HINT_PAUSE, stop), "healthz": Probe(health, HEALTH_PAUSE, stop)}
    for thread in threads.values():
        thread.start()
    while running():
        time.sleep(0.05)
    stop.set()
    for thread in threads.values():
        thread.join(CALL_TIMEOUT + 1)
    return {name: thread.summary() for name, thread in threads.items()}


class Watch(threading.Thread):
    """Samples the server's RSS; kills the server past RSS_LIMIT_KB."""

    def __init__(self, target: Target) -> None:
        super().__init__(daemon=True)
        self.target, self.stop = target, threading.Event()
        self.peak_kb = target.rss_kb()
        self.killed = False

    def run(self) -> None:
        """Every 0.2 s until stopped."""
        while not self.stop.wait(0.2):
            rss = self.target.rss_kb()
            self.peak_kb = max(self.peak_kb, rss)
            if rss > RSS_LIMIT_KB and not self.killed:
                self.killed = True
                self.target.server.kill()


def measure(target: Target, attack: Attack, small: bool) -> dict[str, Any]:
    """One attack: quiet probes, the attacker (with the probes and the RSS watch), the result."""
    target.ensure()
    target.settle()
    quiet = probes(target, _for(QUIET_SECONDS))
    rss_before, log_before = target.rss_kb(), target.log_bytes()
    rows_before = count_rows(target.server.data_dir)[0]
    cpu_before = target.server.cpu_seconds()
    server = target.server
    command = [sys.executable, __file__, "--attacker", attack.name, "--port", str(server.port)]
    command += ["--data-dir", str(server.data_dir)] + (["--small"] if small else [])
    watch = Watch(target)
    watch.start()
    started = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    deadline = started + attack.limit

    def attacking() -> bool:
        return child.poll() is None and time.monotonic() < deadline and not watch.killed

    during = probes(target, attacking)
    seconds = time.monotonic() - started
    timed_out = child.poll() is None
    if timed_out:
        child.kill()
    output = child.communicate()[0]
    cpu = target.server.cpu_seconds() - cpu_before
    watch.stop.set()
    watch.join()
    try:
        result = json.loads(output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"got": f"the attacker failed (exit {child.returncode})"}
    if timed_out:
        result["got"] = f"stopped at its {attack.limit:g} s limit; " + result.get("got", "")
    outcome = "answering"
    if watch.killed:
        outcome = f"killed: RSS over {RSS_LIMIT_KB // 1024 // 1024} GB"
    elif not target.answers():
        outcome = f"unresponsive: no /healthz within {ANSWER_SECONDS:g} s after the attack"
    if outcome != "answering":
        result["got"] = f"**server {outcome}**; " + result.get("got", "")
    log_added = target.log_bytes() - log_before
    return {
        "attack": attack.name,
        "what": attack.what,
        "seconds": round(seconds, 1),
        "quiet": quiet,
        "during": during,
        "rss_before_mb": round(rss_before / 1024, 1),
        "rss_peak_mb": round(watch.peak_kb / 1024, 1),
        "rss_after_mb": round(target.rss_kb() / 1024, 1),
        "server_cpu_share": round(cpu / max(seconds, 0.001), 2),
        "log_bytes_added": log_added,
        "rows_before": rows_before,
        "rows_after": count_rows(target.server.data_dir)[0],
        "server": outcome,
        "result": result,
    }


def _for(seconds: float) -> Callable[[], bool]:
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() < deadline


# --- report ------------------------------------------------------------------------------


def ms(probe: dict[str, Any]) -> str:
    """A p99 in ms, with the failures if any."""
    value = probe["p99_ms"]
    text = f"{value:.1f}" if value < 10 else f"{value:.0f}"
    return text + (f" ({probe['failed']} of {probe['calls']} failed)" if probe["failed"] else "")


def table(rows: list[dict[str, Any]]) -> list[str]:
    """One line per attack, as a Markdown table."""
    lines = [
        "| attack | hint p99 ms, quiet -> during | /healthz p99 ms, quiet -> during "
        "| server RSS MB, before -> peak | what the attacker got |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        quiet, during = row["quiet"], row["during"]
        lines.append(
            f"| {row['attack']} | {ms(quiet['hint'])} -> {ms(during['hint'])}"
            f" | {ms(quiet['healthz'])} -> {ms(during['healthz'])}"
            f" | {row['rss_before_mb']:.0f} -> {row['rss_peak_mb']:.0f}"
            f" | {row['result'].get('got', '')} |"
        )
    return lines


def main() -> int:
    """Parse the options; run the attacks (or, in a child, one attacker)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", action="append", choices=list(BY_NAME), help="run only this attack (repeatable)"
    )
    parser.add_argument("--small", action="store_true", help="a quick smoke run, sizes cut down")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--server-command",
        metavar="CMD",
        help="attack another build, started by this command line with {port} in it",
    )
    parser.add_argument("--attacker", choices=list(BY_NAME), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        return attacker_main(args)
    if args.server_command and "{port}" not in args.server_command:
        parser.error("--server-command needs {port} in it")
    chosen = [BY_NAME[name] for name in args.only] if args.only else list(ATTACKS)
    started, load_before = time.monotonic(), os.getloadavg()
    target = Target(args.server_command)
    rows = []
    try:
        target.start()
        for attack in chosen:
            print(f"{attack.name}: {attack.what}...", file=sys.stderr, flush=True)
            rows.append(measure(target, attack, args.small))
            print("  " + table(rows[-1:])[-1], file=sys.stderr, flush=True)
    except RuntimeError as err:  # a server that would not start
        print(f"attack.py: error: {err}", file=sys.stderr)
        return 1
    finally:
        target.stop()
    report = {
        "server": args.server_command or f"this checkout ({__version__})",
        "small": args.small,
        "cores": os.cpu_count(),
        "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "restarts": target.restarts,
        "seconds": round(time.monotonic() - started, 1),
        "attacks": rows,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(table(rows)))
        print(f"\n{report['server']}, {report['seconds']:.0f} s, restarts {target.restarts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
