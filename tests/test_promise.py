"""A targeted match keeps its promise in its stored row and its games' records, and the
promises are checked against what happened (the calibration)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from support.skill_play import one_match

from webapp.game.calibration import BUCKETS, calibration, calibration_of, targeted_outcomes
from webapp.game.history import SCHEMA as HISTORY_SCHEMA
from webapp.game.history import Entry, finished_game, friend_game, summary, upgrade_entry
from webapp.game.match import Match, ai_move, human_move, new_match, next_game
from webapp.game.promise import Promise, promise_from
from webapp.game.records import SCHEMA, from_record, to_record
from webapp.game.rules import MatchError
from webapp.game.skill import wilson
from webapp.game.tune import tune
from webapp.game.verification import FORMAT, game_record, verify

FIXTURES = Path(__file__).parent / "fixtures"
PROMISE = Promise(
    target=0.6, chance=0.6031, reachable=True, skill=0.83, low=0.76, high=0.89, moves=140,
    measured=True,
)  # fmt: skip


def played_out(match: Match, rng: random.Random, entries: list[Entry]) -> Match:
    """``match`` played to its end by a player who takes the first free cell."""
    while not match.over:
        if match.game.turn is None:
            match = next_game(match, rng)
        elif match.game.turn == "ai":
            match = ai_move(match)
        else:
            match = human_move(match, match.game.board.legal_moves()[0])
        if match.game.turn is None:
            entries.append(finished_game(match, game_id=f"g{len(entries)}", ended=0.0))
    return match


def test_a_targeted_match_keeps_its_promise_through_storage_and_every_game() -> None:
    rng = random.Random(1)
    entries: list[Entry] = []
    match = played_out(new_match(rng, promise=PROMISE), rng, entries)
    assert match.promise == PROMISE and len(entries) > 1
    stored = to_record(match)
    assert stored["format"] == SCHEMA == 7 and stored["promise"] == PROMISE.to_dict()
    assert from_record(json.loads(json.dumps(stored))) == match
    for entry in entries:
        assert entry["format"] == HISTORY_SCHEMA == 5
        assert entry["record"]["promise"] == PROMISE.to_dict()
        assert entry["record"]["format"] == FORMAT == 5
        assert summary(entry)["promise"] == PROMISE.to_dict()
    assert verify(entries[-1]["record"]).game == len(entries)
    assert targeted_outcomes(entries) == [(0.6031, match.winner == "human")]


def test_only_an_hp_match_makes_a_promise() -> None:
    with pytest.raises(MatchError, match="HP match"):
        new_match(random.Random(2), mode="hard", promise=PROMISE)


def test_a_match_without_a_target_promises_nothing() -> None:
    match = new_match(random.Random(3))
    assert match.promise is None and to_record(match)["promise"] is None
    assert game_record(match)["promise"] is None


@pytest.mark.parametrize(
    "damage",
    [
        {"promise": "0.6"},
        {"promise": {"target": 0.6}},
        {"chance": 1.5},
        {"chance": True},
        {"target": float("nan")},
        {"reachable": 1},
        {"skill": {**PROMISE.to_dict()["skill"], "moves": -1}},
        {"skill": {**PROMISE.to_dict()["skill"], "low": -0.1}},
    ],
)
def test_a_damaged_promise_is_refused(damage: dict[str, Any]) -> None:
    data = to_record(new_match(random.Random(4), promise=PROMISE))
    if "promise" in damage:
        data["promise"] = damage["promise"]
    else:
        data["promise"] = {**data["promise"], **damage}
    with pytest.raises(ValueError, match="stored match is damaged"):
        from_record(data)


def test_promise_from_reads_what_to_dict_writes() -> None:
    assert promise_from(PROMISE.to_dict()) == PROMISE
    assert promise_from(None) is None


def test_rows_stored_before_promises_load_with_none() -> None:
    for line in (FIXTURES / "matches-0.5.0.dev0-hints.jsonl").open():
        data = json.loads(json.loads(line)["data"])
        assert data["format"] == 6 and "promise" not in data
        assert from_record(data).promise is None


@pytest.mark.parametrize(
    "fixture", ["history-0.4.0", "history-0.5.0.dev0", "history-0.5.0.dev0-hints"]
)
def test_entries_stored_before_promises_upgrade_to_none(fixture: str) -> None:
    stored = [json.loads(line) for line in (FIXTURES / f"{fixture}.jsonl").open()]
    assert {entry.get("format", 1) for entry in stored} <= {1, 2}
    for before, after in zip(stored, map(upgrade_entry, stored), strict=True):
        assert after["format"] == HISTORY_SCHEMA and after["record"]["promise"] is None
        hinted = [move.get("hinted") for move in after["record"]["moves"]]
        if before.get("format", 1) == 2:  # the marks stored stay as they were
            assert hinted == [move.get("hinted") for move in before["record"]["moves"]]
        assert summary(after)["promise"] is None
    assert targeted_outcomes(stored) == []


def test_friend_games_and_unfinished_matches_are_not_calibrated() -> None:
    friend = friend_game(
        (0, 3, 1, 4, 2), mine="X", result="win", resigned=None, game=1, game_id="f", ended=0.0
    )
    rng = random.Random(5)
    match = new_match(rng, promise=PROMISE)
    while match.game.turn is not None:
        match = (
            ai_move(match)
            if match.game.turn == "ai"
            else human_move(
                match,
                4 if 4 in match.game.board.legal_moves() else match.game.board.legal_moves()[0],
            )
        )
    unfinished = finished_game(match, game_id="u", ended=0.0)
    assert not unfinished["match_over"]
    assert calibration_of([friend, upgrade_entry(friend), unfinished]).matches == 0


def test_calibration_buckets_promises_by_tenths_with_wilson_intervals() -> None:
    outcomes = [(0.62, True), (0.68, False), (0.65, True), (0.05, False), (1.0, True)]
    found = calibration(outcomes)
    assert (found.matches, found.won) == (5, 3)
    assert found.expected == pytest.approx(0.62 + 0.68 + 0.65 + 0.05 + 1.0)
    assert [(b.low, b.high, b.matches, b.won) for b in found.buckets] == [
        (0.0, 0.1, 1, 0),
        (0.6, 0.7, 3, 2),
        (0.9, 1.0, 1, 1),  # a promise of 1 falls in the last bucket
    ]
    middle = found.to_dict()["buckets"][1]
    assert middle["promised"] == pytest.approx(0.65) and middle["observed"] == pytest.approx(
        2 / 3, abs=1e-4
    )
    assert middle["interval"] == [pytest.approx(v, abs=1e-4) for v in wilson(2, 3)]
    assert found.to_dict()["expected_wins"] == 3.0
    assert calibration([]).to_dict() == {"matches": 0, "won": 0, "expected_wins": 0, "buckets": []}
    assert BUCKETS == 10


def test_promises_of_tuned_matches_are_kept_within_sampling_error() -> None:
    # A seeded skill:0.8 player, 200 matches at each of four targets, each under the rules
    # tuned for it: each bucket's share won is within 4 standard errors of the mean
    # chance promised, and the promised chance lies in the 95% interval of most buckets.
    rng = random.Random(33)
    outcomes = []
    for target in (0.2, 0.45, 0.7, 0.9):
        tuned = tune(target, "skill:0.8")
        outcomes += [(tuned.chance, one_match(tuned.rules, 80, rng)[0]) for _ in range(200)]
    found = calibration(outcomes)
    assert found.matches == 800 and len(found.buckets) == 4
    inside = 0
    for bucket in found.to_dict()["buckets"]:
        p, n = bucket["promised"], bucket["matches"]
        assert abs(bucket["observed"] - p) <= 4 * math.sqrt(p * (1 - p) / n), bucket
        inside += bucket["interval"][0] <= p <= bucket["interval"][1]
    assert inside >= 3
    assert abs(found.won - found.expected) <= 4 * math.sqrt(
        sum(b.promised * (1 - b.promised) * b.matches for b in found.buckets)
    )
