"""The room core on every variant: whose turn, the end and the winner by the variant's
rule (misère: a line loses; Notakto: both place X, whoever kills the last board loses),
the line and dead boards, a room's rules stored, and rooms stored before them as classic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.game.board import RuleError
from webapp.game.room import (
    Room,
    RoomError,
    change_variant,
    from_record,
    open_room,
    room_move,
    take_seat,
    to_record,
)
from webapp.game.variant import CLASSIC, VARIANTS, variant_named

NOW = 1_000.0
FIXTURE_0_5_0 = Path(__file__).parent / "fixtures" / "rooms-0.5.0.jsonl"


def local(variant: str, moves: tuple[int, ...] = ()) -> Room:
    """A room on one device on ``variant`` (player "p"), after ``moves``."""
    room = open_room("local.p", "p", kind="local", now=NOW, variant=variant_named(variant))
    for cell in moves:
        room = room_move(room, "p", cell, now=NOW)
    return room


@pytest.mark.parametrize(
    ("variant", "moves", "winner", "line"),
    [
        ("classic", (0, 3, 1, 4, 2), 0, (0, 1, 2)),  # X (seat 0) makes a1 b1 c1: wins
        ("misere", (0, 3, 1, 4, 2), 1, (0, 1, 2)),  # the same line loses
        ("4x4k3", (0, 4, 1, 5, 2), 0, (0, 1, 2)),  # three in a row wins on 4x4
        ("4x4k4", (0, 4, 1, 5, 2, 6, 3), 0, (0, 1, 2, 3)),  # four in a row
        ("notakto1", (0, 1, 2), 1, None),  # the first player kills the only board: loses
        ("notakto2", (0, 1, 2, 9, 10, 11), 0, None),  # the second kills the last one
    ],
)
def test_the_end_and_winner_follow_the_variants_rule(
    variant: str, moves: tuple[int, ...], winner: int, line: tuple[int, ...] | None
) -> None:
    room = local(variant, moves[:-1])
    assert room.status == "playing" and room.winner is None
    room = room_move(room, "p", moves[-1], now=NOW)
    assert (room.status, room.winner, room.line) == ("over", winner, line)
    assert room.score.seat_wins[winner] == 1


def test_four_in_a_row_needs_four_on_4x4() -> None:
    room = local("4x4k4", (0, 4, 1, 5, 2, 6))
    assert (room.status, room.turn, room.line) == ("playing", 0, None)


def test_a_dead_notakto_board_is_said_and_cannot_be_played() -> None:
    room = local("notakto3", (0, 1, 2))
    assert (room.dead_boards, room.status, room.turn) == ((0,), "playing", 1)
    with pytest.raises(RuleError) as refused:
        room_move(room, "p", 4, now=NOW)
    assert refused.value.code == "dead_board"
    assert room_move(room, "p", 9, now=NOW).moves == (0, 1, 2, 9)


@pytest.mark.parametrize("cell", [16, -1, "a1", True])
def test_a_cell_off_the_variants_board_is_refused(cell: object) -> None:
    with pytest.raises(RuleError) as refused:
        room_move(local("4x4k4"), "p", cell, now=NOW)
    assert refused.value.code == "cell_out_of_range"
    assert room_move(local("4x4k4"), "p", 15, now=NOW).moves == (15,)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_rooms_rules_are_stored_with_it(variant: object) -> None:
    name = variant.name  # type: ignore[attr-defined]
    host = open_room("r", "a", kind="online", now=NOW, variant=variant_named(name))
    room = room_move(take_seat(host, "b", coin=0, now=NOW), "a", 0, now=NOW)
    record = to_record(room)
    # A classic room is written as before variants: 0.5.0 still reads it.
    assert ("variant" in record) == (name != "classic")
    assert from_record(json.loads(json.dumps(record))) == room


def test_rooms_stored_by_0_5_0_load_as_classic() -> None:
    playing, left = (from_record(json.loads(line)) for line in FIXTURE_0_5_0.open())
    assert playing.variant == CLASSIC and left.variant == CLASSIC
    assert str(room_move(playing, "alice-player", 0, now=NOW).position) == "O...X...."


@pytest.mark.parametrize("damage", [{"variant": "5x5"}, {"variant": 4}, {"variant": None}])
def test_a_record_with_unknown_rules_is_refused(damage: dict[str, object]) -> None:
    record = to_record(local("classic"))
    with pytest.raises(RoomError) as refused:
        from_record({**record, **damage})
    assert refused.value.code == "bad_state"


def test_a_record_whose_moves_break_its_rules_is_refused() -> None:
    record = to_record(local("notakto2", (0, 1, 2)))
    with pytest.raises(RuleError):
        from_record({**record, "moves": [0, 1, 2, 3]})  # 3 is on the dead board


def test_one_device_changes_rules_with_a_new_series_and_a_friends_room_cannot() -> None:
    room = local("classic", (0, 4, 1, 3, 2))
    changed = change_variant(room, variant_named("4x4k4"), now=NOW)
    assert (changed.variant.name, changed.moves, changed.score.seat_wins) == ("4x4k4", (), (0, 0))
    assert change_variant(changed, variant_named("4x4k4"), now=NOW) is changed
    friend = take_seat(open_room("r", "a", kind="online", now=NOW), "b", coin=0, now=NOW)
    with pytest.raises(RoomError) as refused:
        change_variant(friend, variant_named("misere"), now=NOW)
    assert refused.value.code == "not_allowed"
