"""How well a player plays, from their own finished games: the S of the ``skill:S`` player
(webapp/game/odds.py) that their moves fit best, with an interval.

The model: at each move the player plays one of the engine's best moves with probability
S, and otherwise a uniformly random legal move, which may be a best one by luck. Only
positions where the choice mattered are counted: not those where every legal move is
among the best. At a counted position a random move finds a best one with chance
f = best moves / legal moves, so a best move is played with chance S + (1 - S) * f; with
K best moves among n counted, and F the sum of their f, the estimate is

    S = (K - F) / (n - F), clipped to 0..1,

where a plain share K / n would count lucky random moves as skill. Its interval is
Wilson's 95% score interval for the share of best moves K / n, mapped through the same
line (K = n * share) and clipped: exact for the mapping, and, the chances of a best move
varying from position to position, a little wider than it needs to be.

Counted are the player's moves in HP games (``"mode": "adaptive"``) on every variant,
each judged by its own board's best moves (``strategies.best_choices``): the model is the
same on every board, so one S serves the odds of each; a fixed mode has take-backs, and a
practice game starts from a mistake. A move made while hints were shown
(``"hinted": true`` in the record) says nothing about skill and is left out; games stored
before hints were recorded (history format 1) count all their moves. Below ``MIN_MOVES``
counted moves the estimate is too loose to use: ``DEFAULT_SKILL`` stands in, and the
result says so (``measured`` False).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import sqrt
from typing import Any

from .board import Board
from .history import Entry, kind_of, upgrade_entry, variant_of
from .strategies import best_choices

MIN_MOVES = 30
"""The fewest counted moves an estimate is used from: at 30 its interval is still about
0.3 wide, at 140 about 0.15."""
DEFAULT_SKILL = 0.5
"""The skill assumed below ``MIN_MOVES``: the middle of the scale."""
Z = 1.959964  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class Counted:
    """The moves that count toward a skill: how many (n), how many were best (K), the sum
    of the chances of a random move being best (F), and how many hinted ones were left out."""

    moves: int = 0
    best: int = 0
    luck: float = 0.0
    hinted: int = 0


@dataclass(frozen=True)
class SkillEstimate:
    """A player's skill S with its 95% interval, from ``moves`` counted moves; when not
    ``measured`` (too few moves), ``skill`` is ``DEFAULT_SKILL``."""

    skill: float
    low: float
    high: float
    moves: int
    hinted: int
    measured: bool

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the numbers, rounded to 0.01 as the skill players are."""
        return {
            "skill": round(self.skill, 2),
            "low": round(self.low, 2),
            "high": round(self.high, 2),
            "moves": self.moves,
            "hinted_left_out": self.hinted,
            "measured": self.measured,
            "min_moves": MIN_MOVES,
        }


def counted_moves(entries: Iterable[Entry]) -> Counted:
    """The player's counted moves in ``entries`` (history entries, any format)."""
    moves = best = hinted = 0
    luck = 0.0
    for entry in map(upgrade_entry, entries):
        record = entry["record"]
        if kind_of(entry) != "ai" or record["mode"] != "adaptive" or record.get("setup"):
            continue
        board = Board.empty(variant_of(entry))
        for move in record["moves"]:
            if move["by"] == "human":
                legal, top = board.legal_moves(), best_choices(board)
                if len(top) < len(legal):  # some move would have been a mistake
                    if move.get("hinted"):
                        hinted += 1
                    else:
                        moves += 1
                        best += move["cell"] in top
                        luck += len(top) / len(legal)
            board = board.apply_move(move["cell"])
    return Counted(moves, best, luck, hinted)


def estimate(counted: Counted) -> SkillEstimate:
    """The skill and its interval from the counted moves (see the module's words)."""
    n, k, f = counted.moves, counted.best, counted.luck
    if n == 0:
        return SkillEstimate(DEFAULT_SKILL, 0.0, 1.0, 0, counted.hinted, False)
    low, high = wilson(k, n)

    def skill(share: float) -> float:
        return min(1.0, max(0.0, (n * share - f) / (n - f)))

    measured = n >= MIN_MOVES
    found = skill(k / n) if measured else DEFAULT_SKILL
    return SkillEstimate(found, skill(low), skill(high), n, counted.hinted, measured)


def skill_from(entries: Iterable[Entry]) -> SkillEstimate:
    """The player's skill from their history entries."""
    return estimate(counted_moves(entries))


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """Wilson's 95% score interval for a share of ``successes`` in ``trials`` (> 0)."""
    share = successes / trials
    scale = 1 + Z * Z / trials
    middle = (share + Z * Z / (2 * trials)) / scale
    half = Z * sqrt(share * (1 - share) / trials + Z * Z / (4 * trials * trials)) / scale
    return max(0.0, middle - half), min(1.0, middle + half)
