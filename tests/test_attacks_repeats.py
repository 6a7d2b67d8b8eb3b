"""Hostile clients that repeat what is allowed once: the same finished game, the same
join, a body nobody reads. Against a real server process on loopback, bounded in count.
"""

from __future__ import annotations

from typing import Any

from webapp.game import engine
from webapp.game.board import Board
from webapp.testing import Player, ServerProcess, session_cookie

ROUNDS = 12


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
