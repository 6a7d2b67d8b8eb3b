"""Take-back in the fixed modes and practice from a position: no HP at stake, dice intact."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of, post

from webapp.game import engine
from webapp.game.board import Board, cell_name
from webapp.game.history import finished_game, game_key
from webapp.game.match import (
    Match,
    ai_move,
    human_move,
    new_match,
    next_game,
    practice_match,
    take_back,
)
from webapp.game.records import from_record, to_record
from webapp.game.review import judge, lesson
from webapp.game.rules import MatchError
from webapp.game.verification import FORMAT, Mismatch, game_record, verify
from webapp.server.app import create_app
from webapp.server.services.matches import practice_key
from webapp.server.services.page_player import page_token

ROOT = Path(__file__).resolve().parent.parent
KEYS_URL = "/.well-known/tictactoe-keys.json"
ORIGIN = "http://localhost"

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


def _thrown_away_in_easy(play: Actions) -> int:
    """Play easy games until the player, at a won position, throws the win away, then
    end that game; the cell of the slip (the game is the newest of the history)."""
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
    return slip


def test_practice_from_a_mistake_says_what_each_move_does(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    """The three kinds of feedback over the protocol: the mistake again, the best move, and
    another that keeps the win; an easy AI hands out wins, the player throws one away."""
    slip = _thrown_away_in_easy(play)
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


# --- what a practice game's record says ----------------------------------------------


def run_verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", "verify", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_a_won_practice_is_signed_as_practice_and_verify_names_its_position(
    app: Flask, client: FlaskClient, play: Actions, tmp_path: Path
) -> None:
    """A game thrown away in easy, practised and won: the signed record says it is practice,
    from which position, and `verify` prints both, not a plain win of the match."""
    _thrown_away_in_easy(play)
    game = play.emit("history")["games"][0]
    assert post(app, client, "/practice", {"game": game["id"]}) == 303
    practice = Actions(connect(app, client, view="practice"))
    state = practice.play_out(lambda shown: engine.best_moves(Board(shown["board"]))[0])
    signed = state["signed_record"]
    record = json.loads(base64.b64decode(signed["payload"]))
    assert record == state["record"]
    assert (record["mode"], record["status"]) == ("impossible", "human_won")
    assert record["practice"] is True and record["first_by"] == "position"
    setup = record["setup"]
    assert setup  # the moves before the slip, whoever began that game (X begins)
    (tmp_path / "keys.json").write_text(json.dumps(client.get(KEYS_URL).get_json()))
    (tmp_path / "game.json").write_text(json.dumps(signed))
    result = run_verify(str(tmp_path / "game.json"), "--keys", str(tmp_path / "keys.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    verified, said = result.stdout.splitlines()
    assert verified.startswith(f"verified: signed by key {signed['key']}")
    position = ", ".join(f"{'XO'[i % 2]} {cell_name(c)}" for i, c in enumerate(setup))
    assert said.startswith("PRACTICE: a practice game, not a game of a match")
    assert f"begun from the set-up position {position};" in said


def test_a_practice_record_that_hides_it_fails_and_older_ones_still_verify() -> None:
    match = practice_match(random.Random(5), (4, 0), client_seed="p")
    while match.game.turn is not None:
        match = played(match, match.game.board.cells.index("."))
    record = game_record(match)
    assert record["format"] == FORMAT and record["practice"] is True
    found = verify(record)
    assert (found.practice, found.setup) == (True, (4, 0))
    for hidden in ({"practice": False}, {"practice": "yes"}, {"practice": False, "setup": []}):
        with pytest.raises(Mismatch):
            verify({**record, **hidden})
    match_game = to_human(new_match(random.Random(2), mode="easy", client_seed="m"))
    while match_game.game.turn is not None:
        match_game = played(match_game, match_game.game.board.cells.index("."))
    plain = game_record(match_game)
    assert plain["practice"] is False and verify(plain).practice is False
    with pytest.raises(Mismatch):
        verify({**plain, "practice": True})


class RecordedRandom(random.SystemRandom):
    """The system's randomness, keeping every byte string it gave out."""

    def __init__(self) -> None:
        super().__init__()
        self.given: list[str] = []

    def randbytes(self, n: int) -> bytes:
        drawn = super().randbytes(n)
        self.given.append(drawn.hex())
        return drawn


def test_practice_seeds_are_drawn_from_the_systems_randomness(tmp_path: Path) -> None:
    """Every seed of a practice game is bytes drawn from the server's system randomness,
    never from a generator seeded with a few of its bits (docs/fairness.md)."""
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)})  # no TICTACTOE_SEED
    service = app.extensions["tictactoe"]
    assert isinstance(service.rng, random.SystemRandom)
    client = app.test_client()
    assert client.get("/").status_code == 200
    player = player_of(client)
    thrown = to_human(new_match(random.Random(3), mode="impossible", first="human"))
    thrown = played(thrown, 1)  # an edge against perfect play: a mistake
    while thrown.game.turn is not None:
        thrown = played(thrown, thrown.game.board.cells.index("."))
    entry = finished_game(thrown, game_id="g1", ended=time.time())
    app.extensions["history"].add(player, game_key(thrown), entry)
    service.rng = recorded = RecordedRandom()
    for _ in range(2):  # a first practice game, then one after it (its seed committed)
        started = client.post("/practice", data={"game": "g1"}, headers={"Origin": ORIGIN})
        assert started.status_code == 303
        practice = service.store.load(practice_key(player))
        assert practice is not None
        assert practice.game.dice.server_seed in recorded.given
        assert practice.next_seed in recorded.given


def test_records_of_the_release_before_still_verify_and_say_if_practice(tmp_path: Path) -> None:
    """Format 4 records, written by 0.5.0.dev0 before ``practice``: a practice game is
    told by its position, and `verify` prints it; a game of a match is not practice."""
    fixture = ROOT / "tests" / "fixtures" / "records-0.5.0.dev0.jsonl"
    found = {line["what"]: line["record"] for line in map(json.loads, fixture.open())}
    assert {record["format"] for record in found.values()} == {4}
    assert all("practice" not in record for record in found.values())
    practised, plain = verify(found["practice"]), verify(found["match"])
    assert (practised.practice, practised.setup) == (True, (0, 4, 8, 2))
    assert (plain.practice, plain.setup) == (False, ())
    (tmp_path / "old.json").write_text(json.dumps(found["practice"]))
    result = run_verify(str(tmp_path / "old.json"))
    assert result.returncode == 3, result.stdout + result.stderr  # unsigned: dice only
    assert "begun from the set-up position X a1, O b2, X c3, O c1;" in result.stdout
    (tmp_path / "match.json").write_text(json.dumps(found["match"]))
    result = run_verify(str(tmp_path / "match.json"))
    assert result.returncode == 3 and "PRACTICE" not in result.stdout


def test_a_retry_that_cannot_start_answers_the_styled_missing_page_saying_why(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    def best(state: dict[str, Any]) -> int:
        return min(engine.best_moves(Board(state["board"])))

    assert play.new_match(mode="impossible", first="human")["ok"]
    play.play_out(best)  # every move the best: no mistake to practise from
    game = play.emit("history")["games"][0]["id"]
    page = page_token(app.config, player_of(client))  # as the socket was told (`player`)
    headers = {"Origin": ORIGIN}

    def retry(game_id: str) -> tuple[int, str]:
        reply = client.post("/practice", data={"game": game_id, "page": page}, headers=headers)
        return reply.status_code, reply.get_data(as_text=True)

    status, html = retry(game)
    assert status == 422 and "Game not available" in html
    assert "That game has no mistake of yours to practise from" in html
    status, html = retry("C" * 22)
    assert status == 404 and "That game is not in your history." in html
    assert client.post("/history/forget", headers=headers).status_code == 204
    status, html = retry(game)  # sent from a page made before the deletion
    assert status == 404 and "Your data was deleted, this game with it" in html
    assert 'class="missing-reason"' in html and "Play the AI" in html


# --- after a practice game: the same position again, take back, no record -------------

# X a1, O b2, X c3, O c1: O threatens a3; any other move of X's loses at once.
THREATENED = (0, 4, 8, 2)


def _lost_at_once() -> tuple[Match, Match]:
    """A practice game at THREATENED, and the same game after X's b1, which loses."""
    start = to_human(practice_match(random.Random(5), THREATENED, mistake=1))
    return start, played(start, 1)


def test_next_game_after_practice_is_the_same_position_and_mistake_again() -> None:
    start, over = _lost_at_once()
    assert over.game.status == "ai_won"
    again = next_game(over, random.Random(6))
    assert again.game.setup == THREATENED and again.game.mistake == 1
    assert again.game.board == start.game.board and again.game.turn == "human"
    assert again.game.dice.server_seed == over.next_seed  # the seed committed during it
    assert again.version == over.version + 1 and again.game.history == ()
    assert again.mode == "impossible" and again.game.practice


def test_practice_keeps_no_record_and_takes_back_a_move_that_lost_at_once() -> None:
    start, over = _lost_at_once()
    assert over.game.turn is None and over.record.to_dict() == start.record.to_dict()
    back = take_back(over)
    assert back.game.board == start.game.board and back.game.turn == "human"
    assert back.game.dice == start.game.dice
    assert played(back, 6).game.status == "playing"  # the block: the game goes on
