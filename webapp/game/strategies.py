"""The weaker players: random moves, the win-probability heuristic, and lookahead.

The heuristic scores a position by the expected result if both sides played uniformly
at random from it; lookahead searches a few plies and scores the frontier with it.
``strategy(name)`` also names ``perfect``, the engine's play.

On another variant (variant.py) only ``random`` and ``perfect`` play: the AI's perfect
move is solver.py's ``best_move`` (the lowest best move), from one solver per variant
kept for the process (the server hands in its own, with the data dir's opening books:
``use_solvers``); the scripted perfect player picks among all the best moves. The
heuristic and lookahead walk the whole 3x3 game, so they refuse another board
(``classic_only``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from .board import EMPTY, Board, Cell, Mark, RuleError, winner_of
from .engine import analyse, best_moves, successors
from .solver import Solver
from .variant import Variant

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


def heuristic_choices(board: Board) -> tuple[Cell, ...]:
    """The moves whose resulting positions share the best win probability for the mover."""
    check_classic(board, "heuristic")
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


def lookahead_choices(board: Board, *, depth: int = 2) -> tuple[Cell, ...]:
    """The moves with the best depth-limited minimax score: ``depth`` plies counting this
    move, then the heuristic."""
    check_classic(board, "lookahead")
    mark = board.to_move
    scored = {
        cell: lookahead_score(board.apply_move(cell), mark, max(depth - 1, 0))
        for cell in board.legal_moves()
    }
    top = max(scored.values(), default=0.0)
    return tuple(cell for cell, score in scored.items() if score == top)


def lookahead_move(board: Board, rng: random.Random, *, depth: int = 2) -> Cell:
    """A move with the best lookahead score, chosen among equals with ``rng``."""
    best = lookahead_choices(board, depth=depth)
    if not best:
        raise RuleError("game_over", "the game is over: no more moves")
    return best[0] if len(best) == 1 else rng.choice(best)


_source: list[Callable[[Variant], Solver]] = [Solver]


def use_solvers(source: Callable[[Variant], Solver]) -> None:
    """Take each variant's solver from ``source`` from now on (the server's: one per
    variant, looking its first plies up in the data dir's opening book)."""
    _source[0] = source
    solver_for.cache_clear()


@cache
def solver_for(variant: Variant) -> Solver:
    """The one solver of ``variant``: its table of proved bounds serves every game."""
    return _source[0](variant)


def perfect_choices(board: Board) -> tuple[Cell, ...]:
    """The perfect moves the AI picks among: every best move on today's board, the
    solver's lowest best move on another variant; none once the game is over."""
    if board.classic:
        return best_moves(board)
    if board.is_over():
        return ()
    return (solver_for(board.variant).best_move(board.position),)


def move_values(board: Board) -> dict[str, dict[str, object]]:
    """Each legal move's perfect-play value, keyed by cell as ``tictactoe solve`` does (a
    hint): from the classic table, or on another variant from its solver."""
    if board.classic:
        return {str(cell): value.to_dict() for cell, value in analyse(board).moves.items()}
    analysis = solver_for(board.variant).analyse(board.position)
    return {str(cell): value.to_dict() for cell, value in analysis.moves.items()}


def best_choices(board: Board) -> tuple[Cell, ...]:
    """Every best move (the best result, the fastest win or the slowest loss): the
    engine's on today's board, the variant's solver's on another; what a perfect player
    chooses among, as the odds count it."""
    if board.classic:
        return best_moves(board)
    if board.is_over():
        return ()
    return solver_for(board.variant).analyse(board.position).best


def perfect_move(board: Board, rng: random.Random) -> Cell:
    """A perfect move, chosen among all the best ones with ``rng`` (the AI's perfect move
    off classic is the lowest of them, ``perfect_choices``)."""
    best = best_choices(board)
    if not best:
        raise RuleError("game_over", "the game is over: no more moves")
    return best[0] if len(best) == 1 else rng.choice(best)


def check_classic(board: Board, name: str) -> None:
    """Refuse (``classic_only``) a player that only knows today's board."""
    if not board.classic:
        raise RuleError(
            "classic_only",
            f"the {name} player plays only the classic board, not {board.variant.name}",
        )


def random_move(board: Board, rng: random.Random) -> Cell:
    """A uniformly random legal move."""
    moves = board.legal_moves()
    if not moves:
        raise RuleError("game_over", "the game is over: no more moves")
    return rng.choice(moves)


def skill_strategy(hundredths: int) -> Strategy:
    """The ``skill:S`` player, S = ``hundredths`` / 100: a perfect move (uniform among
    the engine's best) when a roll of 0..99 falls under ``hundredths``, else a random one."""

    def move(board: Board, rng: random.Random) -> Cell:
        if rng.randrange(100) < hundredths:
            return perfect_move(board, rng)
        return random_move(board, rng)

    return move


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


def candidates(name: str, board: Board, *, depth: int = 2) -> tuple[Cell, ...]:
    """The cells the named player chooses among, uniformly, in ascending order: every legal
    move for ``random``, the best-scoring ones for the others."""
    if name == "random":
        found: tuple[Cell, ...] = tuple(board.legal_moves())
    elif name == "heuristic":
        found = heuristic_choices(board)
    elif name == "lookahead":
        found = lookahead_choices(board, depth=depth)
    elif name == "perfect":
        found = perfect_choices(board)
    else:
        strategy(name)  # raises the error that names the players
    return tuple(sorted(found))


STRATEGIES: dict[str, Strategy] = {
    "random": random_move,
    "heuristic": heuristic_move,
    "lookahead": lookahead_move,
    "perfect": perfect_move,
}
STRATEGY_NAMES = tuple(STRATEGIES)
