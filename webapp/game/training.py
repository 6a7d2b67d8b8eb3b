"""Training: a player's own mistakes as cards, and puzzles from proven positions.

A *card* is one mistake or blunder the player made in a stored game of any variant (the
review's verdict, webapp/game/review.py, by the variant's solver off the classic board):
the position they faced (in the notation: 9 cells, 16 on 4x4, ``/`` between Notakto's
boards), the move they played there, and every best cell (each move that kept the best
value). A card is passed when the move given is among its best cells. The same slip
made from the same position in two games is one card: its key names the variant, the
position and the move.

A *puzzle* is a position proven by the engine, with a theme and its answer (every cell
that solves it), found in every reachable position of the classic board up to its
eight symmetries:

- ``win_in_1``, ``win_in_2``, ``win_in_3``: the side to move wins in that many of its own
  moves at best; the answer is every move that wins that fast;
- ``only_draw``: a draw, and exactly one move keeps it;
- ``stop_fork``: a draw with no line to block yet, where some move loses to a fork; the
  answer is every move that keeps the draw.

On the larger variants (no ``stop_fork``), ``variant_puzzles`` finds at most 200 a theme
from random games, each proved by the variant's solver; bench/puzzles.py writes them to
puzzles.json, which is shipped and served (``puzzles_on``).

When a card comes back is the schedule's business (services/training.py, with the clock);
this module has none. The streak and the chart's days are counted here from day numbers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from . import engine
from .board import Board, Cell, cell_name, winner_of
from .engine import Result
from .history import variant_of
from .position import Position
from .review import judge
from .solver import Solver
from .variant import Variant, variant_named

CLASSIC = "classic"
THEMES = ("win_in_1", "win_in_2", "win_in_3", "only_draw", "stop_fork")
PUZZLES_FILE = Path(__file__).resolve().parent / "puzzles.json"
ANSWERS_KEPT = 1000  # each player's newest answers kept: the chart and the streak need fewer


def _position(key: str, variant: str, board: str) -> dict[str, Any]:
    """What a card and a puzzle both send of their position: its name, its variant, the
    board in the notation and who is to move there."""
    return {
        "key": key,
        "variant": variant,
        "board": board,
        "to_move": Board(board, variant_named(variant)).to_move,
    }


@dataclass(frozen=True)
class Card:
    """One of the player's slips: the position (``board``), the move played and the best
    cells, with the game and ply it came from."""

    board: str
    played: Cell
    best: tuple[Cell, ...]
    verdict: str
    game: str
    ply: int
    variant: str = CLASSIC

    @property
    def key(self) -> str:
        """The card's name: the variant, the position and the move."""
        return f"{self.variant}:{self.board}:{self.played}"

    def passes(self, cell: Cell) -> bool:
        """Whether ``cell`` is among the best cells."""
        return cell in self.best

    def to_dict(self) -> dict[str, Any]:
        """The stored and sent form."""
        return {
            **_position(self.key, self.variant, self.board),
            "played": self.played,
            "best": list(self.best),
            "verdict": self.verdict,
            "game": self.game,
            "ply": self.ply,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Card:
        """The card of ``to_dict``'s form."""
        return cls(
            str(data["board"]),
            int(data["played"]),
            tuple(int(cell) for cell in data["best"]),
            str(data["verdict"]),
            str(data["game"]),
            int(data["ply"]),
            str(data.get("variant", CLASSIC)),
        )


def cards_from(entry: dict[str, Any]) -> list[Card]:
    """Every mistake and blunder the player made in one stored game of any variant, as
    cards, judged by the review (the variant's solver off the classic board)."""
    record, variant = entry["record"], variant_of(entry)
    board = Board.empty(variant)
    for cell in record.get("setup", []):
        board = board.apply_move(cell)
    found = []
    for ply, move in enumerate(record["moves"]):
        cell = int(move["cell"])
        if move["by"] == "human":
            judged = judge(board, cell)
            if judged.gave_away:
                found.append(
                    Card(
                        board.cells,
                        cell,
                        judged.best_cells,
                        judged.verdict,
                        entry["id"],
                        ply,
                        variant.name,
                    )
                )
        board = board.apply_move(cell)
    return found


def cards_of(entries: Iterable[dict[str, Any]]) -> dict[str, Card]:
    """The cards of many games by key, the newest game's first (one card a slip)."""
    found: dict[str, Card] = {}
    for entry in entries:
        for card in cards_from(entry):
            found.setdefault(card.key, card)
    return found


@dataclass(frozen=True)
class Puzzle:
    """A proven position: its theme, the side to move and every cell that solves it."""

    board: str
    theme: str
    answer: tuple[Cell, ...]
    variant: str = CLASSIC

    @property
    def key(self) -> str:
        """The puzzle's name: its variant and position."""
        return f"{self.variant}:{self.board}"

    def to_dict(self) -> dict[str, Any]:
        """The sent form (its answer is not sent to the page before it is solved)."""
        return {
            **_position(self.key, self.variant, self.board),
            "theme": self.theme,
            **drawn(self.variant, self.board),
        }


def drawn(variant: str, board: str) -> dict[str, Any]:
    """How the page draws a card's or a puzzle's board: its shape (rows, columns and
    boards) and, in Notakto, the boards already dead."""
    shape = variant_named(variant)
    dead: list[int] = []
    if shape.notakto:
        live = Board(board, shape).position.live_boards()
        dead = [b for b in range(shape.boards) if b not in live]
    return {"rows": shape.rows, "columns": shape.columns, "boards": shape.boards, "dead": dead}


_SYMMETRIES = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8),
    (6, 3, 0, 7, 4, 1, 8, 5, 2),
    (8, 7, 6, 5, 4, 3, 2, 1, 0),
    (2, 5, 8, 1, 4, 7, 0, 3, 6),
    (2, 1, 0, 5, 4, 3, 8, 7, 6),
    (6, 7, 8, 3, 4, 5, 0, 1, 2),
    (0, 3, 6, 1, 4, 7, 2, 5, 8),
    (8, 5, 2, 7, 4, 1, 6, 3, 0),
)


def canonical(cells: str) -> str:
    """The least of the board's eight rotations and reflections."""
    return min("".join(cells[i] for i in order) for order in _SYMMETRIES)


def _threatened(cells: str, mark: str) -> bool:
    """Whether ``mark`` would complete a line with its next move."""
    return any(
        winner_of(cells[:i] + mark + cells[i + 1 :]) is not None
        for i, here in enumerate(cells)
        if here == "."
    )


def _themed(
    value: Any, moves: dict[Cell, Any], *, no_threat: bool
) -> tuple[str, tuple[Cell, ...]] | None:
    """The theme and answer of a position from its value and its moves' values (each
    with ``result`` and ``plies``, the engine's or the solver's); None if it makes none
    (nor does a position with a single move left, or one where every move wins as fast:
    no move there is wrong)."""
    if len(moves) < 2:
        return None
    if value.result is Result.WIN:
        fastest = tuple(
            c for c, v in moves.items() if v.result is Result.WIN and v.plies == value.plies
        )
        wins_in = (value.plies + 1) // 2
        return (
            (f"win_in_{wins_in}", fastest) if wins_in <= 3 and len(fastest) < len(moves) else None
        )
    if value.result is not Result.DRAW:
        return None
    drawing = tuple(cell for cell, v in moves.items() if v.result is Result.DRAW)
    if len(drawing) == 1:
        return "only_draw", drawing
    if no_threat and len(drawing) < len(moves):
        return "stop_fork", drawing
    return None


def theme_of(board: Board) -> tuple[str, tuple[Cell, ...]] | None:
    """The puzzle a classic ``board`` makes, and its answer; None if it makes none."""
    if board.is_over():
        return None
    analysis = engine.analyse(board)
    opponent = "O" if board.to_move == "X" else "X"
    return _themed(analysis.value, analysis.moves, no_threat=not _threatened(board.cells, opponent))


@cache
def puzzles() -> tuple[Puzzle, ...]:
    """Every puzzle of the classic board: one from each reachable position up to symmetry
    that makes one, in a fixed order."""
    found: dict[str, Puzzle] = {}
    for cells in sorted(engine.solved()):
        if canonical(cells) != cells or cells in found:
            continue
        made = theme_of(Board(cells))
        if made is not None:
            found[cells] = Puzzle(cells, made[0], made[1])
    return tuple(found.values())


@cache
def shipped_puzzles() -> dict[str, tuple[Puzzle, ...]]:
    """The larger variants' puzzles, by variant: found once by bench/puzzles.py (each
    proved by the variant's solver) and shipped in puzzles.json, as finding them takes
    too long for a process to do as it starts."""
    stored = json.loads(PUZZLES_FILE.read_text())["puzzles"]
    return {
        name: tuple(Puzzle(board, theme, tuple(answer), name) for board, theme, answer in rows)
        for name, rows in stored.items()
    }


def puzzles_on(variant: str) -> tuple[Puzzle, ...]:
    """The puzzles of one variant: the classic board's, or the shipped ones (none for a
    name that is no variant's)."""
    return puzzles() if variant == CLASSIC else shipped_puzzles().get(variant, ())


@cache
def puzzle_named(key: str) -> Puzzle | None:
    """The puzzle of that key (``<variant>:<position>``), or None."""
    variant = key.split(":", 1)[0]
    return {puzzle.key: puzzle for puzzle in puzzles_on(variant)}.get(key)


def cells_named(cells: Iterable[Cell]) -> list[str]:
    """The cells' a1..c3 names."""
    return [cell_name(cell) for cell in cells]


def streak(days: Iterable[int], today: int) -> int:
    """How many days in a row, up to today (or yesterday, if none yet today), the player
    trained: ``days`` are the day numbers of their answers."""
    trained = set(days)
    day = today if today in trained else today - 1
    count = 0
    while day in trained and count <= len(trained):
        count += 1
        day -= 1
    return count


def by_day(answers: Iterable[tuple[int, bool]], today: int, span: int) -> list[dict[str, int]]:
    """The chart's bars: for each of the last ``span`` days (oldest first), the cards
    passed and failed on it, from ``(day, passed)`` pairs."""
    bars = {
        day: {"day": day, "passed": 0, "failed": 0} for day in range(today - span + 1, today + 1)
    }
    for day, passed in answers:
        if day in bars:
            bars[day]["passed" if passed else "failed"] += 1
    return list(bars.values())


def themed(theme: str) -> Iterator[Puzzle]:
    """The puzzles of one theme."""
    return (puzzle for puzzle in puzzles() if puzzle.theme == theme)


VARIANT_THEMES = ("win_in_1", "win_in_2", "win_in_3", "only_draw")


def variant_puzzles(
    variant: Variant,
    rng: random.Random,
    *,
    per_theme: int = 200,
    playouts: int = 5000,
    min_stones: int = 0,
) -> tuple[Puzzle, ...]:
    """Puzzles of a larger variant, proven by its solver, at most ``per_theme`` a theme
    (``stop_fork`` is the classic board's alone): from the positions of ``playouts``
    random games at most, each position once, those with at least ``min_stones`` marks
    (the first positions of 4x4k4 take minutes to solve without its book)."""
    solver = Solver(variant)
    found: dict[str, Puzzle] = {}
    counts = dict.fromkeys(VARIANT_THEMES, 0)
    for _ in range(playouts):
        if min(counts.values()) >= per_theme:
            break
        position = Position.empty(variant)
        while not position.is_over():
            if position.stones >= min_stones and str(position) not in found:
                analysis = solver.analyse(position)
                made = _themed(analysis.value, analysis.moves, no_threat=False)
                if made and counts[made[0]] < per_theme:
                    counts[made[0]] += 1
                    found[str(position)] = Puzzle(str(position), *made, variant.name)
            position = position.apply_move(rng.choice(position.legal_moves()))
    return tuple(found.values())
