"""The exact odds on every variant: the shipped polynomials, recomputed and checked against
a walk with the solver, their values at known anchors, and matches played for real."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from webapp.game import odds
from webapp.game.odds import match_odds, players_for
from webapp.game.position import Ending, Position
from webapp.game.rules import MatchError, rules_from
from webapp.game.simulation import match_states, run_match
from webapp.game.skill import wilson
from webapp.game.solver import Solver
from webapp.game.strategies import skill_strategy
from webapp.game.variant import CLASSIC, VARIANTS, Variant, variant_named
from webapp.game.variant_chances import Positions, shipped, table_entry

OTHERS = [variant for variant in VARIANTS if variant != CLASSIC]
SMALL = ["misere", "notakto1", "notakto2"]


def value(name: str, result: int, p: float, skill: float) -> float:
    """The shipped polynomial of ``result`` (0 win, 1 loss, 2 draw) at p and S."""
    entry, key = shipped()[name], ("win", "loss", "draw")[result]
    coefficients = np.array(entry[key])
    powers_p = p ** np.arange(coefficients.shape[0])
    powers_s = skill ** np.arange(coefficients.shape[1])
    return float(powers_p @ coefficients @ powers_s)


def test_every_variant_but_classic_is_in_the_shipped_table() -> None:
    assert sorted(shipped()) == sorted(variant.name for variant in OTHERS)
    # Each a polynomial in p and S of degree the most moves a side makes, for every
    # skill player: notakto3's too (11 moves a side, docs/levels.md).
    for name, entry in shipped().items():
        degree = {"notakto3": 11}.get(name)
        shape = np.array(entry["win"]).shape
        assert shape[0] == shape[1] and (degree is None or shape[0] == degree + 1), name


@pytest.mark.parametrize("name", SMALL)
def test_the_small_variants_recompute_to_the_shipped_table(name: str) -> None:
    found, kept = table_entry(variant_named(name)), shipped()[name]
    assert (found["positions"], found["score"]) == (kept["positions"], kept["score"])
    for result in ("win", "loss", "draw"):
        assert np.allclose(found[result], kept[result], atol=1e-9)


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
def test_the_root_score_is_the_variants_value(variant: Variant) -> None:
    # The pass's own scores, against the table of values in the issue: a draw (0), the
    # first player's win (> 0) or the second's (< 0).
    expected = {"misere": 0, "4x4k4": 0, "notakto2": -1}.get(variant.name, 1)
    assert np.sign(shipped()[variant.name]["score"]) == expected


# The interpolation's float rounding: about 1e-12 at degree 5, 1e-8 at notakto3's 11.
TOLERANCE = 1e-7


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
def test_the_chances_hold_at_their_anchors(variant: Variant) -> None:
    name, score = variant.name, shipped()[variant.name]["score"]
    for p, skill in ((0.0, 0.0), (0.4, 1.0), (1.0, 1.0)):
        total = sum(value(name, result, p, skill) for result in range(3))
        assert total == pytest.approx(1.0, abs=TOLERANCE)
        assert all(
            -TOLERANCE <= value(name, result, p, skill) <= 1 + TOLERANCE for result in range(3)
        )
    # Random against random: each side starts half the time, so wins and losses match.
    assert value(name, 0, 0.0, 0.0) == pytest.approx(value(name, 1, 0.0, 0.0), abs=TOLERANCE)
    if score == 0:
        # A drawn game: perfect play never loses, and two perfect players draw.
        for p in (0.0, 0.5, 1.0):
            assert value(name, 1, p, 1.0) == pytest.approx(0.0, abs=TOLERANCE)
        assert value(name, 2, 1.0, 1.0) == pytest.approx(1.0, abs=TOLERANCE)
    else:
        # A won game: between perfect players whoever holds the win takes it, and each
        # side starts half the time; a perfect player beats a random AI on the winning
        # side every time, so wins at least half the games.
        assert value(name, 0, 1.0, 1.0) == pytest.approx(0.5, abs=TOLERANCE)
        assert value(name, 1, 1.0, 1.0) == pytest.approx(0.5, abs=TOLERANCE)
        assert value(name, 0, 0.0, 1.0) > 0.5


def walk_chances(variant: Variant, p: float, skill: float) -> tuple[float, float]:
    """The human's win and loss chances from a plain walk of the game with the solver:
    the AI's perfect move is its ``best_move``, the player's any of ``analyse``'s best."""
    solver = Solver(variant)

    @cache
    def node(position: Position, human_first: bool) -> tuple[float, float]:
        ending = position.ending()
        human_moves = position.first_to_move == human_first
        if ending is not None:
            if ending == Ending.DRAW:
                return 0.0, 0.0
            mover_won = ending == Ending.MOVER_WON
            return (1.0, 0.0) if mover_won == human_moves else (0.0, 1.0)
        moves = position.legal_moves()
        chance = np.mean([node(position.apply_move(m), human_first) for m in moves], axis=0)
        if human_moves:
            best = solver.analyse(position).best
            perfect = np.mean([node(position.apply_move(m), human_first) for m in best], axis=0)
            mixed = skill * perfect + (1 - skill) * chance
        else:
            perfect = np.array(node(position.apply_move(solver.best_move(position)), human_first))
            mixed = p * perfect + (1 - p) * chance
        return float(mixed[0]), float(mixed[1])

    empty = Position.empty(variant)
    both = np.add(node(empty, True), node(empty, False)) / 2
    return float(both[0]), float(both[1])


@pytest.mark.parametrize("name", ["misere", "notakto1"])
def test_a_walk_with_the_solver_gives_the_shipped_chances(name: str) -> None:
    for p, skill in ((0.3, 0.6), (0.9, 0.0), (1.0, 1.0), (0.0, 1.0)):
        win, loss = walk_chances(variant_named(name), p, skill)
        assert value(name, 0, p, skill) == pytest.approx(win, abs=1e-9)
        assert value(name, 1, p, skill) == pytest.approx(loss, abs=1e-9)


@pytest.mark.parametrize("name", ["misere", "notakto2"])
def test_the_passes_best_moves_are_the_solvers(name: str) -> None:
    variant = variant_named(name)
    positions, solver, rng = Positions(variant), Solver(variant), random.Random(43)
    checked = 0
    for number, ply in enumerate(positions.plies[:-1]):
        going = np.nonzero(ply.ends == 0)[0]
        for row in rng.sample(list(going), min(20, len(going))):
            position = _position(variant, int(ply.keys[row]), number)
            assert ply.best is not None and ply.lowest is not None
            best = tuple(int(cell) for cell in np.nonzero(ply.best[row])[0])
            assert best == solver.analyse(position).best
            assert int(ply.lowest[row]) == solver.best_move(position)
            checked += 1
    assert checked > 100


def _position(variant: Variant, key: int, ply: int) -> Position:
    """The position a pass's key stands for (a dead Notakto board drawn as full: the
    solver sees a dead board either way)."""
    if variant.notakto:
        position = Position(variant, key)
        assert position.live_boards() == [
            b for b in range(variant.boards) if key >> (9 * b) & 511 != 511
        ]
        return position
    half = (1 << variant.cells) - 1
    position = Position(variant, key & half, key >> variant.cells)
    assert position.stones == ply
    return position


# Three rule sets on each board, each with a player whose chance is far from 0 and 1.
PLAYED = [
    ("classic", "skill:0.9", 90),
    ("gentle", "skill:0.5", 50),
    ("brutal", "perfect", 100),
]


@pytest.mark.parametrize("name", ["4x4k3", "misere"])
@pytest.mark.parametrize(("preset", "player", "hundredths"), PLAYED)
def test_the_exact_odds_agree_with_matches_played(
    name: str, preset: str, player: str, hundredths: int
) -> None:
    # Real matches through the match core, the AI rolling its dice: the share won lies
    # within its 95% interval of the exact chance.
    rules = rules_from(preset, variant=variant_named(name))
    rng, matches = random.Random(f"{name}-{preset}"), 400
    strategy = skill_strategy(hundredths)
    won = sum(
        run_match(match_states(strategy, rng, rules=rules)).winner == "human"
        for _ in range(matches)
    )
    low, high = wilson(won, matches)
    exact = match_odds(rules, player).human_match_win_prob
    assert 0.02 < exact < 0.98
    assert low <= exact <= high


def test_the_variants_players_leave_the_heuristic_out() -> None:
    assert players_for(CLASSIC) == ("random", "heuristic", "perfect")
    assert players_for(variant_named("misere")) == ("random", "perfect")
    with pytest.raises(MatchError) as refused:
        match_odds(rules_from(variant=variant_named("misere")), "heuristic")
    assert (refused.value.code, refused.value.field) == ("classic_only", "player")


def test_the_odds_say_they_are_exact_off_classic_only() -> None:
    misere = match_odds(rules_from(variant=variant_named("misere")), "perfect").to_dict()
    assert misere["exact"] is True and misere["rules"]["variant"] == "misere"
    assert "exact" not in match_odds(rules_from(), "perfect").to_dict()


def play_games(variant: Variant, p: float, skill: float, games: int) -> list[int]:
    """Single games played with the solver (the AI's lowest best move with chance p, the
    player's any best move with chance S, else random moves; who starts tossed): how
    many the player won, lost and drew."""
    solver, rng = Solver(variant), random.Random(f"{variant.name}-games")
    counts = [0, 0, 0]
    for _ in range(games):
        position, human_first = Position.empty(variant), rng.random() < 0.5
        for _ in range(variant.cells + 1):
            ending = position.ending()
            human_moves = position.first_to_move == human_first
            if ending is not None:
                won = (ending is Ending.MOVER_WON) == human_moves
                counts[2 if ending is Ending.DRAW else 0 if won else 1] += 1
                break
            moves = position.legal_moves()
            if human_moves:
                best = solver.analyse(position).best if rng.random() < skill else moves
                cell = rng.choice(best)
            else:
                cell = solver.best_move(position) if rng.random() < p else rng.choice(moves)
            position = position.apply_move(cell)
    assert sum(counts) == games
    return counts


@pytest.mark.parametrize(
    ("name", "p", "skill"), [("4x4k4", 0.0, 0.0), ("4x4k3", 0.5, 0.6), ("notakto3", 0.4, 0.7)]
)
def test_the_big_variants_chances_agree_with_games_played(
    name: str, p: float, skill: float
) -> None:
    # Too big to recompute here: checked against games played with the solver (4x4k4
    # without it, as the solver needs its opening book there; bench/variant_odds.py
    # --games plays every variant with it).
    games = 3000
    counts = play_games(variant_named(name), p, skill, games)
    for result in (0, 1, 2):
        low, high = wilson(counts[result], games)
        # (Notakto has no draw: its chance is 0 up to the rounding, TOLERANCE.)
        assert low - TOLERANCE <= value(name, result, p, skill) <= high, (result, counts)


def test_a_variant_the_table_lacks_has_simulated_odds_with_their_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # notakto1 taken out of the table: its odds are simulated, and the exact ones (asked
    # with another cache key) lie inside their interval.
    rules = rules_from("classic", variant=variant_named("notakto1"), draw_human_damage=9)
    exact = match_odds(rules, "perfect", human_hp=rules.start_human_hp)
    table = {name: entry for name, entry in shipped().items() if name != "notakto1"}
    monkeypatch.setattr(odds, "shipped", lambda: table)
    try:
        found = match_odds(rules, "perfect")
        assert found.interval is not None
        low, high = found.interval
        assert low <= exact.human_match_win_prob <= high and high - low < 0.12
        assert found.to_dict()["exact"] is False
        assert found.to_dict()["interval"] == [low, high]
        assert 0.5 < found.expected_games < 30 and found.games_quantiles["99"] >= 1
        # Seeded by the question: asked again (past the cache), the same answer.
        match_odds.cache_clear()
        assert match_odds(rules, "perfect") == found
        with pytest.raises(MatchError):
            match_odds(rules, "heuristic")
    finally:
        match_odds.cache_clear()


def test_notakto3s_skill_players_odds_are_exact() -> None:
    rules = rules_from("gentle", variant=variant_named("notakto3"))
    found = match_odds(rules, "skill:0.99")
    assert found.interval is None and found.to_dict()["exact"] is True
    perfect = match_odds(rules, "perfect").human_match_win_prob
    random_ = match_odds(rules, "random").human_match_win_prob
    # The first player wins notakto3: a near-perfect player wins almost every match
    # under gentle rules, and the chance rises with skill from the random player's.
    chances = [match_odds(rules, f"skill:{s}").human_match_win_prob for s in (0, 0.5, 0.9, 1)]
    assert chances[0] == random_ and chances[-1] == perfect
    assert chances == sorted(chances) and 0.9 < found.human_match_win_prob <= perfect
