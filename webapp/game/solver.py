"""Perfect play on every variant: alpha-beta negamax with a table, symmetry and ordering.

A score is for the side to move: a win in ``p`` plies is ``BIG - p``, a loss in ``p``
plies ``p - BIG`` and a draw 0, so that the largest score is the fastest win or the
slowest loss (a drawn game runs to a full board, so its length is the empty count).
Alpha-beta works on these scores directly: the window passed to a child is widened by
one ply, and the table keeps for each position met the bounds proved so far, so a
bound found by one search tightens the next and every answer is exact.

How each rule set keys a position up to symmetry, orders its moves and cuts the
search short is in search_rules.py; an opening book (book.py) spares the first plies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .board import RuleError
from .engine import Result
from .position import Position
from .search_rules import BIG, State, rules_for
from .variant import Cell, Variant

INF = BIG + 1
"""Beyond every score: the bounds of a full window."""
_PACK = 2048  # a bound plus this fits in 12 bits


def farther(score: int) -> int:
    """A score one ply farther from the end: a win or a loss one point nearer to 0."""
    if score > 0:
        return score - 1
    return score + 1 if score < 0 else 0


def _widen(bound: int) -> int:
    """The child's bound that keeps ``-farther(child)`` on the same side of ``bound``."""
    return -(bound + 1 if bound > 0 else bound - 1 if bound < 0 else 0)


@dataclass(frozen=True)
class Value:
    """A position's perfect-play value for the side to move: result and plies to the end."""

    result: Result
    plies: int

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{"result": "win", "plies": 3}``."""
        return {"result": self.result.value, "plies": self.plies}


def value_of(score: int, empties: int) -> Value:
    """The value a score stands for, at a position with ``empties`` free cells."""
    if score > 0:
        return Value(Result.WIN, BIG - score)
    if score < 0:
        return Value(Result.LOSS, BIG + score)
    return Value(Result.DRAW, empties)


@dataclass(frozen=True)
class Analysis:
    """Every legal move's value for the side to move, and the best of them."""

    position: Position
    value: Value
    moves: dict[Cell, Value]
    best: tuple[Cell, ...]

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of ``tictactoe solve``: moves keyed by cell index."""
        return {
            "board": str(self.position),
            "to_move": self.position.to_move,
            "result": self.value.result.value,
            "plies": self.value.plies,
            "moves": {str(cell): v.to_dict() for cell, v in self.moves.items()},
            "best": list(self.best),
        }


class Solver:
    """One variant's perfect player; its table of proved bounds grows with each search.

    The table holds ``(low + 2048) << 12 | (high + 2048)`` per canonical key: the
    position's score is known to lie in ``[low, high]``. It is cleared past
    ``table_limit`` entries (a book, loaded with ``use_book``, is kept apart).
    """

    def __init__(self, variant: Variant, *, table_limit: int = 400_000) -> None:
        self.variant = variant
        self.rules = rules_for(variant)
        self.table: dict[int, int] = {}
        self.book: Callable[[int], int | None] = _no_book
        self.table_limit = table_limit
        self.nodes = 0

    def use_book(self, book: Callable[[int], int | None]) -> None:
        """Exact scores by canonical key, consulted before searching (see book.py)."""
        self.book = book

    def score(self, state: State, alpha: int = -INF, beta: int = INF) -> int:
        """The exact score when it lies inside ``(alpha, beta)``, else a bound beyond it."""
        self.nodes += 1
        key = self.rules.canonical(state)
        known = self.book(key)
        if known is not None:
            return known
        entry = self.table.get(key)
        low, high = (
            (-INF, INF) if entry is None else ((entry >> 12) - _PACK, (entry & 4095) - _PACK)
        )
        if low == high or low >= beta:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        expanded = self.rules.expand(state)
        if isinstance(expanded, int):
            best = expanded
            low = high = best
        else:
            best = -INF
            floor = alpha
            for _, child, at_once in expanded:
                if at_once is not None:
                    score = at_once
                else:
                    score = -farther(self.score(child, _widen(beta), _widen(floor)))
                if score > best:
                    best = score
                    if best > floor:
                        floor = best
                        if best >= beta:
                            break
            if best <= alpha:
                high = min(high, best)
            elif best >= beta:
                low = max(low, best)
            else:
                low = high = best
        if len(self.table) >= self.table_limit:
            self.table.clear()
        self.table[key] = (low + _PACK) << 12 | (high + _PACK)
        return best

    def value(self, position: Position) -> Value:
        """The position's perfect-play value for the side to move."""
        return self._value(self.score(self.rules.state(position)), position)

    def _value(self, score: int, position: Position) -> Value:
        if self.variant.notakto:
            return value_of(score, 0)
        return value_of(score, self.variant.cells - position.stones)

    def analyse(self, position: Position) -> Analysis:
        """Every move's value; the best are the best result, fastest win, slowest loss."""
        moves: dict[Cell, Value] = {}
        top = -INF
        best: list[Cell] = []
        for cell, child, at_once in self.rules.moves(self.rules.state(position)):
            score = at_once if at_once is not None else -farther(self.score(child))
            moves[cell] = self._value(score, position)
            if score > top:
                top, best = score, [cell]
            elif score == top:
                best.append(cell)
        value = self._value(top, position) if moves else self.value(position)
        return Analysis(position, value, moves, tuple(best))

    def best_move(self, position: Position) -> Cell:
        """The lowest-indexed best move: the value, then the first move that keeps it."""
        if position.is_over():
            raise RuleError("game_over", "the game is over: no more moves")
        state = self.rules.state(position)
        target = self.score(state)
        for cell, child, at_once in self.rules.moves(state):
            if at_once is not None:
                score = at_once
            else:  # a null window: does this move reach the target?
                score = -farther(self.score(child, _widen(target), _widen(target - 1)))
            if score >= target:
                return cell
        raise AssertionError("no move reaches the position's own value")


def _no_book(key: int) -> int | None:
    return None
