"""Tic-tac-toe rules: cells, lines, winner, legal moves and a1..c3 notation.

A board is nine cells in reading order from the top-left. Its text form uses
``X``, ``O`` and ``.``; X always moves first, so the side to move follows from
the counts of the marks.

A board of another variant (variant.py) keeps its text in the same notation and leaves
its rules to position.py. Its ``to_move`` is the side's role: X is the first player and
O the second, even in Notakto, where both place X on the boards.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from typing import Literal

from .errors import RuleError as RuleError  # raised from here by the rules' modules
from .position import Ending, Position, full_lines
from .variant import CLASSIC, COLUMN_LETTERS, Variant

Cell = int
Mark = Literal["X", "O"]
Line = tuple[Cell, Cell, Cell]

EMPTY = "."
CELLS: tuple[Cell, ...] = tuple(range(9))
LINES: tuple[Line, ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
COLUMNS = "abc"
_EMPTY_INPUT = frozenset(".- ")
_CELL_NAME = re.compile(r"^\s*([abc])\s*([123])\s*$", re.IGNORECASE)
_ROW_COL = re.compile(r"^\s*([0-2])\s*[\s,]\s*([0-2])\s*$")

assert COLUMN_LETTERS.startswith(COLUMNS)  # the classic names stay as they are


class Termination(enum.Enum):
    """How a finished game ended."""

    WIN = "win"
    DRAW = "draw"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game: who won (None for a draw) and along which line
    (on another variant the line of ``k`` made; none in Notakto)."""

    termination: Termination
    winner: Mark | None = None
    line: tuple[Cell, ...] | None = None


def other(mark: Mark) -> Mark:
    """The opponent of ``mark``."""
    return "O" if mark == "X" else "X"


def cell_name(cell: Cell) -> str:
    """The a1..c3 name of a cell: column letter, then row number from the top."""
    check_cell(cell)
    return f"{COLUMNS[cell % 3]}{cell // 3 + 1}"


def check_cell(cell: object) -> Cell:
    """Return ``cell`` when it is an integer 0..8, else raise ``cell_out_of_range``."""
    if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell <= 8:
        raise RuleError("cell_out_of_range", f"cell must be an integer from 0 to 8, got {cell!r}")
    return cell


def parse_cell(text: str) -> Cell:
    """Read a cell as ``b2`` (column a-c, row 1-3 from the top) or ``row col`` (0-2 each)."""
    named = _CELL_NAME.match(text)
    if named:
        return (int(named.group(2)) - 1) * 3 + COLUMNS.index(named.group(1).lower())
    pair = _ROW_COL.match(text)
    if pair:
        return int(pair.group(1)) * 3 + int(pair.group(2))
    raise RuleError(
        "bad_cell", f"cannot read {text.strip()!r} as a cell: use a1..c3 or 'row col' with 0-2"
    )


def winner_of(cells: str) -> tuple[Mark, Line] | None:
    """The first completed line on a 9-character board and its owner, if any."""
    for line in LINES:
        a, b, c = line
        mark = cells[a]
        if mark != EMPTY and mark == cells[b] == cells[c]:
            return ("X" if mark == "X" else "O"), line
    return None


@functools.lru_cache(maxsize=8192)
def outcome_of(cells: str) -> Outcome | None:
    """How a game on these cells ended, or None while it goes on (remembered: a turn,
    a status and a snapshot each ask it of the same few thousand positions)."""
    won = winner_of(cells)
    if won:
        return Outcome(Termination.WIN, won[0], won[1])
    if EMPTY not in cells:
        return Outcome(Termination.DRAW)
    return None


@dataclass(frozen=True)
class Board:
    """An immutable, valid position. Build one with ``Board.parse``, ``Board()`` (today's
    board) or ``Board.empty(variant)``."""

    cells: str = EMPTY * 9
    variant: Variant = CLASSIC

    @classmethod
    def parse(cls, text: str) -> Board:
        """Read and validate a board's text form; ``-`` and space also mean empty."""
        if len(text) != 9:
            raise RuleError("bad_length", f"a board has 9 cells, got {len(text)}")
        bad = sorted({ch for ch in text if ch not in "XOxo" and ch not in _EMPTY_INPUT})
        if bad:
            raise RuleError(
                "bad_character", f"cells are X, O or . (or - or space), not {''.join(bad)!r}"
            )
        cells = "".join(EMPTY if ch in _EMPTY_INPUT else ch.upper() for ch in text)
        validate(cells)
        return cls(cells)

    @classmethod
    def empty(cls, variant: Variant = CLASSIC) -> Board:
        """The empty board of ``variant``."""
        return cls(str(Position.empty(variant)), variant)

    def __str__(self) -> str:
        return self.cells

    @property
    def classic(self) -> bool:
        """True on today's board (asked on every move: the named value is checked first)."""
        return self.variant is CLASSIC or self.variant == CLASSIC

    @property
    def position(self) -> Position:
        """The board as position.py's bit masks, for the search of any variant."""
        return position_of(self.variant, self.cells)

    @property
    def to_move(self) -> Mark:
        """The side to move: X when the counts are equal, else O (in Notakto, the first
        player when the number of marks is even)."""
        if self.variant is not CLASSIC and not self.classic:  # classic: one identity check
            return "X" if self.position.first_to_move else "O"
        return "X" if self.cells.count("X") == self.cells.count("O") else "O"

    @property
    def empties(self) -> int:
        """How many cells are still empty."""
        return self.cells.count(EMPTY)

    def legal_moves(self) -> list[Cell]:
        """Empty cells in reading order, or none once the game is over."""
        if self.variant is not CLASSIC and not self.classic:  # classic: one identity check
            return self.position.legal_moves()
        if self.is_over():
            return []
        return [i for i, ch in enumerate(self.cells) if ch == EMPTY]

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is still being played."""
        if self.variant is not CLASSIC and not self.classic:  # classic: one identity check
            return variant_outcome(self.variant, self.cells)
        return outcome_of(self.cells)

    def is_over(self) -> bool:
        """True once someone has a line or the board is full."""
        return self.outcome() is not None

    def apply_move(self, cell: object) -> Board:
        """The board after the side to move plays ``cell``."""
        if self.variant is not CLASSIC and not self.classic:  # classic: one identity check
            return Board(str(self.position.apply_move(cell)), self.variant)
        index = check_cell(cell)
        if self.is_over():
            raise RuleError("game_over", "the game is over: no more moves")
        if self.cells[index] != EMPTY:
            raise RuleError("cell_taken", f"{cell_name(index)} is already taken")
        return Board(self.cells[:index] + self.to_move + self.cells[index + 1 :])

    def rows(self) -> list[str]:
        """The rows of the board as text, top first (board after board)."""
        width = self.variant.columns
        flat = self.cells.replace("/", "")
        return [flat[start : start + width] for start in range(0, len(flat), width)]


@functools.lru_cache(maxsize=8192)
def position_of(variant: Variant, cells: str) -> Position:
    """The position of ``variant`` that ``cells`` writes (remembered, as ``outcome_of``)."""
    return Position.parse(variant, cells)


@functools.lru_cache(maxsize=8192)
def variant_outcome(variant: Variant, cells: str) -> Outcome | None:
    """How a game of ``variant`` on these cells ended, or None while it goes on.

    Whoever ends it by a line under misère, or by killing the last live board in Notakto,
    loses: the winner is then the side to move.
    """
    position = position_of(variant, cells)
    ending = position.ending()
    if ending is None:
        return None
    if ending is Ending.DRAW:
        return Outcome(Termination.DRAW)
    mover: Mark = "X" if position.first_to_move else "O"
    winner = mover if ending is Ending.MOVER_WON else other(mover)
    if variant.notakto:
        return Outcome(Termination.WIN, winner)
    last = position.o if position.first_to_move else position.x
    line = full_lines(variant, last)[0]
    return Outcome(Termination.WIN, winner, tuple(i for i in range(variant.cells) if line >> i & 1))


def validate(cells: str) -> None:
    """Raise a RuleError unless ``cells`` can arise in a game with X moving first."""
    x, o = cells.count("X"), cells.count("O")
    if x - o not in (0, 1):
        raise RuleError(
            "bad_counts", f"X moves first, so X has as many marks as O or one more ({x} X, {o} O)"
        )
    owners = {cells[line[0]] for line in LINES if cells[line[0]] != EMPTY and _full(cells, line)}
    if len(owners) == 2:
        raise RuleError("two_winners", "both sides cannot have a line")
    if owners:
        last_mover = "X" if x > o else "O"
        (owner,) = owners
        if owner != last_mover:
            raise RuleError(
                "wrong_winner",
                f"{owner} has a line but {last_mover} moved last: play stops at a win",
            )


def _full(cells: str, line: Line) -> bool:
    a, b, c = line
    return cells[a] == cells[b] == cells[c]
