"""The real server process (gevent) driven over websocket by python-socketio's client."""

from __future__ import annotations

import threading
import time
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

import pytest
import socketio
from conftest import ServerProcess


def session_cookie(url: str) -> str:
    """Load the page like a browser and return the Cookie header it would send."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(url + "/") as reply:
        assert reply.status == 200
    return "; ".join(f"{c.name}={c.value}" for c in jar)


class Player:
    """One websocket connection that keeps the newest state it was sent."""

    def __init__(self, url: str, cookie: str, **headers: str) -> None:
        self.client = socketio.Client(reconnection=False)
        self.states: list[dict[str, Any]] = []
        self.changed = threading.Event()
        self.client.on("state", self._on_state)
        self.client.connect(
            url, headers={"Cookie": cookie, **headers}, transports=["websocket"], wait_timeout=5
        )

    def _on_state(self, state: dict[str, Any]) -> None:
        self.states.append(state)
        self.changed.set()

    def wait_for(self, ready: Any, timeout: float = 5) -> dict[str, Any]:
        """Wait until the newest state satisfies ``ready``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.states and ready(self.states[-1]):
                return self.states[-1]
            self.changed.wait(0.05)
            self.changed.clear()
        raise AssertionError(f"no matching state; last: {self.states[-1:]}")

    def human_turn(self) -> dict[str, Any]:
        """Wait for the human's turn (the AI may move first)."""
        return self.wait_for(lambda s: s["turn"] == "human")

    def move(self, cell: int) -> dict[str, Any]:
        """Send a move and return its acknowledgement."""
        ack: dict[str, Any] = self.client.call("move", {"cell": cell}, timeout=5)
        return ack

    def close(self) -> None:
        """Disconnect."""
        self.client.disconnect()


def test_kill_restart_resumes_the_identical_game(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    state = player.human_turn()
    assert player.move(state["board"].index(".")) == {"ok": True}
    before = player.human_turn()
    player.close()

    server.restart()  # kill -9, then start again on the same data dir

    again = Player(server.url, cookie)
    resumed = again.wait_for(lambda s: True)
    assert resumed == before
    while resumed["turn"] == "human":
        version = resumed["version"]
        assert again.move(resumed["board"].index(".")) == {"ok": True}
        resumed = again.wait_for(lambda s, v=version: s["version"] > v and s["turn"] != "ai")
    assert resumed["status"] in {"human_won", "ai_won", "draw"}
    again.close()


def test_acknowledged_move_survives_kill(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    state = player.human_turn()
    cell = state["board"].index(".")
    assert player.move(cell) == {"ok": True}
    server.kill()  # straight after the acknowledgement
    server.start()
    again = Player(server.url, cookie)
    resumed = again.wait_for(lambda s: True)
    assert {"by": "human", "cell": cell} in resumed["history"]
    again.close()


def test_foreign_origin_is_refused(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    with pytest.raises(socketio.exceptions.ConnectionError):
        Player(server.url, cookie, Origin="http://attacker.example")


def test_connection_without_cookie_is_refused(server: ServerProcess) -> None:
    with pytest.raises(socketio.exceptions.ConnectionError):
        Player(server.url, "")


def test_ai_moves_by_itself_after_restart(server_factory: Any) -> None:
    """A match left with the AI to move (reply lost in a crash) is finished on connect."""
    slow = server_factory(TICTACTOE_AI_DELAY_MS="60000")
    cookie = session_cookie(slow.url)
    player = Player(slow.url, cookie)
    state = player.wait_for(lambda s: True)
    if state["turn"] == "human":
        player.move(state["board"].index("."))
        state = player.wait_for(lambda s: s["turn"] == "ai")
    player.close()
    slow.env["TICTACTOE_AI_DELAY_MS"] = "0"
    slow.restart()
    again = Player(slow.url, cookie)
    replied = again.wait_for(lambda s: s["turn"] == "human")
    assert replied["history"][-1]["by"] == "ai"
    assert len(replied["history"]) == len(state["history"]) + 1
    again.close()


def test_page_headers(server: ServerProcess) -> None:
    with urllib.request.urlopen(server.url + "/") as reply:
        csp = reply.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
    with urllib.request.urlopen(server.url + "/static/vendor/socket.io.esm.min.js") as reply:
        assert reply.status == 200 and b"io" in reply.read()
