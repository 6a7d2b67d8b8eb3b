"""The HP match on every variant: the roll, the ends of misère and Notakto, the levels,
what stays classic only, and classic matches exactly as before variants came."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest
from support.classic_runs import summary

from webapp.game import strategies
from webapp.game.board import Board, RuleError
from webapp.game.game import Side
from webapp.game.history import finished_game
from webapp.game.match import (
    Match,
    ai_move,
    apply_ai_move,
    choose_ai_move,
    human_move,
    new_match,
    next_game,
    practice_match,
    take_back,
)
from webapp.game.odds import match_odds
from webapp.game.position import Position
from webapp.game.records import from_record, to_record
from webapp.game.rules import (
    MAX_GAMES,
    MODES,
    PRESETS,
    VARIANT_LEVELS,
    MatchError,
    Rules,
    level_difficulty,
    rules_from,
)
from webapp.game.skill import counted_moves
from webapp.game.solver import Solver
from webapp.game.variant import CLASSIC, VARIANTS, Variant, variant_named

FIXTURES = Path(__file__).parent / "fixtures"
OTHERS = [variant for variant in VARIANTS if variant != CLASSIC]


def with_first(match: Match, first: Side) -> Match:
    """The match with its current game started by ``first`` (no move made yet)."""
    return dataclasses.replace(match, game=dataclasses.replace(match.game, first=first))


def play_out(match: Match, rng: random.Random) -> Match:
    """The match played to its end: a random player against the AI, new games as needed."""
    for _ in range(MAX_GAMES * (match.rules.variant.cells + 1)):
        if match.over:
            return match
        if match.game.turn is None:
            match = next_game(match, rng, client_seed=f"next-{match.game_number}")
        elif match.game.turn == "human":
            match = human_move(match, rng.choice(match.game.board.legal_moves()))
        else:
            match = ai_move(match)
    raise AssertionError("the match did not end")


# --- a whole HP match on every variant -------------------------------------------------


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
def test_a_whole_hp_match_on_each_variant_plays_to_its_end(variant: Variant) -> None:
    rules = rules_from("gentle", variant=variant)
    match = new_match(random.Random(43), rules=rules, client_seed="variants")
    assert match.game.board == Board.empty(variant)
    end = play_out(match, random.Random(7))
    assert end.over and end.winner in ("human", "ai")
    assert end.game.variant == variant and end.rules.variant == variant
    record = end.record
    assert record.wins + record.losses + record.draws == end.game_number
    assert (end.human_hp <= 0) != (end.ai_hp <= 0)
    solver = Solver(variant)
    replayed = Board.empty(variant)
    moves = iter(end.game.ai_moves)
    for side, cell in end.game.history:
        if side == "ai":
            move = next(moves)
            assert move.roll is not None and move.difficulty is not None
            assert move.decision == ("perfect" if move.roll < move.difficulty else "random")
            if move.decision == "perfect":
                assert move.candidates == (solver.best_move(replayed.position),)
            else:
                assert move.candidates == tuple(replayed.legal_moves())
        replayed = replayed.apply_move(cell)
    assert replayed == end.game.board


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
def test_a_variant_match_is_stored_and_loaded_with_its_variant(variant: Variant) -> None:
    match = new_match(random.Random(1), rules=rules_from(variant=variant), client_seed="kept")
    match = play_out(match, random.Random(2))
    data = json.loads(json.dumps(to_record(match)))
    assert data["rules"]["variant"] == variant.name
    loaded = from_record(data)
    assert loaded == match and to_record(loaded) == data


def test_a_stored_match_naming_an_unknown_variant_is_refused() -> None:
    data = to_record(new_match(random.Random(1), rules=rules_from(variant=OTHERS[0])))
    data["rules"]["variant"] = "5x5k5"
    with pytest.raises(MatchError) as refused:
        from_record(data)
    assert refused.value.code == "bad_state"


# --- the ends of misère and Notakto --------------------------------------------------


def scripted(variant: Variant, first: Side, cells: tuple[int, ...], *, mode: str) -> Match:
    """A match whose first game is played as ``cells``, sides taking turns from ``first``
    (each AI move is the one its dice chose, moved to the scripted cell)."""
    rules = rules_from(variant=variant)
    match = with_first(new_match(random.Random(5), mode=mode, rules=rules), first)
    for cell in cells:
        if match.game.turn == "human":
            match = human_move(match, cell)
        else:
            match = apply_ai_move(match, dataclasses.replace(choose_ai_move(match), cell=cell))
    return match


def test_in_misere_three_in_a_row_loses_and_costs_the_maker() -> None:
    # The human (X) makes a1-b1-c1 and so loses.
    match = scripted(variant_named("misere"), "human", (0, 3, 1, 4, 2), mode="adaptive")
    assert str(match.game.board) == "XXXOO...."
    assert match.game.status == "ai_won"
    outcome = match.game.board.outcome()
    assert outcome is not None and outcome.winner == "O" and outcome.line == (0, 1, 2)
    rules = match.rules
    assert (match.human_hp, match.ai_hp) == (rules.start_human_hp - rules.ai_win_human_damage, 100)
    assert match.record.losses == 1


def test_in_misere_a_full_board_without_a_line_is_a_draw() -> None:
    cells = (0, 4, 8, 2, 6, 3, 5, 7, 1)  # X: a1 c3 a3 c2 b1, O: b2 c1 a2 b3
    match = scripted(variant_named("misere"), "ai", cells, mode="easy")
    assert match.game.status == "draw" and match.record.draws == 1


def test_in_notakto_both_place_x_and_killing_the_last_board_loses() -> None:
    notakto = variant_named("notakto2")
    # The human (first) kills board 1 with c1 (a1 b1 c1, c1 b2 a3): play goes on on board 2.
    match = scripted(notakto, "human", (0, 4, 1, 6, 2), mode="easy")
    assert str(match.game.board) == "XXX.X.X../........."
    assert match.game.turn == "ai" and match.game.board.legal_moves() == list(range(9, 18))
    with pytest.raises(RuleError) as dead:
        match.game.board.apply_move(3)
    assert dead.value.code == "dead_board"
    # The AI kills board 2, the last live one, with 2:c1: it loses.
    match = scripted(notakto, "human", (0, 4, 1, 6, 2, 9, 10, 13, 15, 11), mode="easy")
    assert match.game.status == "human_won" and match.record.wins == 1
    assert set(str(match.game.board)) == {"X", ".", "/"}
    # X and O name the roles: the first player is X, whatever marks the boards show.
    assert match.game.mark_of("human") == "X"
    outcome = match.game.board.outcome()
    assert outcome is not None and outcome.winner == "X" and outcome.line is None


def test_in_notakto_the_second_player_who_kills_the_board_loses() -> None:
    match = scripted(variant_named("notakto1"), "ai", (0, 8, 3, 6), mode="easy")
    assert match.game.mark_of("human") == "O"
    assert match.game.status == "ai_won" and match.record.losses == 1


# --- the fixed levels ------------------------------------------------------------------


def test_every_variant_but_classic_defines_easy_medium_and_hard_as_chances() -> None:
    assert set(VARIANT_LEVELS) == {variant.name for variant in OTHERS}
    for levels in VARIANT_LEVELS.values():
        assert levels["easy"] == 0  # moves at random, as the classic easy does
        assert 0 < levels["medium"] < levels["hard"] < 100
    assert all(level_difficulty(CLASSIC, mode) is None for mode in MODES)
    assert all(level_difficulty(variant, "impossible") is None for variant in OTHERS)


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
@pytest.mark.parametrize("mode", ["easy", "medium", "hard"])
def test_a_fixed_level_on_a_variant_rolls_against_its_chance(variant: Variant, mode: str) -> None:
    rules = rules_from(variant=variant)
    moves = [
        choose_ai_move(new_match(random.Random(seed), mode=mode, rules=rules, first="ai"))
        for seed in range(12)
    ]
    chance = VARIANT_LEVELS[variant.name][mode]
    assert {move.difficulty for move in moves} == {chance}
    for move in moves:
        assert move.roll is not None
        assert move.decision == ("perfect" if move.roll < chance else "random")


@pytest.mark.parametrize("variant", OTHERS, ids=lambda v: v.name)
def test_impossible_plays_the_solvers_best_move_on_every_variant(variant: Variant) -> None:
    match = new_match(
        random.Random(4), mode="impossible", rules=rules_from(variant=variant), first="ai"
    )
    move = choose_ai_move(match)
    best = Solver(variant).best_move(Position.empty(variant))
    assert (move.decision, move.cell, move.candidates, move.roll) == (
        "perfect",
        best,
        (best,),
        None,
    )


def test_classic_fixed_levels_still_play_their_strategies() -> None:
    for mode, name in (("easy", "random"), ("medium", "heuristic"), ("hard", "lookahead")):
        match = new_match(random.Random(4), mode=mode, first="ai")
        move = choose_ai_move(match)
        assert move.decision == name and move.roll is None


@pytest.mark.parametrize("preset", list(PRESETS))
def test_presets_keep_their_numbers_on_every_variant(preset: str) -> None:
    for variant in OTHERS:
        rules = rules_from(preset, variant=variant)
        assert dataclasses.replace(rules, variant=CLASSIC) == PRESETS[preset]


# --- what stays classic only --------------------------------------------------------


def test_rules_refuse_a_variant_that_is_not_one() -> None:
    with pytest.raises(MatchError) as refused:
        Rules(variant="4x4k4")  # type: ignore[arg-type]
    assert (refused.value.code, refused.value.field) == ("bad_setting", "variant")


def test_lookahead_depth_is_refused_off_classic_with_its_code() -> None:
    with pytest.raises(MatchError) as refused:
        Rules(variant=variant_named("4x4k4"), lookahead_depth=3)
    assert (refused.value.code, refused.value.field) == ("classic_only", "lookahead_depth")
    assert Rules(lookahead_depth=3).lookahead_depth == 3


@pytest.mark.parametrize("name", ["heuristic", "lookahead"])
def test_the_classic_players_refuse_another_board_with_their_code(name: str) -> None:
    board = Board.empty(variant_named("4x4k3"))
    with pytest.raises(RuleError) as refused:
        strategies.candidates(name, board)
    assert refused.value.code == "classic_only"


def test_hints_give_every_moves_value_on_a_variant() -> None:
    variant = variant_named("notakto2")
    board = Board.empty(variant).apply_move(4)
    values = strategies.move_values(board)
    expected = Solver(variant).analyse(board.position).to_dict()["moves"]
    assert values == expected and len(values) == 17
    classic = strategies.move_values(Board())
    assert classic["4"] == {"result": "draw", "plies": 9}


def test_take_back_works_on_a_variant() -> None:
    variant = variant_named("4x4k4")
    match = new_match(
        random.Random(6), mode="hard", rules=rules_from(variant=variant), first="human"
    )
    before = match
    match = ai_move(human_move(match, 5))
    back = take_back(match)
    assert back.game.board == before.game.board and back.game.history == ()
    assert choose_ai_move(human_move(back, 5)) == match.game.ai_moves[0]


def test_exact_odds_refuse_the_heuristic_player_on_another_variant() -> None:
    # Every variant has exact odds now (tests/test_variant_odds.py); the heuristic
    # player walks the 3x3 game only.
    with pytest.raises(MatchError) as refused:
        match_odds(rules_from(variant=variant_named("misere")), "heuristic")
    assert (refused.value.code, refused.value.field) == ("classic_only", "player")
    assert (
        0
        <= match_odds(rules_from(variant=variant_named("misere")), "random").human_match_win_prob
        < 0.01
    )


def test_a_practice_game_stays_classic() -> None:
    assert practice_match(random.Random(1), (4,)).rules.variant == CLASSIC


def test_the_skill_estimate_counts_hp_games_of_every_variant_by_their_own_best_moves() -> None:
    variant = variant_named("4x4k3")
    match = play_out(
        new_match(random.Random(8), rules=rules_from("gentle", variant=variant)), random.Random(9)
    )
    entry = finished_game(match, game_id="g", ended=0.0)
    assert entry["record"]["rules"]["variant"] == "4x4k3"
    # Counted by hand: each of the player's moves where some move would have been a
    # mistake, and whether it was among the solver's best.
    solver, board = Solver(variant), Board.empty(variant)
    moves = best = 0
    for move in entry["record"]["moves"]:
        if move["by"] == "human":
            analysis = solver.analyse(board.position)
            if len(analysis.best) < len(board.legal_moves()):
                moves, best = moves + 1, best + (move["cell"] in analysis.best)
        board = board.apply_move(move["cell"])
    counted = counted_moves([entry])
    assert moves > 0 and (counted.moves, counted.best) == (moves, best)


# --- classic exactly as before ----------------------------------------------------------


def classic_runs() -> list[dict[str, Any]]:
    lines = (FIXTURES / "classic-runs-0.5.1.dev0.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("stored", classic_runs(), ids=lambda run: f"{run['mode']}-{run['seed']}")
def test_classic_matches_play_and_store_as_before_variants_came(stored: dict[str, Any]) -> None:
    rules = rules_from("classic", variant=CLASSIC)
    assert rules == Rules() and "variant" not in rules.to_dict()
    assert summary(stored["mode"], stored["seed"], rules) == stored


def rows_of_0_5_0() -> list[dict[str, Any]]:
    lines = (FIXTURES / "matches-0.5.0.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("row", rows_of_0_5_0(), ids=lambda row: row["player"])
def test_a_match_stored_by_0_5_0_loads_as_classic_unchanged(row: dict[str, Any]) -> None:
    data = json.loads(row["data"])
    match = from_record(data)
    assert match.rules.variant == CLASSIC and match.game.variant == CLASSIC
    assert to_record(match) == data
    assert json.dumps(to_record(match), separators=(",", ":")) == row["data"]
