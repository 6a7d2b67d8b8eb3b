"""Minimax for tic-tac-toe: a solved table, search variants and named strategies.

The whole game has 5,478 reachable positions, so it is solved once by memoised
negamax and every later question is a dictionary look-up. Scores are
depth-aware: a win in ``p`` plies is worth ``WIN - p`` and a loss ``p - WIN``,
so the solver hurries its wins and delays its losses (it blocks even when lost).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from .board import CELLS, EMPTY, Board, Cell, Mark, RuleError, winner_of

WIN = 100
"""Score of winning right now; every ply on the way costs one point."""

Strategy = Callable[[Board, random.Random], Cell]


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


def _children(cells: str) -> Iterator[tuple[Cell, str]]:
    mark = "X" if cells.count("X") == cells.count("O") else "O"
    for i in CELLS:
        if cells[i] == EMPTY:
            yield i, cells[:i] + mark + cells[i + 1 :]


def _terminal_score(cells: str) -> int | None:
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
        score = _terminal_score(cells)
        if score is None:
            score = max(-_shrink(negamax(child)) for _, child in _children(cells))
        table[cells] = score
        return score

    negamax(EMPTY * 9)
    return table


def _shrink(score: int) -> int:
    """Move a score one ply further away from the end: wins and losses lose a point."""
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
    children = [] if board.is_over() else _children(cells)
    moves = {cell: _value(-_shrink(table[child]), board.empties) for cell, child in children}
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


# --- seed heuristics ---------------------------------------------------------------


@cache
def x_expectation(cells: str) -> float:
    """Expected result for X (win 1, draw 1/2, loss 0) if both sides play uniformly at random."""
    won = winner_of(cells)
    if won:
        return 1.0 if won[0] == "X" else 0.0
    if EMPTY not in cells:
        return 0.5
    children = [child for _, child in _children(cells)]
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


def heuristic_move(board: Board, rng: random.Random) -> Cell:
    """The move whose resulting position has the best win probability for the mover."""
    mark = board.to_move
    return _choose(
        {cell: win_probability(board.apply_move(cell), mark) for cell in board.legal_moves()}, rng
    )


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


# --- search without a table, for the benchmark ------------------------------------


@dataclass
class SearchStats:
    """Nodes visited by one search."""

    nodes: int = 0


def minimax_search(cells: str, stats: SearchStats) -> int:
    """Plain depth-aware negamax over the full tree, counting nodes."""
    stats.nodes += 1
    score = _terminal_score(cells)
    if score is not None:
        return score
    return max(-_shrink(minimax_search(child, stats)) for _, child in _children(cells))


def alphabeta_search(
    cells: str, stats: SearchStats, alpha: int = -WIN - 1, beta: int = WIN + 1
) -> int:
    """Negamax with alpha-beta pruning; same scores as ``minimax_search``, fewer nodes."""
    stats.nodes += 1
    score = _terminal_score(cells)
    if score is not None:
        return score
    best = -WIN - 1
    for _, child in _children(cells):
        # The child's window is this one's, negated and widened by one ply.
        child_score = -_shrink(alphabeta_search(child, stats, -_grow(beta), -_grow(alpha)))
        best = max(best, child_score)
        alpha = max(alpha, child_score)
        if alpha >= beta:
            break
    return best


def _grow(score: int) -> int:
    """Inverse of ``_shrink`` for window bounds: one ply closer to the end."""
    if score > 0:
        return score + 1
    return score - 1 if score < 0 else 0


def root_search(
    board: Board, search: Callable[[str, SearchStats], int]
) -> tuple[Cell, int, SearchStats]:
    """Search every first move with ``search``; return the best move, its score and nodes."""
    stats = SearchStats()
    scored = {cell: -_shrink(search(child, stats)) for cell, child in _children(board.cells)}
    cell = max(scored, key=lambda c: scored[c])
    return cell, scored[cell], stats


# --- counting the whole game ---------------------------------------------------------

# The 8 symmetries of the square as cell permutations: new cell i holds old cell p[i].
_ROTATE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
_MIRROR = (2, 1, 0, 5, 4, 3, 8, 7, 6)


def _compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p[q[i]] for i in CELLS)


def _symmetries() -> tuple[tuple[int, ...], ...]:
    found = {tuple(CELLS)}
    while True:
        grown = found | {_compose(p, g) for p in found for g in (_ROTATE, _MIRROR)}
        if grown == found:
            return tuple(sorted(found))
        found = grown


SYMMETRIES = _symmetries()


def canonical(cells: str) -> str:
    """The smallest text form of ``cells`` over the 8 symmetries of the board."""
    return min("".join(cells[i] for i in p) for p in SYMMETRIES)


@dataclass(frozen=True)
class TreeStats:
    """Counts of the complete game tree, all computed by enumeration."""

    positions: int
    positions_symmetric: int
    terminal: int
    terminal_symmetric: int
    games: int
    x_wins: int
    o_wins: int
    draws: int
    tree_nodes: int


def tree_stats() -> TreeStats:
    """Enumerate the game from the empty board: positions, games and tree nodes."""
    paths = {EMPTY * 9: 1}  # number of move orders that reach each position
    layer = [EMPTY * 9]
    terminal: list[str] = []
    for _ in range(10):
        following: dict[str, int] = {}
        for cells in layer:
            if _terminal_score(cells) is not None:
                terminal.append(cells)
                continue
            for _, child in _children(cells):
                following[child] = following.get(child, 0) + paths[cells]
        paths.update(following)
        layer = list(following)
    ends = {"X": 0, "O": 0, None: 0}
    for cells in terminal:
        won = winner_of(cells)
        ends[won[0] if won else None] += paths[cells]
    return TreeStats(
        positions=len(paths),
        positions_symmetric=len({canonical(c) for c in paths}),
        terminal=len(terminal),
        terminal_symmetric=len({canonical(c) for c in terminal}),
        games=sum(ends.values()),
        x_wins=ends["X"],
        o_wins=ends["O"],
        draws=ends[None],
        tree_nodes=sum(paths.values()),
    )
