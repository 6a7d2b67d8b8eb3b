"""Rules for a chance asked for: the HP rules under which a player wins a match with the
chance they want, as near as the rules allow.

Two numbers change, what a loss and a draw cost the player (``ai_win_human_damage`` and
``draw_human_damage``); the others stay the base rules' (classic), so the match is a
real HP match whose difficulty follows the AI's HP. Their bounds are ``LOSS_DAMAGE``
and ``DRAW_DAMAGE``: from 3 (a loss) and 0 (a draw), the least that keep every classic
match within ``MAX_GAMES`` games (a test checks every pair of the bounds is accepted),
up to the classic maximum HP, 100, where one loss or one draw ends the match.

A draw never costs more than a loss: rules that did would pay a player to lose on
purpose when a game heads for a draw. So the loss's cost is at least the draw's.

The chance of winning falls as either cost rises, so the search is a few bisections.
The draw's cost is kept at the base rules' (10) when the loss's cost alone, from 10 up,
can reach the target; otherwise it moves, as little as it must (down with the least loss
it allows, up with the greatest), and the loss's cost is bisected at it. Around the
draw's cost found, its neighbours are tried too while the chance found is more than
``CLOSE`` from the target: the steps of one number can be coarse. A target outside the
chances the bounds allow is answered with the nearest of them, and says so
(``reachable`` False).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .odds import MatchOdds, hundredths, match_odds, player_name, worked_out
from .rules import PRESETS, Pause, Rules, no_pause, rules_from
from .variant import CLASSIC, Variant

LOSS_DAMAGE = range(3, 101)
DRAW_DAMAGE = range(0, 101)
CLOSE = 0.005  # a chance this near the target ends the search
NEIGHBOURS = 3  # the draw's costs tried on either side of the one found


class TuneError(ValueError):
    """A target that is not a chance."""

    code = "bad_setting"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Tuned:
    """The rules found for ``target`` and their exact odds; ``low`` and ``high`` are the
    least and most the bounds allow, and ``reachable`` whether the target is within them."""

    target: float
    odds: MatchOdds
    low: float
    high: float

    @property
    def rules(self) -> Rules:
        """The rules found."""
        return self.odds.rules

    @property
    def chance(self) -> float:
        """The player's chance of winning a match under them."""
        return self.odds.human_match_win_prob

    @property
    def reachable(self) -> bool:
        """Whether some rules within the bounds give the target."""
        return self.low <= self.target <= self.high

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the target, the chance found, the reach, and the odds with the rules."""
        return {
            "target": self.target,
            "player": self.odds.player,
            "chance": self.chance,
            "reachable": self.reachable,
            "reach": {"low": self.low, "high": self.high},
            "changed": {
                "ai_win_human_damage": self.rules.ai_win_human_damage,
                "draw_human_damage": self.rules.draw_human_damage,
            },
            "odds": self.odds.to_dict(),
        }


Point = tuple[int, int]  # (loss damage, draw damage)


def tune(
    target: float, player: str, *, pause: Pause = no_pause, variant: Variant = CLASSIC
) -> Tuned:
    """The rules on ``variant`` that give ``player`` (a name ``player_name`` takes, as
    ``skill:0.8``) the chance ``target`` (0..1, rounded to 0.01) of winning a match, or
    the nearest the bounds allow. Answers are cached by target, player and variant."""
    if isinstance(target, bool) or not isinstance(target, int | float) or not 0 <= target <= 1:
        raise TuneError(f"a target must be a chance from 0 to 1, got {target!r}")
    name = player_name(player)
    scaled = hundredths(name) is not None  # the heuristic is refused by the odds
    if variant != CLASSIC and scaled and not worked_out(variant.name, name):
        raise TuneError(
            f"a tune needs exact odds, and the {name} player's on {variant.name} are simulated:"
            " ask for the random or the perfect player"
        )
    return _tune(round(target * 100) / 100, name, pause, variant)


@lru_cache(maxsize=1024)
def _tune(target: float, name: str, pause: Pause, variant: Variant) -> Tuned:
    base = dataclasses.replace(PRESETS["classic"], variant=variant)
    found: dict[Point, MatchOdds] = {}

    def odds(point: Point) -> MatchOdds:
        if point not in found:
            rules = dataclasses.replace(
                base, ai_win_human_damage=point[0], draw_human_damage=point[1]
            )
            found[point] = match_odds(rules, name, pause=pause)
        return found[point]

    def chance(point: Point) -> float:
        return odds(point).human_match_win_prob

    easiest, hardest = (LOSS_DAMAGE[0], DRAW_DAMAGE[0]), (LOSS_DAMAGE[-1], DRAW_DAMAGE[-1])
    high, low = chance(easiest), chance(hardest)
    if target >= high or target <= low:
        best = easiest if target >= high else hardest
    else:
        draw = _draw_damage(target, base.draw_human_damage, chance)
        best = _nearest(target, draw, chance)
        for step in range(1, NEIGHBOURS + 1):
            for near in (draw - step, draw + step):
                if abs(chance(best) - target) > CLOSE and near in DRAW_DAMAGE:
                    best = min(best, _nearest(target, near, chance), key=_by(target, chance))
    rules = rules_from(
        ai_win_human_damage=best[0], draw_human_damage=best[1], pause=pause, variant=variant
    )
    return Tuned(target, match_odds(rules, name, pause=pause), low, high)


def _by(target: float, chance: Callable[[Point], float]) -> Callable[[Point], float]:
    return lambda point: abs(chance(point) - target)


def _losses(draw: int) -> range:
    """The loss's costs allowed beside a draw's cost of ``draw``: never less than it."""
    return range(max(LOSS_DAMAGE[0], draw), LOSS_DAMAGE[-1] + 1)


def _draw_damage(target: float, start: int, chance: Callable[[Point], float]) -> int:
    """The draw's cost nearest ``start`` at which some loss's cost allowed gives ``target``."""

    def easiest(draw: int) -> float:
        return chance((_losses(draw)[0], draw))

    def hardest(draw: int) -> float:
        return chance((_losses(draw)[-1], draw))

    if easiest(start) < target:  # too hard even at the least loss: draws cost less
        return _last(range(DRAW_DAMAGE[0], start), lambda d: easiest(d) >= target)
    if hardest(start) > target:  # too easy even at the most: draws cost more
        return _first(range(start + 1, DRAW_DAMAGE[-1] + 1), lambda d: hardest(d) <= target)
    return start


def _nearest(target: float, draw: int, chance: Callable[[Point], float]) -> Point:
    """The loss's cost allowed at draw cost ``draw`` whose chance is nearest ``target``."""
    losses = _losses(draw)
    above = _last(losses, lambda loss: chance((loss, draw)) >= target)
    if above == losses[-1]:
        return (above, draw)
    return min((above, draw), (above + 1, draw), key=_by(target, chance))


def _last(values: range, holds: Callable[[int], bool]) -> int:
    """The last of ``values`` for which ``holds`` (true up to some point, then false);
    the first value if it holds for none."""
    lo, hi = 0, len(values) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if holds(values[mid]):
            lo = mid
        else:
            hi = mid - 1
    return values[lo]


def _first(values: range, holds: Callable[[int], bool]) -> int:
    """The first of ``values`` for which ``holds`` (false up to some point, then true);
    the last value if it holds for none."""
    lo, hi = 0, len(values) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(values[mid]):
            hi = mid
        else:
            lo = mid + 1
    return values[lo]
