"""The real server (gunicorn, one gevent worker) driven over websocket by python-socketio."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
import socketio
from support.testing import Player, Refused, ServerProcess, session_cookie

from webapp import __version__


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
    with pytest.raises(Refused) as refused:
        Player(server.url, "")
    assert refused.value.data == {"code": "no_session"}


def test_page_of_another_release_is_told_to_reload(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    for other in ("0.1.0", ""):
        with pytest.raises(Refused) as refused:
            Player(server.url, cookie, release=other)
        assert refused.value.data == {"code": "reload", "release": __version__}
    Player(server.url, cookie).close()  # the page of this release connects


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
