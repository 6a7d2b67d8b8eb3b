"""What a room and History say of seats that change hands, run in Node as the pages run
it: the leaver keeps their name, a seat taken says whose, a forfeit says who left."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.node import NODE, node_value

pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")


def run(module: str, expression: str) -> Any:
    """``expression`` evaluated in Node with ``module``'s exports imported as ``w``."""
    return node_value(module, expression)


def room(**changes: Any) -> dict[str, Any]:
    """A snapshot of an online room: Alice (seat 0) and Bob (seat 1), game 2 under way."""
    snapshot: dict[str, Any] = {
        "kind": "online",
        "status": "playing",
        "game": 2,
        "x_seat": 0,
        "turn": 0,
        "winner": None,
        "resigned": None,
        "rematch": [],
        "score": {"seat_wins": [2, 0], "x_wins": 1, "o_wins": 1, "draws": 0},
        "seats": [
            {"token": "a", "connected": True, "name": "Alice"},
            {"token": "b", "connected": True, "name": "Bob"},
        ],
        "left": None,
        "former": None,
        "taken": None,
    }
    return {**snapshot, **changes}


FREE = {"token": None, "connected": False, "name": None}
ALICE = {"token": "a", "connected": True, "name": "Alice"}
BOB_LEFT = room(status="waiting", game=0, turn=None, seats=[ALICE, FREE], left=1, former="Bob")


def says(snapshot: dict[str, Any], mine: list[int]) -> list[Any]:
    """The status, the score line and the seat-taken words, for a viewer holding ``mine``."""
    args = f"{json.dumps(snapshot)}, {json.dumps(mine)}"
    return list(
        run(
            "words_room.js",
            f"[w.statusText({args}), w.scoreParts({args})[0], w.takenText({args})]",
        )
    )


@pytest.mark.parametrize(
    ("mine", "status", "score"),
    [
        ([0], "Bob left the room", "You 2 \N{EN DASH} 0 Bob"),  # was "Your friend", "Friend"
        ([], "Bob left the room", "Alice 2 \N{EN DASH} 0 Bob"),  # was "Player 2" twice
    ],
)
def test_the_leaver_keeps_their_name_until_a_new_series(
    mine: list[int], status: str, score: str
) -> None:
    assert says(BOB_LEFT, mine) == [status, score, ""]


def test_an_unnamed_leaver_is_your_friend_or_their_seat() -> None:
    unnamed = {**BOB_LEFT, "former": None}
    assert says(unnamed, [0])[:2] == ["Your friend left the room", "You 2 \N{EN DASH} 0 Friend"]
    assert says(unnamed, [])[:2] == ["Player 2 left the room", "Alice 2 \N{EN DASH} 0 Player 2"]


CAROL = {"token": "c", "connected": True, "name": "Carol"}
NEW_SERIES = room(
    game=1,
    seats=[ALICE, CAROL],
    score={"seat_wins": [0, 0], "x_wins": 0, "o_wins": 0, "draws": 0},
    former="Bob",
    taken=1,
)


@pytest.mark.parametrize(
    ("snapshot", "mine", "taken"),
    [
        (NEW_SERIES, [0], "Carol took Bob's seat: a new series begins"),
        (NEW_SERIES, [1], "You took Bob's seat: a new series begins"),
        (NEW_SERIES, [], "Carol took Bob's seat: a new series begins"),
        (
            {**NEW_SERIES, "seats": [ALICE, {**CAROL, "name": None}], "former": None},
            [0],
            "A new player took your friend's seat: a new series begins",
        ),
        (
            {**NEW_SERIES, "seats": [ALICE, {**CAROL, "name": None}], "former": None},
            [],
            "A new player took Player 2's seat: a new series begins",
        ),
        ({**NEW_SERIES, "taken": None, "former": None}, [0], ""),
    ],
)
def test_a_seat_taken_says_who_took_whose(
    snapshot: dict[str, Any], mine: list[int], taken: str
) -> None:
    assert says(snapshot, mine)[2] == taken


def test_the_leave_question_says_what_happens_to_the_seat() -> None:
    text = run("words_room.js", "w.CONFIRM_LEAVE.text")
    assert "Take the free seat" in text and "new series" in text
    assert "opens the link next takes your seat" not in text  # a newcomer only watches


@pytest.mark.parametrize(
    ("game", "moves", "result", "summary"),
    [
        (
            {"result": "win", "forfeit": "friend"},
            2,
            "Win by forfeit (your friend left)",
            "Cut short after 2 moves: your friend left the room, and the game went to you.",
        ),
        (
            {"result": "loss", "forfeit": "human"},
            0,
            "Loss by forfeit (you left)",
            "Cut short before the first move: you left the room, and the game went to your friend.",
        ),
        ({"result": "win", "forfeit": None}, 5, "Win", ""),
        ({"result": "draw"}, 9, "Draw", ""),  # stored before forfeits were kept
    ],
)
def test_history_says_a_forfeit_and_who_left(
    game: dict[str, Any], moves: int, result: str, summary: str
) -> None:
    found = run(
        "words_history.js",
        f"[w.resultWords({json.dumps(game)}), w.cutShortWords({json.dumps(game)}, {moves})]",
    )
    assert found == [result, summary]
