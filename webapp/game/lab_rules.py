"""The lab's rules on any variant: a position as one flat string, its end, moves and key.

The lab (lab.py) searches positions written as one string of ``X``, ``O`` and ``.``,
every board's cells in reading order with no ``/`` between boards, so that its trace
names a node by its text. ``game_for`` gives the variant's ``Game``: how a position ends
for the side to move, its moves in cell order, and its key up to symmetry (the board's
8 symmetries; in Notakto each board's and the boards' order, a dead board as one).
Classic uses today's functions, so its counts are those measured before variants.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter

from .board import CELLS, EMPTY, winner_of
from .position import Position
from .search_rules import symmetries
from .tree import canonical as classic_canonical
from .variant import CLASSIC, Cell, Variant

DEAD = "#"  # a dead Notakto board's cells in a key: every dead board is alike


@dataclass(frozen=True)
class Game:
    """One variant as the lab searches it."""

    variant: Variant

    @functools.cached_property
    def runs(self) -> tuple[tuple[int, ...], ...]:
        """Each line of ``k`` on one board as its cells' indices."""
        per = self.variant.board_cells
        return tuple(tuple(c for c in range(per) if line >> c & 1) for line in self.variant.lines)

    @functools.cached_property
    def lines_of(self) -> tuple[tuple[Callable[[str], tuple[str, ...]], ...], tuple[str, ...]]:
        """Each line of one board as a getter of its cells' marks, and k X in a row."""
        getters = tuple(itemgetter(*run) for run in self.runs)
        return getters, ("X",) * self.variant.k

    @functools.cached_property
    def maps(self) -> list[Callable[[str], tuple[str, ...]]]:
        """The board's symmetries as getters: new cell i holds old cell ``map[i]``."""
        found: list[Callable[[str], tuple[str, ...]]] = []
        for image in symmetries(self.variant.rows, self.variant.columns):
            inverse = [0] * len(image)
            for cell, moved in enumerate(image):
                inverse[moved] = cell
            found.append(itemgetter(*inverse))
        return found

    @property
    def top(self) -> int:
        """What a win on the spot is worth under the depth-aware scoring (10 on 3x3)."""
        return self.variant.cells + 1

    def flat(self, position: Position) -> str:
        """The position as the lab's string: every cell, no ``/``."""
        return str(position).replace("/", "")

    def text(self, cells: str) -> str:
        """The lab's string in the notation: boards separated by ``/``."""
        return "/".join(self.boards(cells))

    def position(self, cells: str) -> Position:
        """The lab's string back as a position (checked)."""
        return Position.parse(self.variant, self.text(cells))

    def boards(self, cells: str) -> list[str]:
        per = self.variant.board_cells
        return [cells[b * per : (b + 1) * per] for b in range(self.variant.boards)]

    def made_line(self, board: str, mark: str) -> bool:
        """Whether ``mark`` has ``k`` in a row on one board's cells."""
        getters, xs = self.lines_of
        row = xs if mark == "X" else ("O",) * len(xs)
        return any(getter(board) == row for getter in getters)

    def ending(self, cells: str) -> int | None:
        """How the game ended for the side to move: 1 won, -1 lost, 0 drawn; None: on."""
        if self.variant == CLASSIC:
            won = winner_of(cells)
            return -1 if won else 0 if EMPTY not in cells else None
        if self.variant.notakto:
            alive = any(not self.made_line(board, "X") for board in self.boards(cells))
            return None if alive else 1
        last = "O" if cells.count("X") == cells.count("O") else "X"
        if self.made_line(cells, last):
            return 1 if self.variant.misere else -1
        return None if EMPTY in cells else 0

    def dead_boards(self, cells: str) -> list[int]:
        """The boards no longer played on (Notakto's with three in a row), from 0."""
        if not self.variant.notakto:
            return []
        return [b for b, board in enumerate(self.boards(cells)) if self.made_line(board, "X")]

    def to_move(self, cells: str) -> str:
        """The mark the side to move places."""
        if self.variant.notakto:
            return "X"
        return "X" if cells.count("X") == cells.count("O") else "O"

    def children(self, cells: str) -> list[tuple[Cell, str]]:
        """Each move (on a live board) and the position it leads to, in cell order."""
        mark = self.to_move(cells)
        if self.variant == CLASSIC:
            places: list[int] = [i for i in CELLS if cells[i] == EMPTY]
        elif self.variant.notakto:
            per = self.variant.board_cells
            places = [
                b * per + c
                for b, board in enumerate(self.boards(cells))
                if not self.made_line(board, "X")
                for c in range(per)
                if board[c] == EMPTY
            ]
        else:
            places = [i for i in range(len(cells)) if cells[i] == EMPTY]
        return [(i, cells[:i] + mark + cells[i + 1 :]) for i in places]

    def canonical(self, cells: str) -> str:
        """The same key for every symmetric image of ``cells``."""
        if self.variant == CLASSIC:
            return classic_canonical(cells)
        keys = [
            DEAD if self.variant.notakto and self.made_line(board, "X") else self._smallest(board)
            for board in self.boards(cells)
        ]
        return "/".join(sorted(keys)) if self.variant.notakto else keys[0]

    def _smallest(self, board: str) -> str:
        return "".join(min(image(board) for image in self.maps))

    def cell_name(self, cell: Cell) -> str:
        """``b2``, or ``2:b2`` on several boards."""
        return self.variant.cell_name(cell)


@functools.cache
def game_for(variant: Variant) -> Game:
    """The variant's ``Game`` (one per variant)."""
    return Game(variant)


CLASSIC_GAME = game_for(CLASSIC)
