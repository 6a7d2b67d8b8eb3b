"""The rule sets as the search sees them: one int per position, its key, its moves.

Each rule set turns a position into one int, keys it by its smallest image under the
board's eight symmetries (in Notakto each board's smallest image, dead boards made one,
the boards sorted, since their order does not matter), and expands it: an exact score
when a shortcut knows it (the end, a win on the spot, a double threat, no line left to
make: a draw), else its moves in search order (the cells on most lines first; a forced
block alone). Scores are for the side to move, ``BIG - p`` for a win in ``p`` plies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .position import Position
from .variant import Cell, Variant

BIG = 1000
"""The score of a win on the spot; every ply on the way costs one point."""

State = int
"""A position as the search sees it, one int (see each rule set's ``state``)."""
Child = tuple[Cell, State, int | None]
"""A move, the state it leads to, and its score when the move ends the game at once."""
Expanded = int | list[Child]
"""A state's exact score when a shortcut knows it, else its moves in search order."""


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
        return sorted(self._children(state, range(9)))  # by cell, losing moves too

    def _children(self, state: State, order: Sequence[int]) -> list[Child]:
        fields = [state >> (9 * b) & 511 for b in range(self.boards)]
        live = sum(field != self.DEAD for field in fields)
        children: list[Child] = []
        lost: list[Child] = []
        for board, field in enumerate(fields):
            if field == self.DEAD:
                continue
            for place in order:
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
        return children + lost


def rules_for(variant: Variant) -> Rules:
    """The rule set the search plays ``variant`` by."""
    return NotaktoRules(variant) if variant.notakto else LineRules(variant)
