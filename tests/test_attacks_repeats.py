"""Hostile clients that repeat what is allowed once: the same finished game, the same
join, a body nobody reads. Against a real server process on loopback, bounded in count.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from typing import Any

import pytest
from support.testing import Player, ServerProcess, session_cookie

from webapp.game import engine
from webapp.game.board import Board

pytestmark = pytest.mark.attack

ROUNDS = 12


def post(
    server: ServerProcess, path: str, cookie: str, body: bytes = b""
) -> http.client.HTTPResponse:
    """POST from the site's own page, as its forms do; the answer, read."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Cookie": cookie, "Origin": server.url}
    connection.request("POST", path, body=body, headers=headers)
    reply = connection.getresponse()
    reply.read()
    connection.close()
    return reply


class Watcher(Player):
    """A player that also counts the room snapshots its socket is sent."""

    def __init__(self, url: str, cookie: str) -> None:
        self.rooms: list[dict[str, Any]] = []
        self.room_sent = threading.Event()
        super().__init__(url, cookie)
        self.client.on("room", self._on_room)

    def _on_room(self, room: dict[str, Any]) -> None:
        self.rooms.append(room)
        self.room_sent.set()

    def settled(self, seconds: float = 0.5) -> int:
        """How many room snapshots came, once none has come for ``seconds``."""
        while self.room_sent.wait(seconds):
            self.room_sent.clear()
        return len(self.rooms)


def perfect(state: dict[str, Any]) -> int:
    """A perfect player's move: against the easy AI's random play it wins most games."""
    return engine.best_moves(Board(state["board"]))[0]


def win_an_easy_game(player: Player) -> dict[str, Any]:
    """Start an easy match and play games until one is won; the state that won it."""
    assert player.call("new_match", {"mode": "easy", "first": "human"})["ok"]
    for _ in range(20):
        state = player.human_turn()
        while state["status"] == "playing":
            version = state["version"]
            assert player.move(perfect(state))["ok"]
            state = player.wait_for(lambda s, v=version: s["version"] > v and s["turn"] != "ai")
        if state["status"] == "human_won":
            return state
        assert player.call("next_game")["ok"]
    raise AssertionError("twenty easy games without a win")


def test_take_back_cannot_replay_a_won_game(server: ServerProcess) -> None:
    player = Player(server.url, session_cookie(server.url))
    try:
        won = win_an_easy_game(player)
        last = [move["cell"] for move in won["history"] if move["by"] == "human"]
        counted = player.call("history")
        replies = []
        for _ in range(ROUNDS):  # the attack: take the winning move back, play it again
            replies.append(player.call("take_back"))
            replies.append(player.move(last[-1]))
        assert {reply["error"]["code"] for reply in replies[::2]} == {"not_allowed"}
        assert {reply["error"]["code"] for reply in replies[1::2]} == {"game_over"}
        history = player.call("history")
        assert history["totals"] == counted["totals"]
        assert history["totals"]["by_mode"]["easy"]["win"] == 1  # one real win, counted once
        assert len(history["games"]) == len(counted["games"])
        assert player.newest()["version"] == won["version"]  # the game stayed as it ended
    finally:
        player.close()


def test_a_spectator_asking_again_to_join_is_not_sent_to_everyone(server: ServerProcess) -> None:
    host_cookie = session_cookie(server.url)
    created = post(server, "/r", host_cookie)
    assert created.status == 303
    room = created.headers["Location"].rsplit("/", 1)[1]
    host, spectator = (
        Watcher(server.url, host_cookie),
        Watcher(server.url, session_cookie(server.url)),
    )
    try:
        assert host.call("room_join", {"room": room})["you"]
        assert spectator.call("room_join", {"room": room})["you"]  # the second seat
        watcher = Watcher(server.url, session_cookie(server.url))
        assert watcher.call("room_join", {"room": room})["you"] is None
        seen = host.settled()
        for _ in range(ROUNDS):  # the attack: join again and again (19 a second in 0.4.0)
            assert watcher.call("room_join", {"room": room})["ok"]
            assert spectator.call("room_join", {"room": room})["ok"]
        assert host.settled() == seen  # nothing changed, so the host was sent nothing
        assert watcher.settled() > ROUNDS  # each asker still gets the room, itself
        watcher.close()
        deadline = time.monotonic() + 5
        while host.settled(0.1) == seen and time.monotonic() < deadline:
            pass
        assert host.rooms[-1]["watching"] == 0  # a real change still reaches everyone
    finally:
        host.close()
        spectator.close()


def refused_unread(server: ServerProcess, path: str, cookie: str) -> tuple[bytes, float]:
    """Announce a 2 MB body to ``path`` and send none of it: the answer, and the seconds
    until the server closed the connection."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {server.url}\r\n"
        f"Cookie: {cookie}\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {2 << 20}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        raw.sendall(head.encode())
        started, answer = time.monotonic(), b""
        try:
            while chunk := raw.recv(65536):
                answer += chunk
        except TimeoutError:
            return answer, float("inf")  # still open: the server waits for the body
        return answer, time.monotonic() - started


def test_a_body_no_route_reads_is_refused_unread(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    for path in ("/r", "/history/forget", "/"):
        answer, closed_after = refused_unread(server, path, cookie)
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:100]
        assert b"at most 1024 bytes" in answer
        assert closed_after < 5  # closed at once, the body never waited for
    assert post(server, "/r", cookie, b"x" * 1024).status == 303  # a form's size still works
