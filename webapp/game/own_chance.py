"""A player's own chance of winning a match from where it stands: the exact odds of the
``skill:S`` player (webapp/game/odds.py) at their estimated skill (webapp/game/skill.py),
and the chances at the two ends of the estimate's interval, which bound it.

The chance at the interval's ends is the interval of the chance: under every preset it
rises with the skill (tests/test_own_chance.py walks S from 0 to 1), but not under every
rule set (where a draw costs the player more than a loss, a sharper player who draws
more can win less), so the ends are put in order, with the chance at the skill itself
between them. Three skills at most, so three walks of the match at most, each cached.

Below ``MIN_MOVES`` counted moves there is no estimate to use: no chance, and how many
more moves it takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .odds import MatchOdds, match_odds, skill_player
from .rules import Pause, Rules
from .skill import MIN_MOVES, SkillEstimate


@dataclass(frozen=True)
class OwnChance:
    """The chance of winning from here for a player of the ``skill`` estimate, with the
    lowest and highest of the chances at its interval's ends and at the skill itself;
    ``odds`` is None (and so are ``low`` and ``high``) when the skill is not measured."""

    skill: SkillEstimate
    odds: MatchOdds | None
    low: float | None
    high: float | None

    @property
    def more_moves(self) -> int:
        """How many more counted moves the estimate needs before it is used (0: none)."""
        return 0 if self.skill.measured else max(0, MIN_MOVES - self.skill.moves)

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the estimate, the chance and its interval, the odds at the skill."""
        return {
            "skill": self.skill.to_dict(),
            "chance": None if self.odds is None else self.odds.human_match_win_prob,
            "low": self.low,
            "high": self.high,
            "more_moves": self.more_moves,
            "odds": None if self.odds is None else self.odds.to_dict(),
        }


def own_chance(
    rules: Rules,
    estimate: SkillEstimate,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
    locked: int | None = None,
    pause: Pause | None = None,
) -> OwnChance:
    """The chance of a player of skill ``estimate`` in a match under ``rules`` from
    ``human_hp`` and ``ai_hp`` (``locked``: a difficulty kept), as ``match_odds`` walks it."""
    if not estimate.measured:
        return OwnChance(estimate, None, None, None)

    def chance_at(skill: float) -> MatchOdds:
        player = skill_player(round(skill, 2))
        return match_odds(rules, player, human_hp=human_hp, ai_hp=ai_hp, locked=locked, pause=pause)

    odds = chance_at(estimate.skill)
    ends = [chance_at(estimate.low), odds, chance_at(estimate.high)]
    chances = [found.human_match_win_prob for found in ends]
    return OwnChance(estimate, odds, min(chances), max(chances))
