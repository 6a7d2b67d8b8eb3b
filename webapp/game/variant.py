"""The rule sets beyond today's board: a ``Variant`` value, the named seven, cell names.

A variant is one or more boards of ``rows`` x ``columns`` on which ``k`` in a row ends
the game: it wins, or loses under misère. In Notakto both players place X on several
3x3 boards; a board with three in a row is dead, and whoever kills the last live board
loses. Cells are named as on today's board, a column letter then a row number from the
top (``a1`` to ``d4``); on several boards the board's number comes first (``2:b2``).
A cell's index is its place in reading order, board by board (board x cells + cell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .errors import RuleError

Cell = int
Line = int
"""A line as a bit mask over one board's cells (bit ``i`` is the cell at index ``i``)."""

COLUMN_LETTERS = "abcdefgh"
_CELL_NAME = re.compile(r"^\s*(?:(\d+)\s*:\s*)?([a-z])\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Variant:
    """A rule set: board size, the run that ends the game, misère, boards, Notakto."""

    name: str
    rows: int
    columns: int
    k: int
    misere: bool = False
    boards: int = 1
    notakto: bool = False
    """Both players place X, and a board with ``k`` in a row is dead (always misère)."""

    @property
    def board_cells(self) -> int:
        """How many cells one board has."""
        return self.rows * self.columns

    @property
    def cells(self) -> int:
        """How many cells all boards have together."""
        return self.board_cells * self.boards

    @cached_property
    def lines(self) -> tuple[Line, ...]:
        """Every run of ``k`` cells on one board (rows, columns, both diagonals), as masks."""
        steps = ((0, 1), (1, 0), (1, 1), (1, -1))
        found = []
        for row in range(self.rows):
            for column in range(self.columns):
                for down, right in steps:
                    end_row, end_column = row + down * (self.k - 1), column + right * (self.k - 1)
                    if 0 <= end_row < self.rows and 0 <= end_column < self.columns:
                        cells = (
                            (row + down * i) * self.columns + column + right * i
                            for i in range(self.k)
                        )
                        found.append(sum(1 << cell for cell in cells))
        return tuple(found)

    def cell_name(self, cell: Cell) -> str:
        """``b2``, or ``2:b2`` on several boards, for a cell's index."""
        self.check_cell(cell)
        board, place = divmod(cell, self.board_cells)
        row, column = divmod(place, self.columns)
        name = f"{COLUMN_LETTERS[column]}{row + 1}"
        return f"{board + 1}:{name}" if self.boards > 1 else name

    def parse_cell(self, text: str) -> Cell:
        """A cell's index from its name (``b2``, ``2:b2``); a clear error otherwise."""
        named = _CELL_NAME.match(text)
        if named is None:
            raise RuleError("bad_cell", f"cannot read {text.strip()!r} as a cell: {self._names()}")
        board_text, letter, row_text = named.groups()
        board = int(board_text) if board_text is not None else 1
        if board_text is None and self.boards > 1:
            raise RuleError("bad_cell", f"{text.strip()!r} names no board: {self._names()}")
        column = COLUMN_LETTERS.find(letter.lower())
        row = int(row_text)
        if not (1 <= board <= self.boards and 0 <= column < self.columns and 1 <= row <= self.rows):
            raise RuleError("bad_cell", f"{text.strip()!r} is off the board: {self._names()}")
        return (board - 1) * self.board_cells + (row - 1) * self.columns + column

    def check_cell(self, cell: object) -> Cell:
        """Return ``cell`` when it is a cell's index on this variant, else raise."""
        if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell < self.cells:
            raise RuleError(
                "cell_out_of_range",
                f"cell must be an integer from 0 to {self.cells - 1}, got {cell!r}",
            )
        return cell

    def _names(self) -> str:
        last = f"{COLUMN_LETTERS[self.columns - 1]}{self.rows}"
        if self.boards == 1:
            return f"use a1..{last}"
        return f"use 1:a1..{self.boards}:{last} (board, column, row)"


VARIANTS: tuple[Variant, ...] = (
    Variant("classic", 3, 3, 3),
    Variant("misere", 3, 3, 3, misere=True),
    Variant("4x4k3", 4, 4, 3),
    Variant("4x4k4", 4, 4, 4),
    Variant("notakto1", 3, 3, 3, misere=True, boards=1, notakto=True),
    Variant("notakto2", 3, 3, 3, misere=True, boards=2, notakto=True),
    Variant("notakto3", 3, 3, 3, misere=True, boards=3, notakto=True),
)
"""The named rule sets; their names are the contract for the CLI, the protocol, records."""

_BY_NAME = {variant.name: variant for variant in VARIANTS}

CLASSIC = _BY_NAME["classic"]


def variant_named(name: str) -> Variant:
    """The variant called ``name``; ``unknown_variant`` names the ones there are."""
    variant = _BY_NAME.get(name)
    if variant is None:
        known = ", ".join(_BY_NAME)
        raise RuleError("unknown_variant", f"no variant is called {name!r}: choose one of {known}")
    return variant


MEANINGS: dict[str, str] = {
    "classic": "3x3, three in a row wins: a draw with perfect play",
    "misere": "3x3, whoever makes three in a row loses: a draw with perfect play",
    "4x4k3": "4x4, three in a row wins: the first player wins with perfect play",
    "4x4k4": "4x4, four in a row wins: a draw with perfect play",
    "notakto1": "One 3x3 board, both play X, three in a row loses: the first player wins",
    "notakto2": "Two boards, both play X; three in a row kills a board, "
    "whoever kills the last loses: the second player wins",
    "notakto3": "Three boards, both play X; three in a row kills a board, "
    "whoever kills the last loses: the first player wins",
}
"""Each variant's rule and its value from the empty board, in one line."""
