"""bench/attack.py's ``deleted``: old tabs of players who pressed "Delete everything".

Each player holds two sockets and a seat in a friend's room, deletes everything over
HTTP, then at once sends a move and ``room_sit`` from both old sockets, as a tab that
missed (or ignores) the push would. What the sockets were told, how the events were
answered, whether the server closed them, and what is stored under the deleted ids
once the server's second sweep has run; then each kept cookie tries to connect again.
"""

from __future__ import annotations

import base64
import http.client
import json
import sqlite3
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from support.testing import HOST

CALL_TIMEOUT = 5.0
READ_SECONDS = 3.0  # an old socket is read this long after its events, or until closed
SWEEP_SECONDS = 6.0  # past the server's second deletion (5 s after the first)


def player_in(cookie: str) -> str:
    """The player id in a Flask session cookie (its payload is signed, not secret)."""
    payload = cookie.split("=", 1)[1].split(".")
    compressed = payload[0] == ""
    data = payload[1] if compressed else payload[0]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return str(json.loads(zlib.decompress(raw) if compressed else raw)["player"])


def post(port: int, source: str, path: str, cookie: str) -> tuple[int, str]:
    """POST ``path`` from ``source`` as the site's own page does: (status, Location)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=CALL_TIMEOUT, source_address=(source, 0))
    try:
        origin = f"http://{HOST}:{port}"
        conn.request("POST", path, headers={"Cookie": cookie, "Origin": origin})
        reply = conn.getresponse()
        reply.read()
        return reply.status, reply.headers.get("Location") or ""
    finally:
        conn.close()


def read_for(raw: Any, seconds: float) -> tuple[list[str], bool]:
    """The texts ``raw`` gets within ``seconds`` (those its join passed over first), and
    whether the server closed it meanwhile."""
    texts, raw.backlog = list(raw.backlog), []
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            raw.sock.settimeout(left)
            for opcode, payload in raw.frames():
                if opcode == 0x8:
                    return texts, True
                if opcode == 0x1:
                    texts.append(payload.decode(errors="replace"))
                raw.sock.settimeout(max(0.001, deadline - time.monotonic()))
            return texts, True
    except TimeoutError:
        return texts, False
    except OSError:
        return texts, True
    return texts, False


def answers(texts: list[str]) -> dict[int, str]:
    """The acks among ``texts`` by id: "ok" or the error's code."""
    found = {}
    for text in texts:
        if text.startswith("43"):
            digits = text[2:][: len(text[2:]) - len(text[2:].lstrip("0123456789"))]
            body = json.loads(text[2 + len(digits) :])[0]
            found[int(digits)] = "ok" if body.get("ok") else str(body["error"]["code"])
    return found


def join_room(raw: Any, room: str) -> str:
    """``room_join`` and its answer; what came before it is kept for later."""
    raw.send_text("420" + json.dumps(["room_join", {"room": room}]))
    deadline = time.monotonic() + CALL_TIMEOUT
    while time.monotonic() < deadline:
        texts, closed = read_for(raw, 0.2)
        acked = answers(texts)
        raw.backlog = [text for text in texts if not text.startswith("430")]
        if 0 in acked or closed:
            return acked.get(0, "closed")
    return "timeout"


def old_tab(at: Any, index: int) -> dict[str, Any]:
    """One player: a friend's room with a seat, two sockets, the deletion, the old tabs."""
    source = 1 + index // 25
    friend_source = 100 + index // 5  # few rooms from each address
    friend = at.cookies(1, first=friend_source)[0]
    made, location = post(at.port, at.address(friend_source), "/r", friend)
    room = location.rsplit("/", 1)[1] if made == 303 else ""
    cookie = at.cookies(1, first=source)[0]
    sockets = [at.open(cookie, source, timeout=CALL_TIMEOUT) for _ in range(2)]
    opened = [raw for raw, verdict in sockets if raw is not None and verdict == "joined"]
    seated = join_room(opened[0], room) if room and opened else "no room"
    deleted, _ = post(at.port, at.address(source), "/history/forget", cookie)
    got: Counter[str] = Counter()
    for raw in opened:  # at once, before reading the push
        try:
            raw.send_text("421" + json.dumps(["move", {"cell": 4}]))
            raw.send_text("422" + json.dumps(["room_sit", {"room": room}]))
        except OSError:
            got["closed before its events"] += 1
    for raw in opened:
        texts, closed = read_for(raw, READ_SECONDS)
        got["told"] += sum(text.startswith('42["player_deleted"') for text in texts)
        got["closed"] += closed
        got.update(f"ack {code}" for ack, code in answers(texts).items() if ack in (1, 2))
        raw.close()
    got[f"seat {seated}"] += 1
    return {
        "player": player_in(cookie),
        "cookie": cookie,
        "source": source,
        "sockets": len(opened),
        "deleted": deleted,
        "got": dict(got),
    }


def stored_under(data_dir: Path, players: list[str]) -> dict[str, int]:
    """Rows stored under ``players``: matches (and practice games), seats, finished games."""
    path = data_dir / "matches.sqlite3"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    marks = ",".join("?" * len(players))
    practice = [f"practice.{player}" for player in players]
    try:
        return {
            "matches": db.execute(
                f"SELECT count(*) FROM matches WHERE player IN ({marks}) OR player IN ({marks})",
                (*players, *practice),
            ).fetchone()[0],
            "seats": db.execute(
                f"SELECT count(*) FROM rooms WHERE seat0 IN ({marks}) OR seat1 IN ({marks})",
                (*players, *players),
            ).fetchone()[0],
            "games": db.execute(
                f"SELECT count(*) FROM games WHERE player IN ({marks})", players
            ).fetchone()[0],
        }
    finally:
        db.close()


def attack_deleted(at: Any) -> dict[str, Any]:
    """Players delete everything, then act from their old tabs and with their old cookies."""
    count = at.size(100, 20)
    with ThreadPoolExecutor(8) as pool:
        tabs = list(pool.map(lambda index: old_tab(at, index), range(count)))
    time.sleep(SWEEP_SECONDS)
    got: Counter[str] = Counter()
    for tab in tabs:
        got.update(tab["got"])
    stored = stored_under(at.data_dir, [tab["player"] for tab in tabs])
    again = Counter(at.open(tab["cookie"], tab["source"], timeout=CALL_TIMEOUT)[1] for tab in tabs)
    sockets = sum(tab["sockets"] for tab in tabs)
    acks = ", ".join(f"{n:,} {name[4:]}" for name, n in sorted(got.items()) if name[:4] == "ack ")
    seated, deleted = got.get("seat ok", 0), sum(tab["deleted"] == 204 for tab in tabs)
    text = (
        f"{count} players seated in a friend's room ({seated}) and deleted ({deleted} x 204),"
        f" {sockets}"
        f" old sockets: told {got['told']:,}, closed by the server {got['closed']:,}"
        f" ({got['closed before its events']:,} before the events were sent);"
        f" their move and room_sit answered: {acks or 'none'}; stored under the deleted"
        f" ids 6 s later: {stored['matches']} matches, {stored['seats']} seats,"
        f" {stored['games']} games; a kept cookie connecting again: "
        + ", ".join(f"{n:,} {verdict}" for verdict, n in again.items())
    )
    return {
        "players": count,
        "sockets": sockets,
        "events": dict(got),
        "stored": stored,
        "again": dict(again),
        "got": text,
    }
