"""A player's skill from their games, and the hints that leave a move out of it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from support.live import Actions
from support.skill_play import played_games

from webapp.game.history import SCHEMA as HISTORY_SCHEMA
from webapp.game.history import friend_game, upgrade_entry
from webapp.game.match import Match, ai_move, hint_shown, human_move, new_match, saw_position
from webapp.game.records import from_record, to_record
from webapp.game.skill import (
    DEFAULT_SKILL,
    MIN_MOVES,
    Counted,
    counted_moves,
    estimate,
    skill_from,
    wilson,
)
from webapp.game.strategies import skill_strategy
from webapp.game.verification import game_record, verify

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("skill", [0, 30, 60, 85, 100])
def test_the_skill_of_a_skill_player_is_found_within_its_interval(skill: int) -> None:
    entries = played_games(skill_strategy(skill), 60, random.Random(skill))
    found = skill_from(entries)
    assert found.measured and found.moves >= MIN_MOVES and found.hinted == 0
    assert found.low <= skill / 100 <= found.high, found
    assert abs(found.skill - skill / 100) < 0.15, found
    assert found.high - found.low < 0.35


def test_lucky_random_moves_are_not_counted_as_skill() -> None:
    entries = played_games(skill_strategy(0), 80, random.Random(1))
    counted = counted_moves(entries)
    assert counted.best / counted.moves > 0.3  # a random move is often a best one
    assert skill_from(entries).skill < 0.1


def test_moves_made_with_hints_shown_are_left_out() -> None:
    entries = played_games(skill_strategy(100), 40, random.Random(2), hints=True)
    found = skill_from(entries)
    assert found.moves == 0 and found.hinted >= MIN_MOVES
    assert not found.measured and found.skill == DEFAULT_SKILL
    assert all(
        move["hinted"] is True
        for entry in entries
        for move in entry["record"]["moves"]
        if move["by"] == "human"
    )


def test_below_the_fewest_moves_the_default_is_used_and_said() -> None:
    few = estimate(Counted(moves=MIN_MOVES - 1, best=MIN_MOVES - 1, luck=5.0))
    assert few.skill == DEFAULT_SKILL and not few.measured
    assert few.to_dict()["measured"] is False and few.to_dict()["min_moves"] == MIN_MOVES
    enough = estimate(Counted(moves=MIN_MOVES, best=MIN_MOVES, luck=5.0))
    assert enough.measured and enough.skill == 1.0
    assert estimate(Counted()).to_dict() == {
        "skill": DEFAULT_SKILL,
        "low": 0.0,
        "high": 1.0,
        "moves": 0,
        "hinted_left_out": 0,
        "measured": False,
        "min_moves": MIN_MOVES,
    }


def test_the_estimate_is_the_share_of_best_moves_less_the_lucky_ones() -> None:
    # 100 moves, 70 best, random moves would have found 40 best: (70 - 40) / (100 - 40).
    found = estimate(Counted(moves=100, best=70, luck=40.0))
    assert found.skill == pytest.approx(0.5)
    low, high = wilson(70, 100)
    assert found.low == pytest.approx((100 * low - 40) / 60)
    assert found.high == pytest.approx((100 * high - 40) / 60)
    assert estimate(Counted(moves=100, best=30, luck=40.0)).skill == 0.0  # clipped


def test_wilson_interval_matches_the_known_values() -> None:
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)


def test_fixed_modes_and_games_with_a_friend_are_not_counted() -> None:
    fixed = played_games(skill_strategy(100), 30, random.Random(3), mode="hard")
    friend = friend_game(
        (0, 3, 1, 4, 2), mine="X", result="win", resigned=None, game=1, game_id="f", ended=0.0
    )
    assert counted_moves([*fixed, friend]) == Counted()


@pytest.mark.parametrize("release", ["0.4.0", "0.5.0.dev0"])
def test_entries_stored_before_hints_were_recorded_count_all_their_moves(release: str) -> None:
    stored = [json.loads(line) for line in (FIXTURES / f"history-{release}.jsonl").open()]
    assert {entry["format"] for entry in stored} == {1}
    upgraded = [upgrade_entry(entry) for entry in stored]
    assert {entry["format"] for entry in upgraded} == {HISTORY_SCHEMA}
    humans = [m for e in upgraded for m in e["record"]["moves"] if m["by"] == "human"]
    assert humans and all(move["hinted"] is None for move in humans)
    assert counted_moves(stored) == counted_moves(upgraded)
    assert counted_moves(stored).moves > 0 and counted_moves(stored).hinted == 0


def test_entries_stored_with_hints_recorded_leave_the_hinted_moves_out() -> None:
    stored = [json.loads(line) for line in (FIXTURES / "history-0.5.0.dev0-hints.jsonl").open()]
    assert {entry["format"] for entry in stored} == {2}
    found = counted_moves(stored)
    assert (found.moves, found.best, found.hinted) == (3, 2, 1)
    assert found.luck == pytest.approx(1.0952, abs=1e-4)


# --- the match records the hints ------------------------------------------------------


def human_to_move(rng: random.Random, mode: str = "adaptive") -> Match:
    match = new_match(rng, mode=mode)
    return ai_move(match) if match.game.turn == "ai" else match


def test_a_hint_in_an_hp_game_marks_the_coming_move_once() -> None:
    match = human_to_move(random.Random(4))
    hinted = hint_shown(match)
    ply = len(match.game.history)
    assert hinted.game.hinted == (ply,) and hinted.version == match.version + 1
    assert hint_shown(hinted) is hinted  # asked again: nothing new
    assert from_record(json.loads(json.dumps(to_record(hinted)))) == hinted
    assert saw_position(hinted, match.version) and saw_position(hinted, hinted.version)
    assert not saw_position(match, match.version - 1)
    moved = human_move(hinted, match.game.board.legal_moves()[0])
    assert not saw_position(moved, match.version)
    record = game_record(moved)
    assert record["moves"][ply] == {
        "by": "human",
        "cell": moved.game.history[ply][1],
        "hinted": True,
    }
    assert all(m["hinted"] is False for m in record["moves"][:ply] if m["by"] == "human")


def test_a_hint_outside_an_hp_game_or_the_players_turn_marks_nothing() -> None:
    fixed = human_to_move(random.Random(5), mode="hard")
    assert hint_shown(fixed) is fixed
    rng = random.Random(6)
    match = new_match(rng)
    while match.game.turn != "ai":
        match = new_match(rng, version=match.version)
    assert hint_shown(match) is match


def test_a_finished_games_record_with_hinted_moves_verifies() -> None:
    entries = played_games(skill_strategy(50), 1, random.Random(7), hints=True)
    assert verify(entries[0]["record"]).game == 1
    assert entries[0]["record"]["format"] == 5


def test_stored_matches_of_schema_5_load_with_no_move_hinted() -> None:
    for line in (FIXTURES / "matches-0.5.0.dev0.jsonl").open():
        data = json.loads(json.loads(line)["data"])
        assert data["format"] == 5 and "hinted" not in data["game"]
        assert from_record(data).game.hinted == ()


@pytest.mark.parametrize("damaged", [[True], [-1], [10], ["0"], None])
def test_a_damaged_hinted_list_is_refused(damaged: Any) -> None:
    data = to_record(human_to_move(random.Random(8)))
    data["game"]["hinted"] = damaged
    with pytest.raises(ValueError, match=r"stored match|hinted"):
        from_record(data)


# --- through the protocol -----------------------------------------------------------


def test_a_hint_marks_the_move_in_the_history_and_a_move_on_the_state_before_is_taken(
    play: Actions,
) -> None:
    while play.state["turn"] != "human":
        play.play_out()
        play.emit("next_game")
    seen = play.state["version"]
    assert play.emit("hint")["analysis"]
    assert play.emit("hint")["analysis"]  # asked again, still one mark
    assert play.state["version"] == seen  # the mark is not shown: nothing changed there
    cell = play.state["board"].index(".")
    assert play.emit("move", {"cell": cell, "version": seen}) == {"ok": True}
    final = play.play_out()
    assert final["status"] != "playing"
    (game,) = play.emit("history")["games"]
    whole = play.emit("history_game", {"id": game["id"]})["game"]
    humans = [m for m in whole["record"]["moves"] if m["by"] == "human"]
    assert humans[0]["hinted"] is True and humans[0]["cell"] == cell
    assert all(move["hinted"] is False for move in humans[1:])


def test_a_move_on_an_older_state_is_still_refused_after_a_hint(play: Actions) -> None:
    while play.state["turn"] != "human":
        play.play_out()
        play.emit("next_game")
    seen = play.state["version"]
    play.emit("hint")
    stale = play.emit("move", {"cell": play.state["board"].index("."), "version": seen - 1})
    assert stale["error"]["code"] == "stale_version"


def test_the_lab_during_a_game_marks_the_coming_move_hinted(play: Actions) -> None:
    """The lab's values of a position are a hint: the move made after them is marked, and
    left out of the skill; the lab's counts of a search show no values and mark nothing."""
    while play.state["turn"] != "human":
        play.play_out()
        play.emit("next_game")
    counted = play.emit("lab_counts", {"board": play.state["board"], "scoring": "depth"})
    assert counted["ok"], counted
    first = play.state["board"].index(".")
    assert play.emit("move", {"cell": first}) == {"ok": True}
    shown = play.emit("lab_children", {"board": play.state["board"], "scoring": "depth"})
    assert shown["ok"] and shown["best"] is not None, shown
    assert play.emit("move", {"cell": shown["best"]}) == {"ok": True}
    final = play.play_out()
    humans = [m for m in final["record"]["moves"] if m["by"] == "human"]
    assert [m["hinted"] for m in humans[:2]] == [False, True]
    assert all(move["hinted"] is False for move in humans[2:])
    (game,) = play.emit("history")["games"]
    assert play.emit("history")["skill"]["hinted_left_out"] == 1, game
