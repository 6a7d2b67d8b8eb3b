"""A position of any variant as two bit masks, and its text form.

Bit ``i`` of ``x`` (of ``o``) is an X (an O) on the cell of index ``i``, board by board.
The text form is each board in reading order with ``X``, ``O`` and ``.``, boards
separated by ``/`` (``X.O.X..../........./.........``). X always moves first; in
Notakto both players place X, so the side to move follows from the number of marks.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .errors import RuleError
from .variant import Cell, Variant

EMPTY = "."
_EMPTY_INPUT = frozenset(".- ")


class Ending(enum.Enum):
    """How a finished position ended, for the side that would move next."""

    MOVER_WON = "win"
    DRAW = "draw"
    MOVER_LOST = "loss"


def board_mask(variant: Variant, marks: int, board: int) -> int:
    """One board's marks as a mask over that board's cells."""
    return (marks >> (board * variant.board_cells)) & ((1 << variant.board_cells) - 1)


def full_lines(variant: Variant, mask: int) -> list[int]:
    """The lines of ``k`` that ``mask`` (one board's marks) fills."""
    return [line for line in variant.lines if mask & line == line]


def is_dead(variant: Variant, mask: int) -> bool:
    """True when one board's marks hold ``k`` in a row (a dead board in Notakto)."""
    return any(mask & line == line for line in variant.lines)


@dataclass(frozen=True)
class Position:
    """An immutable, valid position of ``variant``; build one with ``parse`` or ``empty``."""

    variant: Variant
    x: int = 0
    o: int = 0

    @classmethod
    def empty(cls, variant: Variant) -> Position:
        """The start of a game."""
        return cls(variant)

    @classmethod
    def parse(cls, variant: Variant, text: str) -> Position:
        """Read and validate the text form; ``-`` and space also mean an empty cell."""
        parts = text.split("/")
        if len(parts) != variant.boards:
            raise RuleError(
                "bad_boards",
                f"{variant.name} has {variant.boards} board(s) separated by '/', got {len(parts)}",
            )
        x = o = 0
        for board, part in enumerate(parts):
            if len(part) != variant.board_cells:
                raise RuleError(
                    "bad_length", f"a board has {variant.board_cells} cells, got {len(part)}"
                )
            allowed = "Xx" if variant.notakto else "XOxo"
            bad = sorted({ch for ch in part if ch not in allowed and ch not in _EMPTY_INPUT})
            if bad:
                marks = "X" if variant.notakto else "X, O"
                raise RuleError(
                    "bad_character", f"cells are {marks} or . (or - or space), not {''.join(bad)!r}"
                )
            for place, ch in enumerate(part.upper()):
                bit = 1 << (board * variant.board_cells + place)
                x |= bit if ch == "X" else 0
                o |= bit if ch == "O" else 0
        position = cls(variant, x, o)
        position.validate()
        return position

    def __str__(self) -> str:
        n = self.variant.board_cells
        cells = [
            "X" if self.x >> i & 1 else "O" if self.o >> i & 1 else EMPTY
            for i in range(self.variant.cells)
        ]
        return "/".join("".join(cells[b * n : b * n + n]) for b in range(self.variant.boards))

    @property
    def stones(self) -> int:
        """How many marks are on the boards."""
        return self.x.bit_count() + self.o.bit_count()

    @property
    def first_to_move(self) -> bool:
        """True when the first player (X, in Notakto the one who opened) is to move."""
        return self.stones % 2 == 0

    @property
    def to_move(self) -> str:
        """The mark the side to move places: X or O (always X in Notakto)."""
        return "X" if self.variant.notakto or self.first_to_move else "O"

    def live_boards(self) -> list[int]:
        """The boards still played on (every board but Notakto's dead ones)."""
        boards = range(self.variant.boards)
        if not self.variant.notakto:
            return list(boards)
        return [b for b in boards if not is_dead(self.variant, board_mask(self.variant, self.x, b))]

    def dead_boards(self) -> list[int]:
        """Notakto's dead boards, on which no one plays (none on another variant)."""
        live = self.live_boards()
        return [b for b in range(self.variant.boards) if b not in live]

    def ending(self) -> Ending | None:
        """How the game ended for the side to move, or None while it goes on."""
        variant = self.variant
        if variant.notakto:
            return None if self.live_boards() else Ending.MOVER_WON
        last = self.o if self.first_to_move else self.x
        if is_dead(variant, last):
            return Ending.MOVER_WON if variant.misere else Ending.MOVER_LOST
        return Ending.DRAW if self.stones == variant.cells else None

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.ending() is not None

    def legal_moves(self) -> list[Cell]:
        """Empty cells of the live boards in index order, or none once the game is over."""
        if self.is_over():
            return []
        n = self.variant.board_cells
        taken = self.x | self.o
        return [
            board * n + place
            for board in self.live_boards()
            for place in range(n)
            if not taken >> (board * n + place) & 1
        ]

    def apply_move(self, cell: object) -> Position:
        """The position after the side to move plays ``cell``."""
        index = self.variant.check_cell(cell)
        if self.is_over():
            raise RuleError("game_over", "the game is over: no more moves")
        if (self.x | self.o) >> index & 1:
            raise RuleError("cell_taken", f"{self.variant.cell_name(index)} is already taken")
        if index not in self.legal_moves():
            raise RuleError("dead_board", f"{self.variant.cell_name(index)} is on a dead board")
        if self.to_move == "X":
            return Position(self.variant, self.x | 1 << index, self.o)
        return Position(self.variant, self.x, self.o | 1 << index)

    def validate(self) -> None:
        """Raise a RuleError unless this position can arise in a game of its variant."""
        variant = self.variant
        if variant.notakto:
            for board in range(variant.boards):
                _check_last_move(variant, board_mask(variant, self.x, board), "the board died")
            return
        x, o = self.x.bit_count(), self.o.bit_count()
        if x - o not in (0, 1):
            raise RuleError(
                "bad_counts",
                f"X moves first, so X has as many marks as O or one more ({x} X, {o} O)",
            )
        owners = [mark for mark, marks in (("X", self.x), ("O", self.o)) if is_dead(variant, marks)]
        if len(owners) == 2:
            raise RuleError("two_winners", "both sides cannot have a line")
        if owners:
            last_mover = "X" if x > o else "O"
            if owners[0] != last_mover:
                raise RuleError(
                    "wrong_winner",
                    f"{owners[0]} has a line but {last_mover} moved last: play stops at a line",
                )
            _check_last_move(variant, self.x if last_mover == "X" else self.o, "a line was made")


def _check_last_move(variant: Variant, mask: int, event: str) -> None:
    """Raise unless every full line of ``mask`` shares a cell: the move that ended it."""
    lines = full_lines(variant, mask)
    if lines and not _common(lines):
        raise RuleError("play_after_end", f"lines with no cell in common: play stops once {event}")


def _common(lines: list[int]) -> int:
    shared = -1
    for line in lines:
        shared &= line
    return shared
