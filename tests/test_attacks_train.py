"""The Train page's JSON requests are paid as whole histories are: a client flooding them
is refused (``429``, ``rate_limited``) before any work, and another player is answered.

``/train/state.json`` once read the player's whole History at each request, and none of
the three requests was counted. Now they are counted per player and per client address
(``TRAIN_PER_PLAYER_MINUTE``, ``TRAIN_PER_ADDRESS_MINUTE``), and the History is read
whole only once another game was stored. Bounded in count and time, loopback only;
nothing here is timed against a baseline.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.stocked import player_of, stock
from support.testing import HOST, ServerProcess, early_in_a_clock_minute, session_cookie

from webapp.server.app import create_app

pytestmark = pytest.mark.attack  # a real server under a hostile client

ASKS = (
    ("GET", "/train/state.json", None),
    ("POST", "/train/answer", {"card": "nope", "cell": "b2"}),
    ("POST", "/train/solve", {"puzzle": "nope", "cell": "b2"}),
)


@pytest.fixture
def trainer_server(tmp_path: Path) -> Iterator[tuple[ServerProcess, str]]:
    """A real server with a player of 200 stored games: (the server, their cookie)."""
    env = {"TICTACTOE_TRAIN_PER_PLAYER_MINUTE": "5", "TICTACTOE_HISTORY_PER_PLAYER": "500"}
    server = ServerProcess(tmp_path, env)
    server.start()
    try:
        cookie = session_cookie(server.url)
        app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "HISTORY_PER_PLAYER": 500})
        stock(app.extensions["history"], None, player_of(cookie), 200)
        app.extensions["history"].close()
        early_in_a_clock_minute()  # a test's asks in one minute's count
        yield server, cookie
    finally:
        server.stop()


def ask(url: str, cookie: str, method: str, path: str, body: object) -> tuple[int, str]:
    """One Train request as ``cookie``'s player, answered within 10 s: (status, code)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(HOST, 0))
    headers = {"Cookie": cookie, "Origin": url, "Content-Type": "application/json"}
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        reply = conn.getresponse()
        data = reply.read()
    finally:
        conn.close()
    if reply.status != 429:
        return reply.status, ""
    assert int(reply.headers["Retry-After"]) >= 1
    return reply.status, str(json.loads(data)["error"]["code"])


def test_a_flood_of_train_requests_is_refused_and_another_player_is_answered(
    trainer_server: tuple[ServerProcess, str],
) -> None:
    server, cookie = trainer_server
    answers: Counter[tuple[int, str]] = Counter()
    lock = threading.Lock()

    def attacker(offset: int) -> None:
        for n in range(15):  # 60 requests in all, over 5 a minute for the player
            method, path, body = ASKS[(n + offset) % len(ASKS)]
            found = ask(server.url, cookie, method, path, body)
            with lock:
                answers[found] += 1

    threads = [threading.Thread(target=attacker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    bystander = session_cookie(server.url)
    seen = [ask(server.url, bystander, "GET", "/train/state.json", None)[0]]
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert sum(answers.values()) == 60
    assert answers[429, "rate_limited"] >= 50  # at most two minutes' worth answered
    assert seen == [200]  # the other player, answered within the request's 10 s
    assert ask(server.url, bystander, "POST", *ASKS[1][1:])[0] == 400  # bad card, not limited
