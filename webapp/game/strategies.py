"""The weaker players: random moves, the win-probability heuristic, and lookahead.

The heuristic scores a position by the expected result if both sides played uniformly
at random from it; lookahead searches a few plies and scores the frontier with it.
``strategy(name)`` also names ``perfect``, the engine's play.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from .board import EMPTY, Board, Cell, Mark, RuleError, winner_of
from .engine import perfect_move, successors

Strategy = Callable[[Board, random.Random], Cell]


@cache
def x_expectation(cells: str) -> float:
    """Expected result for X (win 1, draw 1/2, loss 0) if both sides play uniformly at random."""
    won = winner_of(cells)
    if won:
        return 1.0 if won[0] == "X" else 0.0
    if EMPTY not in cells:
        return 0.5
    children = [child for _, child in successors(cells)]
    return sum(x_expectation(child) for child in children) / len(children)


def win_probability(board: Board, mark: Mark) -> float:
    """The seed's "probability of winning" heuristic for ``mark``."""
    expected = x_expectation(board.cells)
    return expected if mark == "X" else 1.0 - expected


def _choose(scored: dict[Cell, float], rng: random.Random) -> Cell:
    if not scored:
        raise RuleError("game_over", "the game is over: no more moves")
    top = max(scored.values())
    best = [cell for cell, s in scored.items() if s == top]
    return best[0] if len(best) == 1 else rng.choice(best)


def heuristic_choices(board: Board) -> tuple[Cell, ...]:
    """The moves whose resulting positions share the best win probability for the mover."""
    mark = board.to_move
    scored = {cell: win_probability(board.apply_move(cell), mark) for cell in board.legal_moves()}
    top = max(scored.values(), default=0.0)
    return tuple(cell for cell, score in scored.items() if score == top)


def heuristic_move(board: Board, rng: random.Random) -> Cell:
    """The move whose resulting position has the best win probability for the mover."""
    best = heuristic_choices(board)
    if not best:
        raise RuleError("game_over", "the game is over: no more moves")
    return best[0] if len(best) == 1 else rng.choice(best)


def lookahead_score(board: Board, mark: Mark, depth: int) -> float:
    """Minimax value for ``mark`` searching ``depth`` plies, the heuristic at the frontier."""
    if board.is_over() or depth == 0:
        return win_probability(board, mark)
    scores = (lookahead_score(board.apply_move(c), mark, depth - 1) for c in board.legal_moves())
    return max(scores) if board.to_move == mark else min(scores)


def lookahead_move(board: Board, rng: random.Random, *, depth: int = 2) -> Cell:
    """Depth-limited minimax: ``depth`` plies counting this move, then the heuristic."""
    mark = board.to_move
    return _choose(
        {
            cell: lookahead_score(board.apply_move(cell), mark, max(depth - 1, 0))
            for cell in board.legal_moves()
        },
        rng,
    )


def random_move(board: Board, rng: random.Random) -> Cell:
    """A uniformly random legal move."""
    moves = board.legal_moves()
    if not moves:
        raise RuleError("game_over", "the game is over: no more moves")
    return rng.choice(moves)


def strategy(name: str, *, depth: int = 2) -> Strategy:
    """The named player: ``random``, ``heuristic``, ``lookahead`` or ``perfect``."""
    if name == "lookahead":
        return lambda board, rng: lookahead_move(board, rng, depth=depth)
    try:
        return STRATEGIES[name]
    except KeyError:
        raise RuleError(
            "bad_strategy", f"unknown strategy {name!r}: choose from {', '.join(STRATEGY_NAMES)}"
        ) from None


STRATEGIES: dict[str, Strategy] = {
    "random": random_move,
    "heuristic": heuristic_move,
    "lookahead": lookahead_move,
    "perfect": perfect_move,
}
STRATEGY_NAMES = tuple(STRATEGIES)
