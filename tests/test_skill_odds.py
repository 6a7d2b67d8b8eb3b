"""The skill:S player: its exact odds, the scripted players at the ends of its scale, and
a seeded simulation of it."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from fractions import Fraction

import pytest
from support.skill_play import one_game, one_match

from webapp.game.odds import (
    UnknownPlayer,
    game_odds,
    game_polynomials,
    match_odds,
    player_name,
    skill_player,
    skill_polynomials,
)
from webapp.game.rules import PRESETS, Rules, rules_from


def trimmed(poly: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    """The coefficients without the zeros of the highest powers."""
    found = list(poly)
    while found and found[-1] == 0:
        found.pop()
    return tuple(found)


@pytest.mark.parametrize(("end", "scripted"), [(0, "random"), (100, "perfect")])
def test_random_and_perfect_are_the_ends_of_the_skill_scale_exactly(
    end: int, scripted: str
) -> None:
    # The exact polynomials of the one walk in p and S, at S = 0 and S = 1, are those of
    # the walks of the random and perfect players, coefficient by coefficient.
    at_end = game_polynomials(f"skill:{end // 100}")
    walked = game_polynomials(scripted)
    assert [trimmed(poly) for poly in at_end] == [trimmed(poly) for poly in walked]
    assert any(c != 0 for c in walked[0])


@pytest.mark.parametrize(("skill", "scripted"), [("skill:0", "random"), ("skill:1", "perfect")])
def test_their_match_odds_are_the_same_floats(skill: str, scripted: str) -> None:
    for rules in (*PRESETS.values(), rules_from(start_human_hp=40, ai_win_human_damage=7)):
        assert match_odds(rules, skill).to_dict() == {
            **match_odds(rules, scripted).to_dict(),
            "player": skill,
        }


def test_the_exact_skill_polynomials_add_up_to_one() -> None:
    win, loss, draw = skill_polynomials(exact=True)
    rows = zip(win, loss, draw, strict=True)
    total = [[w + lo + d for w, lo, d in zip(*three, strict=True)] for three in rows]
    assert total[0][0] == 1
    assert all(c == 0 for i, row in enumerate(total) for j, c in enumerate(row) if i or j)


def test_more_skill_wins_more_games_and_matches() -> None:
    wins = [game_odds(skill_player(s / 10), 50).win for s in range(11)]
    assert wins == sorted(wins) and wins[0] < wins[-1]
    matches = [match_odds(PRESETS["classic"], skill_player(s / 10)) for s in range(11)]
    chances = [odds.human_match_win_prob for odds in matches]
    assert chances == sorted(chances)


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("skill:0.8", "skill:0.8"),
        ("skill:0.80", "skill:0.8"),
        ("skill:0.8049", "skill:0.8"),
        ("skill:0.806", "skill:0.81"),
        ("skill:1.0", "skill:1"),
        ("skill:0", "skill:0"),
        ("skill:1e-1", "skill:0.1"),
        ("perfect", "perfect"),
    ],
)
def test_a_skill_is_rounded_to_hundredths(name: str, canonical: str) -> None:
    assert player_name(name) == canonical
    assert match_odds(PRESETS["fair"], name).player == canonical


@pytest.mark.parametrize(
    "name", ["skill:", "skill:-0.1", "skill:1.01", "skill:nan", "skill:inf", "bob", "Skill:0.5"]
)
def test_other_players_are_refused(name: str) -> None:
    with pytest.raises(UnknownPlayer, match="skill:S"):
        player_name(name)


@pytest.mark.parametrize("skill", [-0.01, 1.5, float("nan"), True, "0.5", None])
def test_a_skill_out_of_range_is_refused(skill: object) -> None:
    with pytest.raises(UnknownPlayer):
        skill_player(skill)  # type: ignore[arg-type]


# Short matches, each with chances far from 0 and 1 for skills 0.5, 0.8 and 0.95.
SIMULATED: tuple[Rules, ...] = (
    rules_from(
        start_human_hp=40,
        start_ai_hp=30,
        ai_win_human_damage=20,
        draw_human_damage=10,
        draw_ai_damage=5,
    ),
    rules_from(
        max_hp=30,
        start_human_hp=30,
        start_ai_hp=20,
        human_win_ai_damage=5,
        ai_win_human_damage=10,
        draw_human_damage=3,
        human_win_human_heal=3,
    ),
    rules_from(
        start_ai_hp=50,
        ai_win_human_damage=25,
        draw_human_damage=5,
        draw_ai_damage=5,
        human_win_human_heal=0,
    ),
    rules_from(
        start_human_hp=60,
        start_ai_hp=60,
        human_win_ai_damage=20,
        ai_win_human_damage=30,
        draw_human_damage=15,
        draw_ai_damage=0,
    ),
    rules_from("brutal", start_ai_hp=40),
    rules_from(
        start_human_hp=20,
        human_win_ai_damage=34,
        draw_human_damage=2,
        draw_ai_damage=10,
        human_win_human_heal=0,
    ),
)
SKILLS = (50, 80, 95)
MATCHES = 300


def test_the_odds_of_a_skill_player_agree_with_a_simulation_of_it() -> None:
    # 6 rule sets x 3 skills, 300 seeded matches each. Each win rate is within 4
    # standard errors of the exact chance, and together their squared z-scores stay
    # under chi-square's 0.1% point for 18 degrees of freedom (42.3): a model off by a
    # few points in most of them would fail.
    rng = random.Random(33)
    squares = 0.0
    for rules in SIMULATED:
        for skill in SKILLS:
            exact = match_odds(rules, skill_player(skill / 100))
            played = [one_match(rules, skill, rng) for _ in range(MATCHES)]
            p = exact.human_match_win_prob
            assert 0.02 < p < 0.995, (rules, skill)  # a chance worth checking
            won = sum(w for w, _ in played) / MATCHES
            z = (won - p) / math.sqrt(p * (1 - p) / MATCHES)
            assert abs(z) < 4, (rules, skill, won, p)
            squares += z * z
            games = sum(g for _, g in played) / MATCHES
            assert abs(games - exact.expected_games) < 0.15 * exact.expected_games
    assert squares < 42.3


@pytest.mark.parametrize("skill", SKILLS)
def test_one_games_chances_agree_with_games_played(skill: int) -> None:
    rng = random.Random(skill)
    games = 3000
    for level in (0, 60):
        played = [one_game(skill, level, rng) for _ in range(games)]
        exact = game_odds(skill_player(skill / 100), level)
        for status, p in (("human_won", exact.win), ("draw", exact.draw)):
            share = played.count(status) / games
            assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / games) + 1e-9, (status, level)


def tictactoe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_odds_command_takes_a_skill_player() -> None:
    done = tictactoe("odds", "--player", "skill:0.8", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["player"] == "skill:0.8"
    exact = match_odds(PRESETS["classic"], "skill:0.8").human_match_win_prob
    assert answer["human_match_win_prob"] == exact
    assert 0.1 < exact < 0.5


def test_odds_command_refuses_a_skill_out_of_range() -> None:
    done = tictactoe("odds", "--player", "skill:1.5")
    assert done.returncode == 2
    assert "skill:S with S 0..1" in done.stderr and not done.stdout
