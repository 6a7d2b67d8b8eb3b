"""Stored match records: the round trip, the upgrade of earlier schemas, damaged records."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from webapp.game import records, strategies
from webapp.game.fairness import Dice
from webapp.game.game import AiMove
from webapp.game.match import Match, Record, ai_move, human_move, new_match, next_game
from webapp.game.records import SCHEMA, from_record, to_record, upgrade
from webapp.game.rules import FIXED_STRATEGIES, MatchError, Rules
from webapp.game.simulation import PLAYERS, match_states
from webapp.game.verification import game_record

FIXTURES = Path(__file__).parent / "fixtures"
# Rows as the 0.1.0 server stored them: its "data" column is the record's JSON text.
ROWS_0_1_0 = [
    json.loads(line)
    for line in (FIXTURES / "matches-0.1.0.jsonl").read_text().splitlines()
    if line.strip()
]


def round_trip(match: Match) -> Match:
    return from_record(json.loads(json.dumps(to_record(match))))


def ai_first(mode: str = "adaptive") -> Match:
    """A new match whose first game the AI starts."""
    match = new_match(random.Random(0), mode=mode)
    return dataclasses.replace(match, game=dataclasses.replace(match.game, first="ai"))


def ai_first_with_moves() -> Match:
    """An adaptive match in which the AI moved first and the human replied."""
    match = ai_move(ai_first())
    return human_move(match, match.game.board.legal_moves()[0])


def record_of(player: str) -> dict[str, Any]:
    """The stored record of one 0.1.0 fixture row, parsed."""
    (row,) = [row for row in ROWS_0_1_0 if row["player"] == player]
    data: dict[str, Any] = json.loads(row["data"])
    return data


# --- the round trip ------------------------------------------------------------------


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_round_trip_along_whole_matches(player: str, seed: int) -> None:
    states = list(match_states(strategies.strategy(player), random.Random(seed)))
    assert states[-1].over
    for state in states:
        restored = round_trip(state)
        assert restored == state
        assert to_record(restored) == to_record(state)
    assert [s.version for s in states] == list(range(1, len(states) + 1))


@pytest.mark.parametrize("mode", ["easy", "medium", "hard", "impossible"])
def test_round_trip_in_fixed_modes(mode: str) -> None:
    rng = random.Random(4)
    match = new_match(rng, mode=mode, rules=Rules(start_human_hp=40, start_ai_hp=70))
    for _ in range(3):
        while match.game.turn is not None:
            if match.game.turn == "human":
                match = human_move(match, strategies.random_move(match.game.board, rng))
            else:
                match = ai_move(match, clock=iter(range(0, 10**9, 3_000)).__next__)
            assert round_trip(match) == match
        match = next_game(match, rng)
    assert round_trip(match) == match


def test_record_has_the_current_schema() -> None:
    data = to_record(ai_first_with_moves())
    assert data["format"] == SCHEMA == 7
    assert data["promise"] is None
    assert data["game"]["setup"] == []
    assert data["game"]["first_by"] == "dice"
    assert len(data["next_seed"]) == 64
    assert json.loads(json.dumps(data)) == data
    assert set(data["rules"]) >= {"start_human_hp", "start_ai_hp"}
    assert not set(data["rules"]) & {"human_hp", "ai_hp"}
    assert data["locked"] is None
    (move,) = data["game"]["ai_moves"]
    assert set(move) == {
        "cell",
        "decision",
        "roll",
        "difficulty",
        "think_us",
        "roll_n",
        "candidates",
        "pick_n",
    }
    assert (move["roll_n"], move["pick_n"]) == (1, 2)  # number 0 drew who starts
    dice = data["game"]["dice"]
    assert set(dice) == {
        "server_seed",
        "client_seed",
        "game",
        "used",
        "committed",
        "player_seeded",
    }
    assert (dice["used"], dice["game"], dice["committed"]) == (3, 1, True)


@pytest.mark.parametrize(
    "value",
    [
        Rules(start_human_hp=7, start_ai_hp=40, max_hp=50, draw_ai_damage=3, lookahead_depth=4),
        Record(wins=1, losses=2, draws=3),
        Dice("ab" * 32, "mine", 4, used=5, committed=False),
        AiMove(
            3, "random", roll=17, difficulty=40, think_us=9, roll_n=1, candidates=(3, 5), pick_n=2
        ),
    ],
    ids=lambda value: type(value).__name__,
)
def test_written_out_serialisers_hold_every_field_in_order(value: Any) -> None:
    # They replace dataclasses.asdict on the hot path: a field added later must be added
    # to to_dict too, and this fails until it is.
    expected = dataclasses.asdict(value)
    if isinstance(value, AiMove):
        expected["candidates"] = list(value.candidates)
    if isinstance(value, Rules):
        del expected["variant"]  # classic writes none, as before variants came
    assert list(value.to_dict().items()) == list(expected.items())


def test_current_records_pass_the_upgrade_unchanged() -> None:
    data = to_record(ai_first_with_moves())
    assert upgrade(copy.deepcopy(data)) == data


def test_perfect_decision_is_stored_as_perfect() -> None:
    match = ai_move(ai_first("impossible"))
    data = to_record(match)
    assert data["game"]["ai_moves"][0]["decision"] == "perfect"
    assert round_trip(match).game.ai_moves[0].decision == "perfect"


# --- records of earlier releases -----------------------------------------------------


def test_the_fixture_covers_the_0_1_0_shapes() -> None:
    assert len(ROWS_0_1_0) >= 6
    decisions = {
        move["decision"]
        for row in ROWS_0_1_0
        for move in json.loads(row["data"])["game"]["ai_moves"]
    }
    assert {"minimax", "random"} <= decisions
    assert {json.loads(row["data"])["format"] for row in ROWS_0_1_0} == {1}


@pytest.mark.parametrize("row", ROWS_0_1_0, ids=lambda row: row["player"])
def test_format_1_records_upgrade_to_the_current_schema(row: dict[str, Any]) -> None:
    old = json.loads(row["data"])
    kept = copy.deepcopy(old)
    data = upgrade(old)
    assert old == kept  # the stored record is not changed in place
    assert data["format"] == SCHEMA
    assert data["rules"]["start_human_hp"] == old["rules"]["human_hp"]
    assert data["rules"]["start_ai_hp"] == old["rules"]["ai_hp"]
    assert "human_hp" not in data["rules"]
    assert "ai_hp" not in data["rules"]
    decisions = [move["decision"] for move in data["game"]["ai_moves"]]
    expected = [
        "perfect" if move["decision"] == "minimax" else move["decision"]
        for move in old["game"]["ai_moves"]
    ]
    assert decisions == expected
    assert "minimax" not in decisions
    # Everything else is carried over as it was.
    for key in ("version", "mode", "human_hp", "ai_hp", "game_number", "record"):
        assert data[key] == old[key]
    assert data["game"]["history"] == old["game"]["history"]


@pytest.mark.parametrize("row", ROWS_0_1_0, ids=lambda row: row["player"])
def test_format_1_records_load(row: dict[str, Any]) -> None:
    old = json.loads(row["data"])
    match = from_record(copy.deepcopy(old))
    assert match.version == row["version"] == old["version"]
    assert match.rules.start_human_hp == old["rules"]["human_hp"]
    assert match.rules.start_ai_hp == old["rules"]["ai_hp"]
    assert (match.human_hp, match.ai_hp) == (old["human_hp"], old["ai_hp"])
    assert [list(move) for move in match.game.history] == old["game"]["history"]
    # Saved again, it is the upgraded record, and it loads to the same match.
    assert to_record(match) == upgrade(copy.deepcopy(old))
    assert round_trip(match) == match


def test_format_1_perfect_moves_load_as_perfect() -> None:
    adaptive = from_record(record_of("adaptive-perfect-move"))
    assert adaptive.game.ai_moves == (AiMove(4, "perfect", roll=54, difficulty=95, think_us=4),)
    impossible = from_record(record_of("impossible-human-to-move"))
    assert impossible.mode == "impossible"
    assert impossible.game.ai_moves == (AiMove(5, "perfect", think_us=3),)


def test_format_1_starting_hp_load_as_start_hp() -> None:
    match = from_record(record_of("adaptive-ai-to-move"))
    assert (match.rules.start_human_hp, match.rules.start_ai_hp) == (80, 60)
    assert (match.human_hp, match.ai_hp) == (46, 60)
    assert match.game.turn == "ai"


def test_every_schema_below_the_current_one_has_an_upgrade() -> None:
    assert set(records.UPGRADES) == set(range(1, SCHEMA))


# --- unknown, newer and damaged records ----------------------------------------------


@pytest.mark.parametrize("schema", [None, 0, -1, SCHEMA + 1, 99, "2", "1", 1.5, [2]])
def test_unknown_or_newer_schemas_are_refused(schema: object) -> None:
    data = to_record(ai_first_with_moves())
    if schema is None:
        data.pop("format")
    else:
        data["format"] = schema
    with pytest.raises(MatchError) as caught:
        from_record(data)
    assert caught.value.code == "bad_state"
    with pytest.raises(MatchError) as caught:
        upgrade(data)
    assert caught.value.code == "bad_state"


DAMAGE: list[Callable[[dict[str, Any]], object]] = [
    lambda d: d.pop("game"),
    lambda d: d["game"].pop("history"),
    lambda d: d["game"].pop("ai_moves"),
    lambda d: d.pop("rules"),
    lambda d: d["rules"].update(colour="red"),
    lambda d: d["rules"].update(start_human_hp=0),
    lambda d: d.pop("record"),
    lambda d: d["game"].update(history=[["ai", 4]], ai_moves=[]),
    lambda d: d["game"].update(history=[["human", 4]]),
    lambda d: d["game"]["history"].append(["human", 4]),
    lambda d: d["game"]["history"].append(["ai", 9]),
    lambda d: d["game"].update(first="nobody"),
    lambda d: d.update(mode="godlike"),
    lambda d: d["game"]["ai_moves"][0].update(feeling="lucky"),
    lambda d: d["game"].pop("dice"),
    lambda d: d["game"]["dice"].update(used=1),  # the stored dice skip a move's numbers
    lambda d: d["game"]["dice"].update(game=2),
    lambda d: d["game"]["dice"].update(server_seed="00"),
    lambda d: d["game"]["dice"].update(client_seed="a:b"),
    lambda d: d["game"]["ai_moves"][0].update(pick_n=5),
    lambda d: d.pop("locked"),
    lambda d: d.update(locked=101),
    lambda d: d.update(locked="50"),
]


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_records_are_refused(damage: Callable[[dict[str, Any]], object]) -> None:
    data = to_record(ai_first_with_moves())
    damage(data)
    with pytest.raises(MatchError) as caught:
        from_record(data)
    assert caught.value.code == "bad_state"


DAMAGE_1: list[Any] = [
    lambda d: d.pop("rules"),
    lambda d: d["rules"].pop("human_hp"),
    lambda d: d["rules"].pop("ai_hp"),
    lambda d: d.update(rules=None),
    pytest.param(lambda d: d.update(rules="hp"), id="rules-not-a-mapping"),
    lambda d: d.pop("game"),
    lambda d: d["game"].pop("ai_moves"),
    lambda d: d["game"]["ai_moves"][0].pop("decision"),
    lambda d: d["game"].update(ai_moves=[7]),
    lambda d: d["game"].update(ai_moves=None),
    # Already renamed, as no 0.1.0 server wrote it: not a format 1 record.
    lambda d: d["rules"].update(start_human_hp=d["rules"].pop("human_hp")),
]


@pytest.mark.parametrize("damage", DAMAGE_1)
def test_damaged_format_1_records_are_refused(damage: Callable[[dict[str, Any]], object]) -> None:
    data = record_of("adaptive-perfect-move")
    damage(data)
    with pytest.raises(MatchError) as caught:
        from_record(data)
    assert caught.value.code == "bad_state"


@pytest.mark.parametrize("data", [None, [], "format", 2])
def test_records_that_are_not_objects_are_refused(data: object) -> None:
    with pytest.raises(MatchError) as caught:
        from_record(data)  # type: ignore[arg-type]
    assert caught.value.code == "bad_state"


# --- records of release 0.2.0 --------------------------------------------------------

ROWS_0_2_0 = [
    json.loads(line)
    for line in (FIXTURES / "matches-0.2.0.jsonl").read_text().splitlines()
    if line.strip()
]


def test_the_fixture_covers_the_0_2_0_shapes() -> None:
    records_0_2_0 = [json.loads(row["data"]) for row in ROWS_0_2_0]
    assert {data["format"] for data in records_0_2_0} == {2}
    assert {data["mode"] for data in records_0_2_0} == {"adaptive", *FIXED_STRATEGIES}
    assert any(data["rules"] != Rules().to_dict() for data in records_0_2_0)
    assert any(data["game"]["ai_moves"] for data in records_0_2_0)


@pytest.mark.parametrize("row", ROWS_0_2_0, ids=lambda row: row["player"])
def test_format_2_records_upgrade_to_unlocked_games_without_a_commitment(
    row: dict[str, Any],
) -> None:
    old = json.loads(row["data"])
    data = upgrade(copy.deepcopy(old))
    assert data["format"] == SCHEMA
    assert data["locked"] is None
    dice = data["game"]["dice"]
    assert (dice["client_seed"], dice["game"], dice["used"]) == ("upgraded", old["game_number"], 1)
    assert dice["committed"] is False
    assert len(dice["server_seed"]) == 64
    for move, before in zip(data["game"]["ai_moves"], old["game"]["ai_moves"], strict=True):
        assert move == {**before, "roll_n": None, "candidates": [], "pick_n": None}
    for key in ("version", "mode", "rules", "human_hp", "ai_hp", "game_number", "record"):
        assert data[key] == old[key]
    assert data["game"]["history"] == old["game"]["history"]


@pytest.mark.parametrize("row", ROWS_0_2_0, ids=lambda row: row["player"])
def test_format_2_records_load_and_their_game_goes_on(row: dict[str, Any]) -> None:
    match = from_record(json.loads(row["data"]))
    assert match.version == row["version"]
    assert game_record(match)["dice"] is None  # never committed: nothing to verify
    assert round_trip(match) == match
    if match.game.turn == "ai":
        played = ai_move(match)
        assert played.game.ai_moves[-1].pick_n is not None
        assert round_trip(played) == played
    if not match.over and match.game.turn is None:
        following = next_game(match, random.Random(1), client_seed="mine")
        assert following.game.dice.committed
        assert game_record(following)["dice"]["client_seed"] == "mine"
