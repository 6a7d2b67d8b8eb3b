"""The exact odds of a match: one game from the game tree, the match over HP, the presets."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from webapp.cli.report import percent
from webapp.game.game import Status
from webapp.game.match import difficulty, hp_after_game
from webapp.game.odds import PLAYERS, game_odds, game_polynomials, match_odds
from webapp.game.rules import (
    MAX_GAMES,
    MAX_STATES,
    PRESETS,
    RULE_FIELDS,
    MatchError,
    RuleField,
    Rules,
    count_states,
    longest_match,
    rules_from,
)
from webapp.game.simulation import simulate


def at(poly: tuple[Fraction, ...], p: Fraction) -> Fraction:
    return sum((c * p**k for k, c in enumerate(poly)), Fraction(0))


def test_random_against_random_gives_the_known_exact_results() -> None:
    # Both sides random: X wins 737/1260, O 121/420, draws 8/63; either side is X half
    # the time. At difficulty 0 the AI moves at random too.
    win, loss, draw = (at(poly, Fraction(0)) for poly in game_polynomials("random"))
    assert win == loss == (Fraction(737, 1260) + Fraction(121, 420)) / 2
    assert draw == Fraction(8, 63)


@pytest.mark.parametrize("player", PLAYERS)
def test_one_games_chances_add_up_to_one_at_every_difficulty(player: str) -> None:
    win, loss, draw = game_polynomials(player)
    for level in (0, 1, 37, 99, 100):
        p = Fraction(level, 100)
        assert at(win, p) + at(loss, p) + at(draw, p) == 1


def test_a_perfect_player_never_loses_and_never_beats_a_perfect_ai() -> None:
    win, loss, draw = game_polynomials("perfect")
    assert all(c == 0 for c in loss)
    assert at(win, Fraction(1)) == 0 and at(draw, Fraction(1)) == 1
    assert game_odds("perfect", 0).win > 0.8


def test_the_classic_match_for_a_perfect_player() -> None:
    odds = match_odds(Rules(), "perfect")
    assert round(odds.human_match_win_prob, 4) == 0.8474
    assert round(odds.expected_games, 2) == 17.06
    assert odds.games_quantiles == {"50": 18, "90": 20, "99": 22}


def test_a_match_under_way_and_a_locked_difficulty() -> None:
    fresh = match_odds(Rules(), "perfect").human_match_win_prob
    behind = match_odds(Rules(), "perfect", human_hp=10, ai_hp=60)
    assert behind.human_match_win_prob < fresh
    started_there = match_odds(Rules(start_human_hp=10, start_ai_hp=60), "perfect")
    assert behind.to_dict() | {"rules": None} == started_there.to_dict() | {"rules": None}
    easy = match_odds(Rules(), "heuristic", locked=0).human_match_win_prob
    assert easy > match_odds(Rules(), "heuristic").human_match_win_prob


def test_the_presets_keep_their_promises() -> None:
    def wins(preset: str, player: str) -> float:
        return match_odds(PRESETS[preset], player).human_match_win_prob

    assert PRESETS["classic"] == Rules()
    assert wins("gentle", "random") >= 0.05
    assert wins("fair", "perfect") >= 0.99 and wins("fair", "random") < 0.01
    assert wins("brutal", "perfect") <= 0.60


def games_sd(reaching: list[int], matches: int) -> float:
    """The standard deviation of the match length, from how many matches reached game k."""
    ended = [(a - b) / matches for a, b in zip(reaching, [*reaching[1:], 0], strict=True)]
    mean = sum((k + 1) * share for k, share in enumerate(ended))
    return math.sqrt(sum((k + 1 - mean) ** 2 * share for k, share in enumerate(ended)))


@pytest.mark.parametrize(
    ("rules", "player", "matches"),
    [
        (PRESETS["classic"], "perfect", 600),
        (PRESETS["gentle"], "random", 1500),
        (PRESETS["brutal"], "perfect", 600),
        (
            rules_from(human_win_ai_damage=25, human_win_human_heal=0, start_ai_hp=60),
            "heuristic",
            500,
        ),
    ],
)
def test_odds_agree_with_simulated_matches(rules: Rules, player: str, matches: int) -> None:
    exact = match_odds(rules, player)
    played = simulate(player, matches, random.Random(2026), rules=rules)
    p = exact.human_match_win_prob
    assert (
        abs(played.human_match_win_rate - p) <= 4 * math.sqrt(p * (1 - p) / matches) + 2 / matches
    )
    sd = games_sd([row.matches_reaching for row in played.hp_by_game], matches)
    assert abs(played.avg_games_per_match - exact.expected_games) <= 4 * sd / math.sqrt(matches)


@pytest.mark.parametrize("rule", RULE_FIELDS, ids=lambda rule: rule.name)
def test_every_rule_is_checked(rule: RuleField) -> None:
    high = Rules().max_hp if rule.high is None else rule.high
    for bad in (rule.low - 1, high + 1, "10", 2.5, True):
        with pytest.raises(MatchError) as caught:
            Rules(**{rule.name: bad})  # type: ignore[arg-type]
        assert caught.value.code == "bad_setting"
        said = f"{rule.label} must be an integer from {rule.low} to {high}, got {bad!r}"
        assert caught.value.message == said


def test_a_draw_must_cost_someone_something() -> None:
    with pytest.raises(MatchError, match="a draw must cost you or the AI at least 1 HP"):
        Rules(draw_human_damage=0, draw_ai_damage=0)
    assert Rules(draw_human_damage=0, draw_ai_damage=1).draw_ai_damage == 1


def test_hp_above_the_maximum_is_refused_with_the_maximum_named() -> None:
    with pytest.raises(MatchError, match="your starting HP must be an integer from 1 to 50"):
        Rules(max_hp=50)
    assert Rules(max_hp=50, start_human_hp=50, start_ai_hp=50).max_hp == 50


def test_presets_and_changes() -> None:
    assert rules_from("brutal", start_ai_hp=80) == Rules(draw_human_damage=15, start_ai_hp=80)
    assert rules_from("fair", max_hp=None) == PRESETS["fair"]
    with pytest.raises(MatchError, match="preset must be one of classic, gentle, fair, brutal"):
        rules_from("nightmare")
    with pytest.raises(MatchError, match="unknown rule 'speed'"):
        rules_from(speed=3)


def tictactoe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_odds_command_prints_json_for_one_player() -> None:
    done = tictactoe("odds", "--player", "perfect", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert set(answer) == {
        "player",
        "human_match_win_prob",
        "expected_games",
        "games_quantiles",
        "rules",
    }
    assert answer["player"] == "perfect" and round(answer["human_match_win_prob"], 4) == 0.8474
    assert answer["rules"]["ai_win_human_damage"] == 34


def test_odds_command_takes_the_rule_flags_and_prints_a_table() -> None:
    done = tictactoe("odds", "--preset", "brutal", "--damage-on-loss", "40")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert set(rows) == set(PLAYERS)
    exact = match_odds(rules_from("brutal", ai_win_human_damage=40), "perfect")
    assert f"{exact.human_match_win_prob * 100:.1f}%" in rows["perfect"]
    refused = tictactoe("odds", "--heal-on-win", "101")
    assert refused.returncode == 2
    assert "HP you heal when you win must be an integer from 0 to 100" in refused.stderr


def test_simulate_takes_the_same_flags() -> None:
    done = tictactoe("simulate", "--matches", "20", "--seed", "3", "--preset", "gentle", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"] == 20


def test_rules_whose_matches_could_drag_on_are_refused() -> None:
    assert longest_match(PRESETS["classic"]) == 22
    assert all(longest_match(rules) <= MAX_GAMES for rules in PRESETS.values())
    tiny = {"human_win_ai_damage": 1, "ai_win_human_damage": 1, "draw_human_damage": 1}
    with pytest.raises(MatchError, match="a match could last 139 games, and at most 100"):
        rules_from(human_win_human_heal=0, draw_ai_damage=1, start_ai_hp=40, **tiny)


def test_rules_with_too_many_hp_states_are_refused_before_any_walk_of_them() -> None:
    # Every HP from 100 down to 1 on both sides: 10,000 states, more than the cap.
    tiny = {"human_win_ai_damage": 1, "ai_win_human_damage": 1, "draw_human_damage": 1}
    pauses: list[None] = []
    with pytest.raises(MatchError, match=f"more than {MAX_STATES} different HP states"):
        rules_from(
            human_win_human_heal=0, draw_ai_damage=1, pause=lambda: pauses.append(None), **tiny
        )
    # Counted, not walked: the walk would have paused for its caller on the way.
    assert pauses == []
    assert count_states(Rules(human_win_human_heal=0, draw_ai_damage=1, **tiny)) == 100 * 100


def test_a_refused_rule_set_asked_again_is_not_counted_again() -> None:
    numbers = {"max_hp": 1000, "start_human_hp": 999, "start_ai_hp": 997, "draw_ai_damage": 1}
    small = {"human_win_ai_damage": 3, "ai_win_human_damage": 3, "draw_human_damage": 3}
    before = count_states.cache_info()
    for _ in range(3):
        with pytest.raises(MatchError, match="different HP states"):
            rules_from(**numbers, **small)
    after = count_states.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)


def walked_states(rules: Rules) -> tuple[int, int]:
    """The reachable states' count and the longest match, by visiting state after state."""
    start = (rules.start_human_hp, rules.start_ai_hp)
    statuses: tuple[Status, ...] = ("human_won", "ai_won", "draw")

    def after(state: tuple[int, int]) -> list[tuple[int, int]]:
        going = (hp_after_game(rules, *state, status) for status in statuses)
        return [(human, ai) for human, ai in going if human > 0 and ai > 0]

    seen, todo = {start}, [start]
    while todo:
        for state in after(todo.pop()):
            if state not in seen:
                seen.add(state)
                todo.append(state)
    longest: dict[tuple[int, int], int] = {}
    for state in sorted(seen, key=lambda state: (state[1], state[0])):
        longest[state] = 1 + max((longest[nxt] for nxt in after(state)), default=0)
    return len(seen), longest[start]


def test_counted_states_and_longest_match_are_those_of_a_walk_state_by_state() -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 150:
        top = rng.choice([5, 10, 50, 100, 200])
        scale = rng.choice([1, 5, 20])
        try:
            rules = Rules(
                max_hp=top,
                start_human_hp=rng.randint(1, top),
                start_ai_hp=rng.randint(1, top),
                human_win_human_heal=rng.randint(0, top // 2),
                human_win_ai_damage=rng.randint(1, max(1, top // scale)),
                ai_win_human_damage=rng.randint(1, max(1, top // scale)),
                draw_human_damage=rng.randint(0, max(1, top // (4 * scale))),
                draw_ai_damage=rng.randint(0, 3),
            )
        except MatchError:
            continue
        assert (count_states(rules), longest_match(rules)) == walked_states(rules), rules
        checked += 1


def test_the_odds_walk_pauses_after_each_game() -> None:
    pauses: list[None] = []
    rules = rules_from("fair", start_ai_hp=77)  # not cached by another test
    odds = match_odds(rules, "perfect", pause=lambda: pauses.append(None))
    # One pause a game, for as many games as some match may last.
    assert odds.games_quantiles["99"] <= len(pauses) <= longest_match(rules)


def test_readmes_table_of_presets_is_what_odds_computes() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[6:9]]
        for line in readme.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip() in PRESETS
    }
    assert set(rows) == set(PRESETS)
    for name, cells in rows.items():
        for player, cell in zip(("random", "heuristic", "perfect"), cells, strict=True):
            odds = match_odds(PRESETS[name], player)
            assert cell.startswith(f"{percent(odds.human_match_win_prob)}, "), (name, player)
            assert f", {odds.expected_games:.1f}" in cell, (name, player, cell)


@pytest.mark.parametrize("player", PLAYERS)
def test_the_float_tables_the_odds_use_are_the_exact_ones_rounded(player: str) -> None:
    exact = game_polynomials(player)
    for level in (0, 50, 99):
        p = Fraction(level, 100)
        chances = game_odds(player, level)
        for poly, value in zip(exact, (chances.win, chances.loss, chances.draw), strict=True):
            assert value == pytest.approx(float(at(poly, p)), abs=1e-12)


def odds_state_by_state(
    rules: Rules,
    player: str,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
    locked: int | None = None,
) -> tuple[float, float, dict[str, int]]:
    """The odds the plain way, as ``match_odds`` first computed them: a dict of (player HP,
    AI HP) states walked forward game by game in floats, each game's HP from
    ``hp_after_game``. The quantiles come out of the very same float sums as then; the
    expected games are summed with ``math.fsum``, as a plain sum of so many numbers can
    be off by 1e-12."""
    start = (
        rules.start_human_hp if human_hp is None else human_hp,
        rules.start_ai_hp if ai_hp is None else ai_hp,
    )
    frontier = {start: 1.0}
    won = ended = 0.0
    playing: list[float] = []  # the chance of playing each game
    found: dict[str, int] = {}
    games = 0
    while frontier:
        games += 1
        playing.append(math.fsum(frontier.values()))
        after: dict[tuple[int, int], float] = {}
        for (human, ai), mass in frontier.items():
            chances = game_odds(player, difficulty(ai) if locked is None else locked)
            results: tuple[tuple[Status, float], ...] = (
                ("human_won", chances.win),
                ("ai_won", chances.loss),
                ("draw", chances.draw),
            )
            for status, chance in results:
                if chance > 0.0:
                    state = hp_after_game(rules, human, ai, status)
                    if state[0] <= 0:
                        ended += mass * chance
                    elif state[1] <= 0:
                        ended += mass * chance
                        won += mass * chance
                    else:
                        after[state] = after.get(state, 0.0) + mass * chance
        frontier = after
        for q in (50, 90, 99):
            if str(q) not in found and ended >= q / 100 - 1e-12:
                found[str(q)] = games
    quantiles = {str(q): found.get(str(q), games) for q in (50, 90, 99)}
    return won, math.fsum(playing), quantiles


def drawn_rules(rng: random.Random) -> Rules:
    """Rules a player may choose, at random, from small HP scales to the largest."""
    while True:
        top = rng.choice([10, 60, 100, 300, 1000])
        try:
            return rules_from(
                max_hp=top,
                start_human_hp=rng.randint(1, top),
                start_ai_hp=rng.randint(1, top),
                human_win_human_heal=rng.randint(0, top // 2),
                human_win_ai_damage=rng.randint(1, top // 3 + 1),
                ai_win_human_damage=rng.randint(1, top // 3 + 1),
                draw_human_damage=rng.randint(0, top // 4),
                draw_ai_damage=rng.randint(0, top // 4),
            )
        except MatchError:
            continue


# Each with a twist the packed walk handles on its own: heals cut at the maximum, player
# HP moving in steps of 10 or 34 (and a maximum off those steps), draws that cost only
# one side, a match under way, a locked difficulty, large HP with states far apart, and
# the smallest damages (thousands of states).
EDGE_CASES: list[tuple[Rules, dict[str, int]]] = [
    *((rules, {}) for rules in PRESETS.values()),
    (Rules(max_hp=60, start_human_hp=60, human_win_human_heal=25, start_ai_hp=60), {}),
    (
        Rules(
            max_hp=95,
            start_human_hp=90,
            start_ai_hp=95,
            human_win_human_heal=10,
            ai_win_human_damage=20,
            draw_human_damage=10,
        ),
        {},
    ),
    (Rules(human_win_human_heal=0, draw_human_damage=0, draw_ai_damage=2), {}),
    (Rules(draw_human_damage=0, draw_ai_damage=3), {}),
    (Rules(draw_human_damage=7, draw_ai_damage=0), {}),
    (Rules(), {"human_hp": 7, "ai_hp": 40, "locked": 50}),
    (Rules(), {"locked": 100}),
    (
        Rules(
            max_hp=1000,
            start_human_hp=229,
            start_ai_hp=537,
            human_win_human_heal=332,
            human_win_ai_damage=32,
            ai_win_human_damage=405,
            draw_human_damage=345,
            draw_ai_damage=147,
        ),
        {},
    ),
    (
        Rules(
            human_win_ai_damage=4,
            ai_win_human_damage=4,
            human_win_human_heal=5,
            draw_human_damage=4,
            draw_ai_damage=1,
        ),
        {},
    ),
]


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize(("rules", "under_way"), EDGE_CASES)
def test_odds_are_those_of_walking_state_by_state(
    rules: Rules, under_way: dict[str, int], player: str
) -> None:
    won, expected, quantiles = odds_state_by_state(rules, player, **under_way)
    odds = match_odds(rules, player, **under_way)
    assert odds.games_quantiles == quantiles
    assert odds.human_match_win_prob == pytest.approx(won, abs=1e-12, rel=0)
    assert odds.expected_games == pytest.approx(expected, abs=1e-12, rel=0)


def test_odds_of_rules_drawn_at_random_are_those_of_walking_state_by_state() -> None:
    rng = random.Random(2026)
    for _ in range(40):
        rules, player = drawn_rules(rng), rng.choice(PLAYERS)
        won, expected, quantiles = odds_state_by_state(rules, player)
        odds = match_odds(rules, player)
        assert odds.games_quantiles == quantiles, rules
        assert odds.human_match_win_prob == pytest.approx(won, abs=1e-12, rel=0), rules
        assert odds.expected_games == pytest.approx(expected, abs=1e-12, rel=0), rules
