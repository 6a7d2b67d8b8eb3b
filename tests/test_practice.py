"""Take-back in the fixed modes and practice from a position: no HP at stake, dice intact."""

from __future__ import annotations

import random

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, post

from webapp.game import engine
from webapp.game.board import Board, cell_name
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
from webapp.game.review import judge, lesson
from webapp.game.verification import game_record, verify

pytestmark = pytest.mark.shared_server  # one live server, each test a new player


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


# X a1, O b1, X a2, O c2: X wins now at a3, later at b2 or c3; c1 and b3 throw the win away.
WINNING = (0, 1, 3, 5)


@pytest.mark.parametrize(
    ("cell", "said"),
    [(7, "played"), (6, "best"), (4, "good"), (8, "good"), (2, "mistake")],
)
def test_each_move_at_the_practised_position_gets_its_feedback(cell: int, said: str) -> None:
    found = lesson(WINNING, 7, [(True, cell)])
    assert found["mistake"] == judge(Board("XO.X.O..."), 7).to_dict()
    assert found["mistake"]["best_cells"] == ["a3"]  # type: ignore[index]
    feedback = found["feedback"]
    assert isinstance(feedback, dict)
    assert (feedback["cell"], feedback["feedback"]) == (cell_name(cell), said)
    assert feedback["best_cells"] == ["a3"]
    assert lesson(WINNING, 7, [])["feedback"] is None  # nothing played yet


def test_only_the_practised_position_says_played() -> None:
    # X plays b2, O c3; X's next move is judged on its own, even in the mistake's cell.
    board = Board("XO.X.O...").apply_move(4).apply_move(8)
    found = lesson(WINNING, 7, [(True, 4), (False, 8), (True, 7)])
    assert found["feedback"]["feedback"] == judge(board, 7).verdict  # type: ignore[index]
    assert found["feedback"]["feedback"] != "played"  # type: ignore[index]


def test_a_practice_game_keeps_its_mistake_and_refuses_a_bad_one() -> None:
    match = practice_match(random.Random(3), WINNING, mistake=7)
    assert match.game.mistake == 7
    stored = to_record(match)
    assert stored["game"]["mistake"] == 7
    assert from_record(stored) == match
    assert "mistake" not in to_record(practice_match(random.Random(3), WINNING))["game"]
    for bad in (0, 9, True, "7", 7.0):
        with pytest.raises(MatchError) as refused:
            practice_match(random.Random(3), WINNING, mistake=bad)  # type: ignore[arg-type]
        assert refused.value.code == "bad_setting"
        with pytest.raises(MatchError):
            from_record({**stored, "game": {**stored["game"], "mistake": bad}})


def _slip_with_a_good_move(cells: str) -> int | None:
    """At a won position where a slower win exists: a move that throws the win away."""
    analysis = engine.analyse(Board(cells))
    kinds = {cell: judge(Board(cells), cell).verdict for cell in analysis.moves}
    if analysis.value.result.value != "win" or "inaccuracy" not in kinds.values():
        return None
    slips = [cell for cell, verdict in kinds.items() if verdict in ("mistake", "blunder")]
    return slips[0] if slips else None


def test_practice_from_a_mistake_says_what_each_move_does(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    """The three kinds of feedback over the protocol: the mistake again, the best move, and
    another that keeps the win; an easy AI hands out wins, the player throws one away."""
    assert play.emit("new_match", {"mode": "easy", "first": "human"})["ok"]
    slip = None
    for _ in range(40):
        state = play.refresh()
        while state["status"] == "playing":
            cells = state["board"]
            slip = _slip_with_a_good_move(cells)
            cell = slip if slip is not None else engine.best_moves(Board(cells))[0]
            assert play.emit("move", {"cell": cell})["ok"]
            state = play.refresh()
            if slip is not None:
                break
        if slip is not None:
            break
        assert play.emit("next_game")["ok"]
    assert slip is not None, "the easy AI never left a won position"
    while state["status"] == "playing":
        assert play.emit("move", {"cell": state["board"].index(".")})["ok"]
        state = play.refresh()
    game = play.emit("history")["games"][0]
    started = client.post(
        "/practice", data={"game": game["id"]}, headers={"Origin": "http://localhost"}
    )
    assert started.status_code == 303
    practice = Actions(connect(app, client, view="practice"))
    shown = practice.refresh()
    position = Board(shown["board"])
    lessons = shown["practice"]
    assert lessons["mistake"]["cell"] == cell_name(slip)
    assert lessons["mistake"]["verdict"] in ("mistake", "blunder")
    assert lessons["feedback"] is None
    analysis = engine.analyse(position)
    good = next(c for c in analysis.moves if judge(position, c).verdict == "inaccuracy")
    for cell, said in ((slip, "played"), (analysis.best[0], "best"), (good, "good")):
        assert practice.emit("move", {"cell": cell})["ok"]
        feedback = practice.refresh()["practice"]["feedback"]
        assert (feedback["cell"], feedback["feedback"]) == (cell_name(cell), said)
        assert feedback["best_cells"] == [cell_name(c) for c in sorted(analysis.best)]
        if practice.refresh()["status"] == "playing":
            assert practice.emit("take_back")["ok"]
        else:  # a move that won at once ends the game: start the practice again
            assert post(app, client, "/practice", {"game": game["id"]}) == 303
        assert practice.refresh()["practice"]["feedback"] is None
