"""Take-back in the fixed modes and practice from a position: no HP at stake, dice intact."""

from __future__ import annotations

import random

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.testing import Actions, connect

from webapp.game.match import (
    Match,
    MatchError,
    ai_move,
    human_move,
    new_match,
    practice_match,
    take_back,
)
from webapp.game.records import from_record, to_record
from webapp.game.verification import game_record, verify


def to_human(match: Match) -> Match:
    """Let the AI move until it is the human's turn (or the game is over)."""
    while match.game.turn == "ai":
        match = ai_move(match)
    return match


def played(match: Match, *cells: int) -> Match:
    """The human plays ``cells``, the AI answering each."""
    for cell in cells:
        match = to_human(human_move(to_human(match), cell))
    return match


def test_take_back_undoes_the_players_move_and_the_reply() -> None:
    start = to_human(new_match(random.Random(4), mode="easy", first="human"))
    after = played(start, 4)
    back = take_back(after)
    assert back.game.board == start.game.board and back.game.history == ()
    assert back.game.dice == start.game.dice  # the numbers the reply used are drawn again
    assert back.version == after.version + 1
    again = played(back, 4)
    assert again.game.board == after.game.board  # the same dice give the same reply


def test_take_back_never_reopens_a_finished_game() -> None:
    match = to_human(new_match(random.Random(2), mode="easy", first="human"))
    while match.game.turn is not None:
        match = played(match, match.game.board.cells.index("."))
    with pytest.raises(MatchError) as over:
        take_back(match)
    assert over.value.code == "not_allowed"


def test_no_take_back_in_an_hp_match_or_before_a_move() -> None:
    with pytest.raises(MatchError) as hp:
        take_back(played(new_match(random.Random(1)), 4))
    assert hp.value.code == "not_allowed"
    with pytest.raises(MatchError) as nothing:
        take_back(to_human(new_match(random.Random(1), mode="easy", first="ai")))
    assert nothing.value.code == "not_allowed"


def test_a_taken_back_game_still_verifies() -> None:
    match = to_human(new_match(random.Random(8), mode="medium", first="human", client_seed="t"))
    match = take_back(played(match, 0))
    while match.game.turn is not None:
        match = played(match, match.game.board.cells.index("."))
    assert verify(game_record(match)).game == 1


@pytest.mark.parametrize("setup", [(4, 0), (0, 4, 8), (0, 1, 4), ()])
def test_practice_starts_at_the_position_with_the_player_to_move(setup: tuple[int, ...]) -> None:
    match = practice_match(random.Random(5), setup, client_seed="p")
    assert match.mode == "impossible" and match.game.turn == "human"
    assert match.game.board.cells.count(".") == 9 - len(setup)
    assert match.game.mark_of("human") == match.game.board.to_move
    assert from_record(to_record(match)) == match
    while match.game.turn is not None:
        match = played(match, match.game.board.cells.index("."))
    record = game_record(match)
    assert record["setup"] == list(setup)
    assert verify(record).game == 1
    tampered = {**record, "setup": list(setup[:-1])} if setup else None
    if tampered is not None:
        with pytest.raises(ValueError):
            verify(tampered)


def test_practice_needs_a_position_still_in_play() -> None:
    with pytest.raises(MatchError) as over:
        practice_match(random.Random(1), (0, 3, 1, 4, 2))
    assert over.value.code == "bad_setting"


def test_take_back_over_the_protocol(app: Flask, client: FlaskClient, play: Actions) -> None:
    refused = play.emit("take_back")
    assert refused["error"]["code"] == "not_allowed"  # an HP match, and nothing played yet
    assert play.emit("new_match", {"mode": "easy", "first": "human"})["ok"]
    before = play.refresh()
    assert play.emit("move", {"cell": 4})["ok"]
    assert play.refresh()["board"] != before["board"]
    assert play.emit("take_back")["ok"]
    after = play.refresh()
    assert after["board"] == before["board"] and after["version"] > before["version"]


def test_practice_from_the_first_mistake_keeps_the_match(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    assert play.emit("new_match", {"mode": "impossible", "first": "human"})["ok"]
    assert play.emit("move", {"cell": 1})["ok"]  # an edge against a perfect AI: it loses
    state = play.refresh()
    while state["status"] == "playing":
        assert play.emit("move", {"cell": state["board"].index(".")})["ok"]
        state = play.refresh()
    game = play.emit("history")["games"][0]
    whole = play.emit("history_game", {"id": game["id"]})["review"]["moves"]
    slip = next(i for i, m in enumerate(whole) if m["by"] == "human" and m["verdict"] != "best")
    match_before = play.refresh()

    assert client.post("/practice", data={"game": game["id"]}).status_code == 403  # no Origin
    started = client.post(
        "/practice", data={"game": game["id"]}, headers={"Origin": "http://localhost"}
    )
    assert started.status_code == 303 and started.headers["Location"].endswith("/practice")
    practice = Actions(connect(app, client, view="practice"))
    shown = practice.refresh()
    assert shown["mode"] == "impossible" and shown["turn"] == "human"
    assert 9 - shown["board"].count(".") == slip  # the position before the mistake
    assert practice.emit("take_back")["error"]["code"] == "not_allowed"  # nothing of yours yet
    assert practice.emit("move", {"cell": shown["board"].index(".")})["ok"]
    assert practice.emit("take_back")["ok"]
    assert len(play.emit("history")["games"]) == 1  # practice is not history
    again = Actions(connect(app, client)).refresh()
    assert (again["version"], again["board"]) == (match_before["version"], match_before["board"])
