"""bench/attack.py's attacks on the caps that every player shares (run in its child).

rooms      one address's new players (as many as it may start in a minute, 30), each
           opening 5 rooms with a friend and then its room on one device; then one
           room from another address: the rooms made and refused
"""

from __future__ import annotations

import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import cookie_from, local_room_from, new_room_from

if TYPE_CHECKING:
    from attack import Attacker

ROOMS_EACH = 5


def open_rooms(data_dir: Path) -> int:
    """Rooms in the SQLite store (0 if there is none yet)."""
    path = data_dir / "matches.sqlite3"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return int(db.execute("SELECT count(*) FROM rooms").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def new_room(url: str, cookie: str, source: str) -> str:
    """``POST /r`` from ``source``: "made", or the refusal's code (or what failed)."""
    try:
        status, code, _ = new_room_from(source, url, cookie)
    except OSError as err:
        return type(err).__name__
    return "made" if status == 303 else code or str(status)


def local_room(port: int, cookie: str, source: str) -> str:
    """The player's room on one device, from ``source``: "made", or the refusal's code."""
    try:
        ack = local_room_from(source, port, cookie)
    except OSError as err:
        return type(err).__name__
    return "made" if ack.get("ok") else str(ack["error"]["code"])


def attack_rooms(at: Attacker) -> dict[str, Any]:
    """New players from one address, each opening rooms; then a room from another address."""
    url, source = f"http://127.0.0.1:{at.port}", at.address(0)
    before, started = open_rooms(at.data_dir), time.monotonic()
    cookies = []
    for _ in range(at.size(30, 6)):
        try:
            cookies.append(cookie_from(source, url))
        except AssertionError:  # 429: the address's new players for this minute are spent
            break
    online = Counter(new_room(url, cookie, source) for cookie in cookies for _ in range(ROOMS_EACH))
    local = Counter(local_room(at.port, cookie, source) for cookie in cookies)
    seconds = time.monotonic() - started
    other = new_room(url, cookie_from(at.address(1), url), at.address(1))
    made = open_rooms(at.data_dir) - before
    refused = ", ".join(f"{n:,} {code}" for code, n in (online + local).items() if code != "made")
    got = (
        f"1 address, {len(cookies)} players: {online['made']} of {sum(online.values())} rooms"
        f" with a friend and {local['made']} of {len(cookies)} on one device made in"
        f" {seconds:.1f} s, refused {refused or 'none'};"
        f" another address: {other}; +{made} rooms stored"
    )
    return {"online": dict(online), "local": dict(local), "other": other, "made": made, "got": got}
