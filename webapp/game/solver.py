"""Perfect play on every variant: alpha-beta negamax with a table, symmetry and ordering.

A score is for the side to move: a win in ``p`` plies is ``BIG - p``, a loss in ``p``
plies ``p - BIG`` and a draw 0, so that the largest score is the fastest win or the
slowest loss (a drawn game runs to a full board, so its length is the empty count).
Alpha-beta works on these scores directly: the window passed to a child is widened by
one ply, and the table keeps for each position met the bounds proved so far, so a
bound found by one search tightens the next and every answer is exact.

Positions are keyed in the table by their smallest image under the board's eight
symmetries; in Notakto by each board's smallest image, dead boards made one, and the
boards sorted. Each rule set gives the search its shortcuts: a win on the spot, a
double threat, a forced block, no line left to make (a draw at once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .board import RuleError
from .engine import Result
from .position import Position
from .variant import Cell, Variant

BIG = 1000
"""The score of a win on the spot; every ply on the way costs one point."""
INF = BIG + 1
"""Beyond every score: the bounds of a full window."""
_PACK = 2048  # a bound plus this fits in 12 bits

State = int
"""A position as the search sees it, one int (see each rule set's ``state``)."""
Child = tuple[Cell, State, int | None]
"""A move, the state it leads to, and its score when the move ends the game at once."""
Expanded = int | list[Child]
"""A state's exact score when a shortcut knows it, else its moves in search order."""


def farther(score: int) -> int:
    """A child's score seen from its parent's opponent, one ply farther from the end."""
    if score > 0:
        return score - 1
    return score + 1 if score < 0 else 0


def _widen(bound: int) -> int:
    """The child's bound that keeps ``-farther(child)`` on the same side of ``bound``."""
    return -(bound + 1 if bound > 0 else bound - 1 if bound < 0 else 0)


@dataclass(frozen=True, order=True)
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


class Rules(Protocol):
    """What the search needs of a rule set."""

    def state(self, position: Position) -> State:
        """The position as one int."""

    def canonical(self, state: State) -> int:
        """The table's key: the same for every symmetric image of ``state``."""

    def expand(self, state: State) -> Expanded:
        """An exact score by a shortcut, or the moves in search order."""

    def moves(self, state: State) -> list[Child]:
        """Every legal move in index order (the end of the game has none)."""


def symmetries(rows: int, columns: int) -> list[list[int]]:
    """The board's symmetries as cell maps (``map[cell]`` is the image): 8 on a square."""
    maps = []
    for turn in range(4 if rows == columns else 2):
        for mirror in (False, True):
            image = []
            for cell in range(rows * columns):
                row, column = divmod(cell, columns)
                if mirror:
                    column = columns - 1 - column
                for _ in range(turn):
                    row, column = column, rows - 1 - row
                image.append(row * columns + column)
            maps.append(image)
    return maps


def _byte_tables(maps: list[list[int]], width: int, chunks: int) -> list[list[list[int]]]:
    """For each symmetry but the identity, ``chunks`` tables mapping a key's bytes.

    A key is ``width``-bit masks side by side; byte ``c`` of a key maps to the image of
    its bits, so a key's image is the OR of ``chunks`` look-ups.
    """
    tables = []
    for image in maps[1:]:
        per_chunk = []
        for chunk in range(chunks):
            table = []
            for byte in range(256):
                mapped = 0
                for bit in range(8):
                    place = chunk * 8 + bit
                    if byte >> bit & 1:
                        field, cell = divmod(place, width)
                        mapped |= 1 << (field * width + image[cell])
                table.append(mapped)
            per_chunk.append(table)
        tables.append(per_chunk)
    return tables


class LineRules:
    """k in a row on one board, won or (misère) lost by the one who makes it.

    A state is ``mover | other << cells``: the marks of the side to move, then the
    other side's, since the rules treat both sides alike.
    """

    def __init__(self, variant: Variant) -> None:
        self.cells = variant.cells
        self.misere = variant.misere
        self.full = (1 << self.cells) - 1
        self.lines = variant.lines
        weight = [sum(1 for line in self.lines if line >> cell & 1) for cell in range(self.cells)]
        self.order = sorted(range(self.cells), key=lambda cell: (-weight[cell], cell))
        maps = symmetries(variant.rows, variant.columns)
        self.tables = _byte_tables(maps, self.cells, (2 * self.cells + 7) // 8)
        while len(self.tables[0]) < 4:  # pad to four look-ups: one code path
            for per_chunk in self.tables:
                per_chunk.append([0] * 256)

    def state(self, position: Position) -> State:
        """The side to move's marks, then the other side's."""
        mover, other = (
            (position.x, position.o) if position.first_to_move else (position.o, position.x)
        )
        return mover | other << self.cells

    def canonical(self, state: State) -> int:
        """The smallest image under the board's symmetries."""
        best = state
        lo, mid, high, top = state & 255, state >> 8 & 255, state >> 16 & 255, state >> 24
        for t0, t1, t2, t3 in self.tables:
            image = t0[lo] | t1[mid] | t2[high] | t3[top]
            if image < best:
                best = image
        return best

    def _child(self, mover: int, other: int, bit: int) -> State:
        return other | (mover | bit) << self.cells

    def expand(self, state: State) -> Expanded:
        """Shortcuts first: the end, a win on the spot, threats, no line left."""
        cells = self.cells
        mover, other = state & self.full, state >> cells
        empties = self.full & ~(mover | other)
        mover_left = (empties.bit_count() + 1) // 2
        other_left = empties.bit_count() // 2
        mover_wins = other_wins = 0
        open_line = False
        for line in self.lines:
            mine, theirs = line & mover, line & other
            if theirs:
                if mine:
                    continue
                if theirs == line:  # the last move made a line: the game is over
                    return BIG if self.misere else -BIG
                rest = line ^ theirs
                if rest.bit_count() <= other_left:
                    open_line = True
                    if not rest & (rest - 1):
                        other_wins |= rest
            else:
                rest = line ^ mine
                if rest.bit_count() <= mover_left:
                    open_line = True
                    if not rest & (rest - 1):
                        mover_wins |= rest
        if not empties or not open_line:
            return 0  # no line can be made any more: the board fills, a draw
        if self.misere:
            return self._misere_moves(mover, other, empties, mover_wins)
        if mover_wins:
            return BIG - 1
        if other_wins:
            if other_wins & (other_wins - 1):
                return 2 - BIG  # two threats: one is blocked, the other made
            return [(other_wins.bit_length() - 1, self._child(mover, other, other_wins), None)]
        return [
            (cell, self._child(mover, other, 1 << cell), None)
            for cell in self.order
            if empties >> cell & 1
        ]

    def _misere_moves(self, mover: int, other: int, empties: int, losing: int) -> Expanded:
        """Under misère a cell that completes the mover's line loses at once: those last."""
        if not empties & ~losing:
            return 1 - BIG
        safe: list[Child] = [
            (cell, self._child(mover, other, 1 << cell), None)
            for cell in self.order
            if empties >> cell & 1 and not losing >> cell & 1
        ]
        lost = [(cell, 0, 1 - BIG) for cell in self.order if losing >> cell & 1]
        return safe + lost

    def moves(self, state: State) -> list[Child]:
        """Every empty cell in index order, once the game is not over."""
        mover, other = state & self.full, state >> self.cells
        last_made_line = any(other & line == line for line in self.lines)
        empties = self.full & ~(mover | other)
        if last_made_line:
            return []
        return [
            (cell, self._child(mover, other, 1 << cell), None)
            for cell in range(self.cells)
            if empties >> cell & 1
        ]


class NotaktoRules:
    """Notakto: both place X; a board with three in a row dies; killing the last loses.

    A state holds each board's marks in 9 bits, board 0 lowest, a dead board as 511
    (every cell taken: nothing can be played on it).
    """

    DEAD = 511

    def __init__(self, variant: Variant) -> None:
        self.boards = variant.boards
        self.lines = variant.lines
        maps = symmetries(variant.rows, variant.columns)
        dead = [any(mask & line == line for line in self.lines) for mask in range(512)]
        self.dead = dead
        self.smallest = [
            self.DEAD
            if dead[mask]
            else min(sum(1 << image[c] for c in range(9) if mask >> c & 1) for image in maps)
            for mask in range(512)
        ]
        weight = [sum(1 for line in self.lines if line >> cell & 1) for cell in range(9)]
        self.order = sorted(range(9), key=lambda cell: (-weight[cell], cell))

    def state(self, position: Position) -> State:
        """Each board's marks, dead boards as 511."""
        state = 0
        for board in range(self.boards):
            mask = position.x >> (9 * board) & 511
            state |= (self.DEAD if self.dead[mask] else mask) << (9 * board)
        return state

    def canonical(self, state: State) -> int:
        """Each board's smallest image, the boards sorted: their order does not matter."""
        fields = sorted(self.smallest[state >> (9 * b) & 511] for b in range(self.boards))
        key = 0
        for field in fields:
            key = key << 9 | field
        return key

    def expand(self, state: State) -> Expanded:
        """The end when every board is dead; otherwise each live board's empty cells."""
        return self._children(state, self.order) or BIG

    def moves(self, state: State) -> list[Child]:
        """Every empty cell of a live board in index order."""
        return self._children(state, range(9))

    def _children(self, state: State, order: Sequence[int]) -> list[Child]:
        fields = [state >> (9 * b) & 511 for b in range(self.boards)]
        live = sum(field != self.DEAD for field in fields)
        children: list[Child] = []
        lost: list[Child] = []
        places = list(order)
        for board, field in enumerate(fields):
            if field == self.DEAD:
                continue
            for place in places:
                bit = 1 << place
                if field & bit:
                    continue
                grown = field | bit
                cell = 9 * board + place
                if not self.dead[grown]:
                    children.append((cell, state | bit << (9 * board), None))
                elif live == 1:
                    lost.append((cell, 0, 1 - BIG))  # the last live board: killing it loses
                else:
                    children.append((cell, state | self.DEAD << (9 * board), None))
        if places == list(range(9)):  # index order asked for
            return sorted(children + lost)
        return children + lost


def rules_for(variant: Variant) -> Rules:
    """The rule set the search plays ``variant`` by."""
    return NotaktoRules(variant) if variant.notakto else LineRules(variant)


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
