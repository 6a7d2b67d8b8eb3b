"""One game's exact chances on a variant, from a pass over all its positions, ply by ply.

The classic odds walk the 3x3 tree position by position (odds.py); the other variants
have up to some millions of positions, so here they are arrays. Every position
reachable from the empty board is found once, ply by ply, as one int (``x | o << cells``
on a board of lines; in Notakto each board's 9 bits, a dead board as 511, since what
is on it no longer matters), with each legal move's next position as an index into the
next ply's sorted array. A pass back from the last ply then gives

- every position's perfect-play score for the side to move, as solver.py scores it
  (``BIG - p`` for a win in ``p`` plies, a loss the negative, a draw 0), and with it the
  best moves: the AI's perfect move is the lowest of them (``Solver.best_move``), the
  perfect player's is any of them, uniformly;
- the human's chances of a win and a loss (a draw is the rest), at a number of values
  of p (the AI's chance of a perfect move) at once, for one value of S (the player's).

Positions are not merged by symmetry: the AI's lowest-cell tie-break is not symmetric,
so merging them would not be exact. A game's chances are polynomials in p and S of
degree at most the number of moves each side makes, so their values at that many plus
one points of each are interpolated back to coefficients (Chebyshev points on [0, 1],
where the fit is well conditioned): the answer is exact up to float rounding.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .search_rules import BIG
from .variant import Variant

GOING, MOVER_WON, MOVER_LOST, DRAW = 0, 1, 2, 3
DEAD = 511


@dataclass
class Ply:
    """The positions after one number of plies, sorted, and what the pass needs of each."""

    keys: np.ndarray
    ends: np.ndarray
    """How a position ended for the side to move (``GOING`` while it goes on)."""
    children: np.ndarray
    """Per position and cell, the index of the next position in the next ply, or -1."""
    scores: np.ndarray | None = None
    best: np.ndarray | None = None
    """Per position and cell, True for a best move."""
    lowest: np.ndarray | None = None
    """Per position, the lowest best move (0 where the game has ended)."""


class Positions:
    """Every position of ``variant`` reachable from the empty board, ply by ply."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.cells = variant.cells
        self.lines = np.array(variant.lines, dtype=np.uint64)
        if variant.notakto:
            dead = np.zeros(512, dtype=bool)
            for mask in range(512):
                dead[mask] = any(mask & line == line for line in variant.lines)
            self.dead = dead
        self.plies: list[Ply] = []
        self._build()
        self._score()

    @property
    def count(self) -> int:
        """How many positions there are, counted once per ply they are reached at."""
        return sum(len(ply.keys) for ply in self.plies)

    @property
    def moves_each(self) -> int:
        """The most moves one side makes in a game: a polynomial's degree at most."""
        return len(self.plies) // 2  # the first player moves on plies 0, 2, ...; the last has none

    def _has_line(self, marks: np.ndarray) -> np.ndarray:
        found = np.zeros(len(marks), dtype=bool)
        for line in self.lines:
            found |= (marks & line) == line
        return found

    def _ends(self, keys: np.ndarray, ply: int) -> np.ndarray:
        ends = np.full(len(keys), GOING, dtype=np.int8)
        if ply == 0:
            return ends
        if self.variant.notakto:
            every = np.uint64((1 << self.cells) - 1)
            ends[keys == every] = MOVER_WON  # the last live board was killed by the other
            return ends
        n = np.uint64(self.cells)
        half = np.uint64((1 << self.cells) - 1)
        last = keys & half if ply % 2 else keys >> n  # X moved last after an odd ply
        made = self._has_line(last)
        ends[made] = MOVER_WON if self.variant.misere else MOVER_LOST
        ends[~made & (ply == self.cells)] = DRAW
        return ends

    def _next_keys(self, keys: np.ndarray, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """Each position's next position per cell, and whether the move is legal."""
        cells = self.cells
        bits = np.uint64(1) << np.arange(cells, dtype=np.uint64)
        if self.variant.notakto:
            taken = keys[:, None] & bits[None, :]
            legal = taken == 0
            board = np.arange(cells) // 9
            shift = (9 * board).astype(np.uint64)
            fields = (keys[:, None] >> shift[None, :]) & np.uint64(DEAD)
            grown = fields | (bits >> shift)[None, :]
            dies = self.dead[grown.astype(np.int64)]
            dead_field = np.uint64(DEAD) << shift
            nxt = np.where(dies, keys[:, None] | dead_field[None, :], keys[:, None] | bits[None, :])
            return nxt, legal
        n = np.uint64(cells)
        taken = (keys | keys >> n) & np.uint64((1 << cells) - 1)
        legal = (taken[:, None] & bits[None, :]) == 0
        placed = bits if ply % 2 == 0 else bits << n
        return keys[:, None] | placed[None, :], legal

    def _build(self) -> None:
        keys = np.zeros(1, dtype=np.uint64)
        ply = 0
        while len(keys):
            ends = self._ends(keys, ply)
            nxt, legal = self._next_keys(keys, ply)
            legal &= (ends == GOING)[:, None]
            following = np.unique(nxt[legal])
            children = np.full(nxt.shape, -1, dtype=np.int32)
            children[legal] = np.searchsorted(following, nxt[legal]).astype(np.int32)
            self.plies.append(Ply(keys, ends, children))
            keys, ply = following, ply + 1

    def _score(self) -> None:
        """Every position's score for the side to move, and its best moves."""
        after: np.ndarray | None = None
        for ply in reversed(self.plies):
            scores = np.zeros(len(ply.keys), dtype=np.int32)
            scores[ply.ends == MOVER_WON] = BIG
            scores[ply.ends == MOVER_LOST] = -BIG
            going = ply.ends == GOING
            if after is not None and going.any():
                legal = ply.children >= 0
                child = after[np.maximum(ply.children, 0)]
                mine = -(child - np.sign(child))  # -farther(child)
                mine = np.where(legal, mine, -2 * BIG)
                top = mine.max(axis=1)
                scores[going] = top[going]
                ply.best = legal & (mine == top[:, None])
                ply.lowest = np.argmax(ply.best, axis=1)
            ply.scores = scores
            after = scores

    def chances(self, human_first: bool, skill: float, ps: np.ndarray) -> np.ndarray:
        """The human's chances of a win and a loss from the empty board, at each AI
        chance in ``ps``, for the player of skill ``skill``: shape (2, len(ps))."""
        after: np.ndarray | None = None
        for number in range(len(self.plies) - 1, -1, -1):
            ply = self.plies[number]
            human_moves = (number % 2 == 0) == human_first
            values = np.zeros((len(ply.keys), 2, len(ps)))
            # At an end: the side to move won, lost or drew; is that side the human?
            won = MOVER_WON if human_moves else MOVER_LOST
            values[ply.ends == won, 0, :] = 1.0
            values[ply.ends == (MOVER_LOST if human_moves else MOVER_WON), 1, :] = 1.0
            going = np.nonzero(ply.ends == GOING)[0]
            if after is not None and len(going):
                values[going] = self._mix(ply, going, after, human_moves, skill, ps)
            after = values
        assert after is not None
        root: np.ndarray = after[0]
        return root

    def _mix(
        self,
        ply: Ply,
        going: np.ndarray,
        after: np.ndarray,
        human_moves: bool,
        skill: float,
        ps: np.ndarray,
    ) -> np.ndarray:
        """The going positions' chances: a perfect move with chance S (the human) or p
        (the AI), else a random one."""
        assert ply.best is not None and ply.lowest is not None
        children = ply.children[going]
        best = ply.best[going]
        chance = np.zeros((len(going), 2, len(ps)))
        perfect = np.zeros_like(chance)
        for cell in range(self.cells):
            legal = children[:, cell] >= 0
            rows = np.nonzero(legal)[0]
            child = after[children[rows, cell]]
            chance[rows] += child
            if human_moves:
                on = best[rows, cell]
                perfect[rows[on]] += child[on]
        chance /= (children >= 0).sum(axis=1)[:, None, None]
        if human_moves:
            perfect /= best.sum(axis=1)[:, None, None]
            return skill * perfect + (1 - skill) * chance
        lowest = ply.lowest[going]
        perfect = after[children[np.arange(len(going)), lowest]]
        mixed: np.ndarray = ps[None, None, :] * perfect + (1 - ps[None, None, :]) * chance
        return mixed


def nodes(degree: int) -> np.ndarray:
    """``degree + 1`` Chebyshev points on [0, 1]."""
    k = np.arange(degree + 1)
    return np.sort(0.5 - 0.5 * np.cos((2 * k + 1) * np.pi / (2 * degree + 2)))


def skill_column(positions: Positions, skill: float) -> np.ndarray:
    """One game's (win, loss) for the player of skill ``skill``, either side starting
    with chance 1/2, at every Chebyshev point of p: shape (2, d + 1)."""
    points = nodes(positions.moves_each)
    both = positions.chances(True, skill, points) + positions.chances(False, skill, points)
    column: np.ndarray = both / 2
    return column


def skill_coefficients(
    positions: Positions,
    columns: Callable[[Iterable[float]], Iterable[np.ndarray]] | None = None,
) -> np.ndarray:
    """One game's (win, loss, draw) for the skill player in p and S, either side
    starting with chance 1/2: shape (3, d + 1, d + 1), [result, i, j] the coefficient of
    p**i * S**j, d the most moves a side makes. ``columns`` maps the skill points to
    their ``skill_column`` (in turn by default; ``bench/variant_chances.py`` shares them
    among processes)."""
    degree = positions.moves_each
    points = nodes(degree)
    if columns is None:
        found = [skill_column(positions, float(skill)) for skill in points]
    else:
        found = list(columns(float(skill) for skill in points))
    grid = np.stack(found, axis=2)  # [result, p point, S point]
    vandermonde = np.vander(points, degree + 1, increasing=True)
    # Values = V @ C @ V.T, so C = V^-1 @ values @ V^-T, for the win and the loss.
    inverse = np.linalg.inv(vandermonde)
    win, loss = (inverse @ grid[r] @ inverse.T for r in range(2))
    draw = -win - loss
    draw[0, 0] += 1.0
    return np.stack([win, loss, draw])


TABLE = Path(__file__).with_name("variant_chances.json")
"""The shipped coefficients of every variant but classic (whose tree odds.py walks)."""


def table_entry(variant: Variant) -> dict[str, Any]:
    """One variant's entry of the table: its coefficients and how many positions."""
    positions = Positions(variant)
    return entry_of(positions, skill_coefficients(positions))


def entry_of(positions: Positions, found: np.ndarray) -> dict[str, Any]:
    """The table's entry for ``positions`` with their coefficients ``found``."""
    return {
        "positions": positions.count,
        "score": int(positions.plies[0].scores[0]),  # type: ignore[index]
        "win": found[0].tolist(),
        "loss": found[1].tolist(),
        "draw": found[2].tolist(),
    }


@cache
def shipped() -> dict[str, Any]:
    """The table as shipped (``bench/variant_chances.py`` writes it)."""
    loaded: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return loaded
