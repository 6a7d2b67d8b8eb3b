"""Stored games with known mistakes in them, for the training tests."""

from __future__ import annotations

from typing import Any

from webapp.game.board import Board
from webapp.game.history import friend_game
from webapp.game.review import judge
from webapp.game.variant import variant_named


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


def variant_game_with_mistake(name: str, game_id: str = "v0") -> dict[str, Any]:
    """A game with a friend on variant ``name`` in which the player (X, the first player)
    makes a mistake: each side plays the first legal cell until X has one that gives its
    result away, which X then plays."""
    variant = variant_named(name)
    board, cells = Board.empty(variant), []
    for _ in range(variant.cells):
        mover = board.to_move
        slips = [c for c in board.legal_moves() if mover == "X" and judge(board, c).gave_away]
        cell = (slips or board.legal_moves())[0]
        cells.append(cell)
        if slips:
            break
        board = board.apply_move(cell)
    else:
        raise AssertionError(f"no mistake found on {name}")
    return friend_game(
        tuple(cells),
        mine="X",
        result="draw",
        resigned=None,
        game=1,
        game_id=game_id,
        ended=1000.0,
        variant=variant,
    )
