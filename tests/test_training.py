"""Training's pure core: cards from a player's mistakes, puzzles proven by the solver,
Glicko-2 checked against Glickman's worked example, the streak and the chart's days."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from support.training import games_with_mistakes, variant_game_with_mistake

from bench.puzzles import PER_THEME, PLAYOUTS, SEED
from webapp.game.glicko import Rating, rate, solved
from webapp.game.history import friend_game
from webapp.game.position import Position
from webapp.game.solver import Solver
from webapp.game.training import (
    THEMES,
    Card,
    Puzzle,
    by_day,
    canonical,
    cards_from,
    cards_of,
    puzzle_named,
    puzzles,
    puzzles_on,
    streak,
    variant_puzzles,
)
from webapp.game.variant import variant_named


def test_ten_mistakes_in_a_history_are_ten_cards_with_every_best_cell() -> None:
    games = games_with_mistakes(10)
    cards = cards_of(games)
    assert len(cards) == 10
    for card in cards.values():
        assert card.played not in card.best and card.best
        assert Card.from_dict(card.to_dict()) == card
        assert not card.passes(card.played) and card.passes(card.best[0])
        assert card.verdict in ("mistake", "blunder")


def test_the_same_slip_in_two_games_is_one_card_and_good_moves_make_none() -> None:
    game = games_with_mistakes(1)[0]
    again = {**game, "id": "again"}
    assert len(cards_of([game, again])) == 1
    perfect = friend_game(
        (4, 0, 8), mine="X", result="draw", resigned=None, game=1, game_id="p", ended=1.0
    )
    assert cards_from(perfect) == []


def test_only_the_players_own_moves_become_cards() -> None:
    # X (the friend) throws the win away at their second move; O is the player.
    game = friend_game(
        (4, 0, 8, 2, 1), mine="O", result="loss", resigned=None, game=1, game_id="o", ended=1.0
    )
    assert all(card.to_dict()["to_move"] == "O" for card in cards_from(game))


@pytest.mark.parametrize(
    ("name", "board", "played", "best"),
    [
        ("4x4k3", "XO..............", "c1", ["a2", "b2", "a3", "c3"]),
        ("notakto2", "XX......./.........", "1:c1", ["1:a2"]),
    ],
)
def test_a_game_on_another_variant_makes_its_cards_in_the_variants_notation(
    name: str, board: str, played: str, best: list[str]
) -> None:
    (card,) = cards_from(variant_game_with_mistake(name))
    variant = variant_named(name)
    assert (card.variant, card.board, variant.cell_name(card.played)) == (name, board, played)
    assert [variant.cell_name(cell) for cell in card.best] == best
    assert card.key == f"{name}:{board}:{card.played}" and card.to_dict()["to_move"] == "X"
    assert Card.from_dict(card.to_dict()) == card


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(variant_named("classic"))


def proved(puzzle: Puzzle, solver: Solver) -> None:
    """The solver's values of the puzzle's moves make its theme, and its answer is every
    move that solves it."""
    analysis = solver.analyse(Position.parse(solver.variant, puzzle.board))
    values = dict(analysis.moves)
    assert len(values) >= 2
    if puzzle.theme.startswith("win_in_"):
        # In N moves of the mover's: 2N - 1 plies, or 2N where the opponent's move ends it
        # (misère, Notakto).
        plies = analysis.value.plies
        assert plies in (2 * int(puzzle.theme[-1]) - 1, 2 * int(puzzle.theme[-1]))
        winning = {c for c, v in values.items() if v.result.value == "win" and v.plies == plies}
        assert analysis.value.result.value == "win"
        assert len(winning) < len(values), "every move wins as fast: no move is wrong"
        if solver.variant.name == "classic":
            assert plies % 2 == 1
        assert set(puzzle.answer) == winning
    else:
        drawing = {c for c, v in values.items() if v.result.value == "draw"}
        assert analysis.value.result.value == "draw"
        assert set(puzzle.answer) == drawing and len(drawing) < len(values)
        if puzzle.theme == "only_draw":
            assert len(drawing) == 1


def test_every_puzzles_answer_is_proved_by_the_solver(solver: Solver) -> None:
    found = puzzles()
    assert {puzzle.theme for puzzle in found} == set(THEMES)
    assert len({canonical(puzzle.board) for puzzle in found}) == len(found)
    for puzzle in found:
        proved(puzzle, solver)


@pytest.mark.parametrize("name", ["misere", "notakto2"])
def test_a_larger_variants_puzzles_are_bounded_a_theme_and_proved(name: str) -> None:
    variant = variant_named(name)
    found = variant_puzzles(variant, random.Random(3), per_theme=30, playouts=400)
    themes = Counter(puzzle.theme for puzzle in found)
    assert themes and max(themes.values()) <= 30 and "stop_fork" not in themes
    assert len({puzzle.key for puzzle in found}) == len(found)
    assert all(puzzle.key.startswith(f"{name}:") for puzzle in found)
    fresh = Solver(variant)  # not the one that found them
    for puzzle in found:
        proved(puzzle, fresh)


def test_glicko2_matches_glickmans_worked_example() -> None:
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = rate(player, games)
    assert abs(after.rating - 1464.06) < 0.02  # the paper rounds each step on the way
    assert round(after.deviation, 2) == 151.52
    assert abs(after.volatility - 0.05999) < 0.00001


def test_a_solve_moves_both_ratings_and_a_miss_moves_them_back() -> None:
    player, puzzle = solved(Rating(), Rating(), first_try=True)
    assert player.rating > 1500 > puzzle.rating
    assert player.deviation < 350 and puzzle.deviation < 350
    later, harder = solved(player, puzzle, first_try=False)
    assert later.rating < player.rating and harder.rating > puzzle.rating
    assert rate(player, []).deviation > player.deviation


def test_the_streak_counts_days_in_a_row_up_to_today_or_yesterday() -> None:
    assert streak([], 10) == 0
    assert streak([8, 9, 10], 10) == 3
    assert streak([7, 8, 9], 10) == 3  # not yet today: the run still stands
    assert streak([6, 8, 10], 10) == 1
    assert streak([5, 6], 10) == 0


def test_the_chart_counts_passed_and_failed_by_day() -> None:
    bars = by_day([(9, True), (9, False), (10, True), (2, True)], 10, 3)
    assert bars == [
        {"day": 8, "passed": 0, "failed": 0},
        {"day": 9, "passed": 1, "failed": 1},
        {"day": 10, "passed": 1, "failed": 0},
    ]


@pytest.mark.parametrize("name", ["misere", "4x4k3", "4x4k4", "notakto1", "notakto2", "notakto3"])
def test_every_shipped_puzzle_of_a_larger_variant_is_bounded_a_theme_and_proved(
    name: str,
) -> None:
    found = puzzles_on(name)
    themes = Counter(puzzle.theme for puzzle in found)
    assert found and max(themes.values()) <= 200 and "stop_fork" not in themes
    assert len({puzzle.key for puzzle in found}) == len(found)
    assert all(puzzle_named(puzzle.key) == puzzle for puzzle in found[:5])
    fresh = Solver(variant_named(name))  # every one, a fresh solver: well under a second
    for puzzle in found:
        proved(puzzle, fresh)


@pytest.mark.parametrize("name", ["misere", "notakto1", "notakto2"])
def test_the_shipped_puzzles_are_what_bench_puzzles_makes(name: str) -> None:
    # The quick variants only: 4x4k4's take the command some 20 s.
    made = variant_puzzles(
        variant_named(name), random.Random(SEED), per_theme=PER_THEME, playouts=PLAYOUTS
    )
    assert made == puzzles_on(name)
