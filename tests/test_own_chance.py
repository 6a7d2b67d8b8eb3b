"""A player's own chance from where the match stands: the exact odds at their estimated
skill, and the chances at its interval's ends, in order."""

from __future__ import annotations

import pytest

from webapp.game.odds import match_odds
from webapp.game.own_chance import own_chance
from webapp.game.rules import PRESETS, Rules
from webapp.game.skill import MIN_MOVES, SkillEstimate

# Rules under which a sharper player wins less from 0.70 to 0.85: a draw costs the
# player 8 HP, a loss only 3, and the sharper one draws more.
DRAWS_HURT = Rules(
    start_human_hp=8,
    start_ai_hp=4,
    max_hp=10,
    human_win_ai_damage=7,
    human_win_human_heal=6,
    ai_win_human_damage=3,
    draw_ai_damage=5,
    draw_human_damage=8,
)


def measured(skill: float, low: float, high: float, moves: int = 120) -> SkillEstimate:
    """A measured estimate of ``skill`` with its interval."""
    return SkillEstimate(skill, low, high, moves, 0, True)


def win(rules: Rules, skill: float, **position: int) -> float:
    """The skill player's chance, as the odds give it."""
    return match_odds(rules, f"skill:{skill:g}", **position).human_match_win_prob


def test_the_chance_is_the_skill_players_from_the_matchs_position() -> None:
    rules = PRESETS["classic"]
    found = own_chance(rules, measured(0.62, 0.48, 0.75), human_hp=60, ai_hp=30, locked=None)
    expected = match_odds(rules, "skill:0.62", human_hp=60, ai_hp=30)
    assert found.odds == expected
    assert found.low == win(rules, 0.48, human_hp=60, ai_hp=30)
    assert found.high == win(rules, 0.75, human_hp=60, ai_hp=30)
    assert found.low < expected.human_match_win_prob < found.high
    answer = found.to_dict()
    assert answer["chance"] == expected.human_match_win_prob
    assert answer["odds"] == expected.to_dict() and answer["more_moves"] == 0
    assert answer["skill"]["skill"] == 0.62 and answer["skill"]["measured"] is True


def test_a_locked_difficulty_is_the_matchs_own() -> None:
    rules = PRESETS["classic"]
    found = own_chance(rules, measured(0.8, 0.7, 0.9), human_hp=50, ai_hp=40, locked=60)
    expected = match_odds(rules, "skill:0.8", human_hp=50, ai_hp=40, locked=60)
    assert found.odds == expected


def test_the_skill_is_the_one_shown_rounded_to_hundredths() -> None:
    found = own_chance(PRESETS["fair"], measured(0.6251, 0.5049, 0.7449))
    assert found.odds is not None and found.odds.player == "skill:0.63"
    assert found.low == win(PRESETS["fair"], 0.5) and found.high == win(PRESETS["fair"], 0.74)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_under_every_preset_the_chance_rises_with_the_skill(preset: str) -> None:
    # What makes the chances at the interval's ends its bounds under the presets.
    for position in ({}, {"human_hp": 30, "ai_hp": 90}, {"human_hp": 60, "ai_hp": 30}):
        chances = [win(PRESETS[preset], s / 100, **position) for s in range(101)]
        assert chances == sorted(chances), position


def test_where_the_chance_falls_with_the_skill_its_ends_are_put_in_order() -> None:
    at = {s: win(DRAWS_HURT, s) for s in (0.7, 0.75, 0.85)}
    assert at[0.7] > at[0.75] > at[0.85]
    found = own_chance(DRAWS_HURT, measured(0.75, 0.7, 0.85))
    assert (found.low, found.high) == (at[0.85], at[0.7])
    assert found.odds is not None and found.odds.human_match_win_prob == at[0.75]


@pytest.mark.parametrize("moves", [0, 1, MIN_MOVES - 1])
def test_too_few_moves_give_no_chance_and_say_how_many_more(moves: int) -> None:
    estimate = SkillEstimate(0.5, 0.0, 1.0, moves, 2, False)
    found = own_chance(PRESETS["classic"], estimate, human_hp=60, ai_hp=30)
    assert found.odds is None and found.low is None and found.high is None
    assert found.more_moves == MIN_MOVES - moves
    answer = found.to_dict()
    assert answer["chance"] is None and answer["odds"] is None
    assert answer["more_moves"] == MIN_MOVES - moves and answer["skill"]["measured"] is False
