"""Stored games with known mistakes in them, for the training tests."""

from __future__ import annotations

from typing import Any

from webapp.game.board import Board
from webapp.game.history import friend_game
from webapp.game.review import judge


def games_with_mistakes(count: int) -> list[dict[str, Any]]:
    """``count`` games, each with one mistake of the player's (X) at its third move, each
    from another position or with another move: ``count`` cards."""
    found: list[dict[str, Any]] = []
    for first in range(9):
        for second in range(9):
            if second == first:
                continue
            board = Board().apply_move(first).apply_move(second)
            for third in board.legal_moves():
                if len(found) == count:
                    return found
                if judge(board, third).gave_away:
                    cells = (first, second, third)
                    found.append(
                        friend_game(
                            cells,
                            mine="X",
                            result="draw",
                            resigned=None,
                            game=1,
                            game_id=f"g{len(found)}",
                            ended=1000.0 + len(found),
                        )
                    )
    raise AssertionError(f"fewer than {count} mistakes found")
