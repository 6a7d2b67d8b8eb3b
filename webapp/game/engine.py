"""Perfect play: the whole game solved once, then values and best moves by look-up.

The whole game has 5,478 reachable positions, so it is solved once by memoised
negamax and every later question is a dictionary look-up. Scores are
depth-aware: a win in ``p`` plies is worth ``WIN - p`` and a loss ``p - WIN``,
so the solver hurries its wins and delays its losses (it blocks even when lost).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from .board import CELLS, EMPTY, Board, Cell, RuleError, winner_of

WIN = 100
"""Score of winning right now; every ply on the way costs one point."""


class Result(enum.Enum):
    """The result of a position for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True, order=True)
class Value:
    """Perfect-play value of a position for one side: a score, and plies to the end."""

    score: int
    plies: int

    @property
    def result(self) -> Result:
        """Win, draw or loss."""
        if self.score > 0:
            return Result.WIN
        return Result.LOSS if self.score < 0 else Result.DRAW

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{"result": "win", "plies": 3}``."""
        return {"result": self.result.value, "plies": self.plies}


def _value(score: int, empties: int) -> Value:
    # A drawn game always runs to a full board, so its length is the empty count.
    return Value(score, WIN - abs(score) if score else empties)


# --- the solved table -------------------------------------------------------------


def successors(cells: str) -> Iterator[tuple[Cell, str]]:
    """Each legal move from ``cells`` with the position it leads to."""
    mark = "X" if cells.count("X") == cells.count("O") else "O"
    for i in CELLS:
        if cells[i] == EMPTY:
            yield i, cells[:i] + mark + cells[i + 1 :]


def terminal_score(cells: str) -> int | None:
    """The score for the side to move if the game is over (a loss or a draw), else None."""
    # The player who just moved is the only one who can own a line, so a line
    # always means the side to move has lost, right now.
    if winner_of(cells):
        return -WIN
    if EMPTY not in cells:
        return 0
    return None


@cache
def solved() -> dict[str, int]:
    """Negamax score for the side to move of every reachable position (built once)."""
    table: dict[str, int] = {}

    def negamax(cells: str) -> int:
        known = table.get(cells)
        if known is not None:
            return known
        score = terminal_score(cells)
        if score is None:
            score = max(-farther(negamax(child)) for _, child in successors(cells))
        table[cells] = score
        return score

    negamax(EMPTY * 9)
    return table


def farther(score: int) -> int:
    """A score seen one ply earlier: wins and losses are one point smaller."""
    if score > 0:
        return score - 1
    return score + 1 if score < 0 else 0


def value(board: Board) -> Value:
    """Perfect-play value of ``board`` for the side to move."""
    return _value(solved()[board.cells], board.empties)


@dataclass(frozen=True)
class Analysis:
    """Every legal move's value for the side to move, and the best of them."""

    board: Board
    value: Value
    moves: dict[Cell, Value]
    best: tuple[Cell, ...]

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of ``tictactoe solve``."""
        return {
            "board": self.board.cells,
            "to_move": self.board.to_move,
            "result": self.value.result.value,
            "plies": self.value.plies,
            "moves": {str(cell): v.to_dict() for cell, v in self.moves.items()},
            "best": list(self.best),
        }


@cache
def _analysis(cells: str) -> Analysis:
    table = solved()
    board = Board(cells)
    children = [] if board.is_over() else successors(cells)
    moves = {cell: _value(-farther(table[child]), board.empties) for cell, child in children}
    top = max(moves.values(), default=None)
    best = tuple(cell for cell, v in moves.items() if v == top)
    return Analysis(board, value(board), moves, best)


def analyse(board: Board) -> Analysis:
    """Per-move values and best moves: fastest wins, else draws, else slowest losses."""
    return _analysis(board.cells)


def best_moves(board: Board) -> tuple[Cell, ...]:
    """All moves that keep the perfect-play value; empty when the game is over."""
    return _analysis(board.cells).best


def perfect_move(board: Board, rng: random.Random) -> Cell:
    """A perfect move, chosen among equally good ones with ``rng``."""
    best = _analysis(board.cells).best
    if not best:
        raise RuleError("game_over", "the game is over: no more moves")
    return best[0] if len(best) == 1 else rng.choice(best)
