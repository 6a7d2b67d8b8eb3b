"""The room core: seats, turns, the tally, rematch agreement, take-back and expiry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.game.board import RuleError
from webapp.game.room import (
    EndedGame,
    Room,
    RoomError,
    Tally,
    ended_game,
    expired,
    from_record,
    leave,
    open_room,
    rematch,
    resign,
    room_move,
    set_name,
    take_back,
    take_free_seat,
    take_seat,
    to_record,
)

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

NOW = 1_000.0


def seated(coin: int = 0) -> Room:
    """An online room with host "a" and friend "b", its first game begun."""
    room = open_room("r", "a", kind="online", now=NOW)
    return take_seat(room, "b", coin=coin, now=NOW)  # type: ignore[arg-type]


def play(room: Room, *cells: int) -> Room:
    """Play ``cells`` in turn, each by whoever holds the seat to move."""
    for cell in cells:
        mover = room.seats[room.turn]  # type: ignore[index]
        room = room_move(room, str(mover), cell, now=NOW)
    return room


def test_online_room_waits_for_its_friend() -> None:
    room = open_room("r", "a", kind="online", now=NOW)
    assert (room.status, room.seats, room.turn) == ("waiting", ("a", None), None)
    with pytest.raises(RoomError) as refused:
        room_move(room, "a", 4, now=NOW)
    assert refused.value.code == "not_your_turn"


@pytest.mark.parametrize("coin", [0, 1])
def test_second_player_takes_the_seat_and_the_coin_picks_x(coin: int) -> None:
    room = seated(coin)
    assert room.seats == ("a", "b")
    assert (room.status, room.game_number, room.x_seat, room.turn) == ("playing", 1, coin, coin)


def test_a_held_seat_is_never_taken() -> None:
    room = seated()
    assert take_seat(room, "c", coin=1, now=NOW) is room
    assert take_seat(room, "b", coin=1, now=NOW) is room
    assert room.seats_of("c") == ()


def test_moves_go_by_turn_and_seat() -> None:
    room = seated(coin=0)  # a plays X
    with pytest.raises(RoomError) as out_of_turn:
        room_move(room, "b", 4, now=NOW)
    assert out_of_turn.value.code == "not_your_turn"
    with pytest.raises(RoomError) as spectator:
        room_move(room, "c", 4, now=NOW)
    assert spectator.value.code == "not_seated"
    room = room_move(room, "a", 4, now=NOW)
    assert (room.board.cells[4], room.turn, room.version) == ("X", 1, 3)
    with pytest.raises(RuleError) as taken:
        room_move(room, "b", 4, now=NOW)
    assert taken.value.code == "cell_taken"


def test_a_won_game_counts_once_and_a_rematch_needs_both() -> None:
    room = play(seated(coin=1), 0, 3, 1, 4, 2)  # b (X) takes the top row
    assert (room.status, room.winner) == ("over", 1)
    assert room.score == Tally(seat_wins=(0, 1), x_wins=1)
    with pytest.raises(RoomError) as no_moves:
        room_move(room, "a", 8, now=NOW)
    assert no_moves.value.code == "game_over"
    asked = rematch(room, "a", now=NOW)
    assert (asked.status, asked.rematch) == ("over", frozenset({0}))
    assert rematch(asked, "a", now=NOW) is asked  # asking twice changes nothing
    with pytest.raises(RoomError):
        rematch(asked, "c", now=NOW)
    second = rematch(asked, "b", now=NOW)
    assert (second.status, second.game_number, second.x_seat, second.moves) == (
        "playing",
        2,
        0,
        (),
    )
    assert second.tally == second.score == Tally(seat_wins=(0, 1), x_wins=1)


def test_rematch_waits_for_the_end_of_the_game() -> None:
    with pytest.raises(RoomError) as early:
        rematch(seated(), "a", now=NOW)
    assert early.value.code == "game_not_over"


def test_a_draw_counts_as_a_draw() -> None:
    room = play(seated(), 0, 1, 2, 4, 3, 5, 7, 6, 8)
    assert (room.status, room.winner) == ("over", None)
    assert room.score == Tally(draws=1)


def test_resigning_gives_the_game_to_the_other_seat() -> None:
    room = resign(play(seated(coin=0), 4), "a", now=NOW)
    assert (room.status, room.winner, room.resigned) == ("over", 1, 0)
    assert room.score.seat_wins == (0, 1)
    with pytest.raises(RoomError) as again:
        resign(room, "b", now=NOW)
    assert again.value.code == "game_over"


def test_leaving_keeps_the_series_and_the_seat_is_taken_only_on_purpose() -> None:
    room = play(seated(coin=0), 4)
    left = leave(room, "b", now=NOW)  # mid-game: the leaver loses that game
    assert (left.seats, left.status, left.left) == (("a", None), "waiting", 1)
    assert left.score == Tally(seat_wins=(1, 0), x_wins=1)
    assert take_seat(left, "c", coin=1, now=NOW) is left  # opening the link seats no one
    newcomer = take_free_seat(left, "c", coin=1, now=NOW)
    assert (newcomer.seats, newcomer.status, newcomer.x_seat) == (("a", "c"), "playing", 1)
    assert (newcomer.score, newcomer.left) == (Tally(), None)  # a new series
    assert take_free_seat(newcomer, "c", coin=0, now=NOW) is newcomer
    with pytest.raises(RoomError) as full:
        take_free_seat(newcomer, "d", coin=0, now=NOW)
    assert full.value.code == "no_free_seat"
    assert leave(leave(room, "a", now=NOW), "b", now=NOW).empty


def named(room: Room) -> Room:
    """``room`` with its host "a" named Ann and its friend "b" named Bo."""
    room = set_name(room, "a", "Ann", now=NOW, max_chars=20)
    return set_name(room, "b", "Bo", now=NOW, max_chars=20)


def test_the_leavers_name_stays_until_a_new_series_and_the_seat_taken_is_said() -> None:
    left = leave(play(named(seated(coin=0)), 0, 3, 1, 4, 2), "b", now=NOW)
    assert (left.names, left.left, left.former, left.taken) == (("Ann", None), 1, "Bo", None)
    newcomer = take_free_seat(left, "c", coin=1, now=NOW)
    # Cy took Bo's seat: the room says so through the new series' first game.
    assert (newcomer.left, newcomer.former, newcomer.taken) == (None, "Bo", 1)
    assert (newcomer.score, newcomer.names) == (Tally(), ("Ann", None))
    cy = set_name(newcomer, "c", "Cy", now=NOW, max_chars=20)
    over = play(cy, 0, 3, 1, 4, 2)
    assert (over.status, over.former, over.taken) == ("over", "Bo", 1)
    assert from_record(to_record(over)) == over
    second = rematch(rematch(over, "a", now=NOW), "c", now=NOW)
    assert (second.game_number, second.former, second.taken) == (2, None, None)
    assert "former" not in to_record(second) and "taken" not in to_record(second)
    # The first player ever to open the link took no one's seat.
    assert (seated().former, seated().taken) == (None, None)
    # The host leaves the newcomer alone: the notice is of that leave, not the old one.
    alone = leave(cy, "a", now=NOW)
    assert (alone.left, alone.former, alone.taken) == (0, "Ann", None)
    # A player who deletes their data leaves no name behind.
    assert leave(cy, "a", now=NOW, erased=True).former is None


def test_a_player_who_leaves_a_game_under_way_forfeits_it() -> None:
    under_way = play(seated(coin=0), 4, 0)
    left = leave(under_way, "a", now=NOW)  # seat 0 (X) leaves
    assert ended_game(under_way, left) == EndedGame(
        players=("a", "b"), moves=(4, 0), x_seat=0, number=1, winner=1, forfeit=0
    )
    assert left.score.seat_wins == (0, 1)
    won = play(seated(coin=0), 0, 3, 1, 4, 2)
    assert ended_game(won, leave(won, "b", now=NOW)) is None  # it had ended already
    ended = ended_game(play(seated(coin=0), 0, 3, 1, 4), won)
    assert ended == EndedGame(("a", "b"), (0, 3, 1, 4, 2), 0, 1, winner=0)
    resigned = resign(under_way, "b", now=NOW)
    assert ended_game(under_way, resigned) == EndedGame(
        ("a", "b"), (4, 0), 0, 1, winner=0, resigned=1
    )
    assert ended_game(won, set_name(won, "a", "Ann", now=NOW, max_chars=20)) is None
    local = room_move(open_room("l", "p", kind="local", now=NOW), "p", 4, now=NOW)
    assert ended_game(local, leave(local, "p", now=NOW)) is None  # one device keeps none


def test_a_finished_game_stays_in_the_score_after_a_leave() -> None:
    won = play(seated(coin=0), 0, 3, 1, 4, 2)  # seat 0 (X) wins
    left = leave(won, "a", now=NOW)
    assert (left.score.seat_wins, left.left, left.seats) == ((1, 0), 0, (None, "b"))


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("  Ann  ", "Ann"),
        ("", None),
        ("e\u0301" * 20, "\u00e9" * 20),  # 40 code points, 20 after NFC
        ("\U0001f600" * 20, "\U0001f600" * 20),
    ],
)
def test_names_are_kept_after_nfc(name: str, kept: str | None) -> None:
    room = set_name(seated(), "b", name, now=NOW, max_chars=20)
    assert room.names == (None, kept)


@pytest.mark.parametrize(
    "name",
    ["x" * 21, "Ann\u202eevil", "a\u2066b", "bell\x07", "two\nlines", "z\u200fw", 7, None],
)
def test_bad_names_are_refused(name: object) -> None:
    with pytest.raises(RoomError) as refused:
        set_name(seated(), "b", name, now=NOW, max_chars=20)
    assert refused.value.code == "bad_name"


def test_names_are_for_players_and_go_with_their_seat() -> None:
    named = set_name(
        set_name(seated(), "a", "Ann", now=NOW, max_chars=20), "b", "Bo", now=NOW, max_chars=20
    )
    assert named.names == ("Ann", "Bo")
    with pytest.raises(RoomError) as watcher:
        set_name(named, "c", "Cy", now=NOW, max_chars=20)
    assert watcher.value.code == "not_seated"
    assert leave(named, "a", now=NOW).names == (None, "Bo")
    assert from_record(to_record(named)) == named


def test_one_device_holds_both_seats_and_takes_back() -> None:
    room = open_room("local.a", "a", kind="local", now=NOW)
    assert (room.status, room.seats_of("a")) == ("playing", (0, 1))
    room = room_move(room_move(room, "a", 4, now=NOW), "a", 0, now=NOW)
    assert room.board.cells == "O...X...."
    back = take_back(room, "a", now=NOW)
    assert (back.moves, back.turn, back.board.cells) == ((4,), 1, "....X....")


def test_one_device_can_take_back_the_winning_move() -> None:
    room = play(open_room("local.a", "a", kind="local", now=NOW), 0, 3, 1, 4, 2)
    assert room.score.x_wins == 1
    back = take_back(room, "a", now=NOW)
    assert (back.status, back.score, back.turn) == ("playing", Tally(), 0)


def test_one_device_alternates_x_and_tallies_by_mark() -> None:
    room = play(open_room("local.a", "a", kind="local", now=NOW), 0, 3, 1, 4, 2)
    second = rematch(room, "a", now=NOW)  # one device: both seats ask at once
    assert (second.game_number, second.x_seat) == (2, 1)
    third = rematch(play(second, 0, 3, 1, 4, 2), "a", now=NOW)
    assert third.tally == Tally(seat_wins=(1, 1), x_wins=2)


def test_take_back_is_only_for_one_device() -> None:
    with pytest.raises(RoomError) as online:
        take_back(play(seated(), 4), "a", now=NOW)
    assert online.value.code == "not_allowed"
    with pytest.raises(RoomError) as nothing:
        take_back(open_room("local.a", "a", kind="local", now=NOW), "a", now=NOW)
    assert nothing.value.code == "not_allowed"


def test_expiry_counts_from_the_last_change() -> None:
    room = play(seated(), 4)
    assert not expired(room, now=NOW + 3600, idle_seconds=3600)
    assert expired(room, now=NOW + 3601, idle_seconds=3600)


def test_record_round_trip_and_damaged_records() -> None:
    room = rematch(rematch(play(seated(coin=1), 0, 3, 1, 4, 2), "a", now=NOW), "b", now=NOW)
    assert from_record(to_record(room)) == room
    record = to_record(room)
    for damage in (
        {"moves": [4, 4]},
        {"x_seat": 2},
        {"format": 99},
        {"kind": "party"},
        {"taken": 2},
        {"former": 5},
    ):
        with pytest.raises((RoomError, RuleError)):
            from_record({**record, **damage})


FIXTURE = Path(__file__).parent / "fixtures" / "rooms-0.4.0.jsonl"


def test_rooms_stored_by_0_4_0_load_and_play_on() -> None:
    waiting, playing, local = (from_record(json.loads(line)) for line in FIXTURE.open())
    assert take_seat(waiting, "friend", coin=0, now=NOW).status == "playing"
    assert playing.board.cells == "O...X...X" and playing.turn == 0
    assert room_move(playing, "p1", 2, now=NOW).board.cells == "O.O.X...X"
    assert (local.game_number, local.x_seat, local.tally.x_wins) == (2, 1, 1)
    assert take_back(local, "p3", now=NOW).moves == ()


FIXTURE_0_5_0 = Path(__file__).parent / "fixtures" / "rooms-0.5.0.jsonl"


def test_rooms_stored_by_0_5_0_load_and_a_seat_taken_says_whose() -> None:
    playing, left = (from_record(json.loads(line)) for line in FIXTURE_0_5_0.open())
    assert (playing.names, playing.former, playing.taken) == (("Alice", "Bob"), None, None)
    assert (left.left, left.former, left.score.seat_wins) == (1, None, (2, 0))
    # 0.5.0 kept no leaver's name: the seat is taken from "Player 2", and a new series begins.
    carol = take_free_seat(left, "carol-player", coin=0, now=NOW)
    assert (carol.taken, carol.former, carol.score) == (1, None, Tally())
    assert to_record(carol)["format"] == 2 and set(to_record(carol)) >= {"taken"}
