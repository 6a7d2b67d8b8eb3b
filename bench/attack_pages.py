"""bench/attack.py's attacks on costly pages: a player's whole history asked for again
and again over HTTP, which no event rate limits.

  pages  a player with 500 stored games (as a game's end stores them, in the server's
         own data dir), then 4 threads asking for their ``/history/games.json`` non-stop
         from one address: requests a second, how many were served and refused, the
         bytes of one answer, and whether two answers were the same bytes
"""

from __future__ import annotations

import http.client
import threading
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from support.stocked import player_of, stock
from support.testing import HOST

from webapp.server.settings import DEFAULTS
from webapp.server.store.signing import signer
from webapp.server.store.sqlite.history import SQLiteHistory

if TYPE_CHECKING:  # bench/attack.py imports this module: its Attacker is only a type here
    from attack import Attacker

GAMES = 500
THREADS = 4
CALL_TIMEOUT = 30.0


def stocked_player(at: Attacker, games: int) -> str:
    """A new player's cookie, with ``games`` finished games stored, each signed."""
    (cookie,) = at.cookies(1)
    history = SQLiteHistory(at.data_dir, per_player=games, idle_seconds=30 * 86400)
    try:
        keys = signer(DEFAULTS, at.data_dir, create=False)
        stock(history, keys, player_of(cookie), games, ended=time.time() - games)
    finally:
        history.close()
    return cookie


def games_json(port: int, source: str, cookie: str) -> tuple[int, bytes]:
    """GET the player's games.json from ``source``: the status and the body."""
    conn = http.client.HTTPConnection(HOST, port, timeout=CALL_TIMEOUT, source_address=(source, 0))
    try:
        conn.request("GET", "/history/games.json", headers={"Cookie": cookie})
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


def attack_pages(at: Attacker) -> dict[str, Any]:
    """4 threads asking for a 500-game player's games.json for 10 s, from one address."""
    games, seconds = at.size(GAMES, 100), at.size(10.0, 3.0)
    cookie = stocked_player(at, games)
    source = at.address(1)
    answers: Counter[str] = Counter()
    bodies: dict[int, bytes] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def asker() -> None:
        while time.monotonic() < deadline:
            try:
                status, body = games_json(at.port, source, cookie)
            except OSError as err:
                status, body = 0, type(err).__name__.encode()
            with lock:
                answers[str(status)] += 1
                if status == 200 and len(bodies) < 2:
                    bodies[len(bodies)] = body

    threads = [threading.Thread(target=asker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + CALL_TIMEOUT)
    served, refused = answers.get("200", 0), answers.get("429", 0)
    size = len(bodies[0]) if bodies else 0
    same = len(bodies) == 2 and bodies[0] == bodies[1]
    total = sum(answers.values())
    got = (
        f"{total:,} requests in {seconds:g} s ({total / seconds:.0f}/s) for {games} games:"
        f" {served:,} served ({size / (1 << 20):.2f} MB each"
        f"{', the same bytes' if same else ''}), {refused:,} refused 429"
    )
    others = {k: v for k, v in answers.items() if k not in ("200", "429")}
    if others:
        got += ", " + ", ".join(f"{count:,} {status}" for status, count in others.items())
    return {"answers": dict(answers), "body_bytes": size, "same_bytes": same, "got": got}
