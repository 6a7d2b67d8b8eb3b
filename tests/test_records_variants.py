"""Records, history and the review beyond 3x3: a game of any variant verifies (and a
tampered one is refused), its history entry names the variant (format 5, entries of
0.5.0 read as classic in both stores), its review names the better cells on its own
board, and practice starts from its first mistake on that board."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of
from support.variant_games import SLIP, played, slipped, tampered_roll

from webapp.game.game import setup_board
from webapp.game.history import (
    SCHEMA,
    finished_game,
    first_mistake,
    friend_game,
    reviewed,
    summary,
    upgrade_entry,
    variant_of,
)
from webapp.game.match import practice_match
from webapp.game.review import review
from webapp.game.review import summary as review_summary
from webapp.game.variant import CLASSIC, variant_named
from webapp.game.verification import Mismatch, game_record, verify
from webapp.server.settings import DEFAULTS
from webapp.server.store.history import open_history

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_0_5_0 = ROOT / "tests" / "fixtures" / "history-0.5.0.jsonl"
FOUR = variant_named("4x4k4")


# --- verify ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "mode"),
    [("4x4k4", "adaptive"), ("4x4k4", "medium"), ("notakto2", "adaptive"), ("notakto2", "hard")],
)
def test_a_game_of_another_variant_verifies_on_its_own_board(variant: str, mode: str) -> None:
    match = played(variant, mode, 3, start_ai_hp=40)
    record = json.loads(json.dumps(game_record(match)))
    assert record["rules"]["variant"] == variant
    found = verify(record)
    assert (found.game, found.variant.name) == (1, variant)
    assert found.ai_moves == len(match.game.ai_moves) > 0
    # A fixed level off classic rolls against its chance, and the record says so.
    rolled = [move for move in record["moves"] if move["by"] == "ai"]
    assert all("roll" in move for move in rolled)


def tampered_cell(record: dict[str, Any]) -> None:
    move = next(m for m in record["moves"] if m["by"] == "ai" and len(m["candidates"]) > 1)
    move["cell"] = next(cell for cell in move["candidates"] if cell != move["cell"])


@pytest.mark.parametrize("variant", ["4x4k4", "notakto2"])
@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        (tampered_cell, ": the dice pick "),
        (tampered_roll, "the dice give roll"),
        (lambda r: r["rules"].update(variant="tictactoe9"), "no variant is called 'tictactoe9'"),
        # Read as classic, its moves break the classic board's rules, whichever first.
        (lambda r: r["rules"].pop("variant"), ""),
    ],
)
def test_a_tampered_record_of_another_variant_is_refused(
    variant: str, tamper: Any, named: str
) -> None:
    # At 40 HP the AI's difficulty is 60: some of its moves are random, among several.
    record = game_record(played(variant, "adaptive", 5, start_ai_hp=40))
    verify(record)
    changed = copy.deepcopy(record)
    tamper(changed)
    with pytest.raises(Mismatch) as refused:
        verify(changed)
    assert named in str(refused.value)


def test_verify_command_names_the_variant_of_a_4x4_record(tmp_path: Path) -> None:
    record = game_record(played("4x4k4", "adaptive", 3, start_ai_hp=40))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    command = [sys.executable, "-m", "webapp.cli", "verify", str(path)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 3, run.stderr  # the dice verify; no signature to check
    assert "game 1 of 4x4k4, " in run.stdout
    tampered_roll(record)
    path.write_text(json.dumps(record))
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 1 and run.stdout.startswith("not verified: AI move 1 at ")


def test_a_classic_record_keeps_its_bytes() -> None:
    record = game_record(played("classic", "adaptive", 3))
    assert "variant" not in record["rules"]
    assert verify(record).variant == CLASSIC


# --- the review -----------------------------------------------------------------------


def test_the_review_on_4x4_names_the_better_cell() -> None:
    moves = review([FOUR.parse_cell(name) for name in SLIP], FOUR)
    slip = moves[5].to_dict()
    assert (slip["cell"], slip["verdict"], slip["best_cells"]) == ("c2", "mistake", ["d1"])
    assert slip["best"] == {"result": "draw", "plies": 11}
    assert slip["played"] == {"result": "loss", "plies": 2}
    assert [move.verdict for move in moves[:5]] == ["best"] * 5


def test_the_review_of_notakto_names_cells_by_board() -> None:
    notakto = variant_named("notakto2")
    moves = review([0, 9, 1, 10], notakto)
    assert moves[1].to_dict()["cell"] == "2:a1"
    assert moves[1].verdict == "blunder" and moves[1].to_dict()["best_cells"] == ["2:b2"]


def test_the_summary_counts_inaccuracies_in_words() -> None:
    moves = review([FOUR.parse_cell(name) for name in SLIP], FOUR)
    worse = [dataclasses.replace(move, verdict="inaccuracy") for move in moves[:3]]
    assert review_summary(worse, "X") == "2 inaccuracies"
    assert review_summary(worse[:1], "X") == "1 inaccuracy"


def test_classic_review_words_are_as_before() -> None:
    moves = review([4, 1, 0])
    assert [move.cell_name for move in moves] == ["b2", "b1", "a1"]
    assert moves[1].to_dict()["best_cells"] == ["a1", "c1", "a3", "c3"]


# --- history entries ------------------------------------------------------------------


def friend_slip() -> dict[str, Any]:
    """O's entry of a friend's 4x4k4 game in which O let X's row through."""
    cells = tuple(FOUR.parse_cell(name) for name in SLIP)
    return friend_game(
        cells,
        mine="O",
        result="loss",
        resigned=None,
        game=1,
        game_id="f" * 22,
        ended=2e9,
        variant=FOUR,
    )


def test_an_entry_names_its_variant_and_reviews_on_its_board() -> None:
    entry = friend_slip()
    assert (entry["format"], entry["variant"], variant_of(entry)) == (SCHEMA, "4x4k4", FOUR)
    assert summary(entry)["variant"] == "4x4k4"
    found = reviewed(entry)
    assert found["variant"] == {
        "name": "4x4k4",
        "rows": 4,
        "columns": 4,
        "boards": 1,
        "notakto": False,
    }
    assert found["moves"][5]["best_cells"] == ["d1"] and found["moves"][5]["by"] == "human"
    assert found["winning_line"] == [0, 1, 2, 3]  # a1 to d1
    assert found["summary"] == "1 mistake"
    match = played("4x4k3", "impossible", 2)
    ai_entry = finished_game(match, game_id="g" * 22, ended=2e9)
    assert ai_entry["variant"] == "4x4k3" and summary(ai_entry)["variant"] == "4x4k3"
    assert ai_entry["record"] == game_record(match)  # the record as signed, untouched


def test_practice_from_a_mistake_is_on_the_games_board() -> None:
    match = played("4x4k3", "impossible", 2)
    entry = finished_game(match, game_id="g" * 22, ended=2e9)
    slip = first_mistake(entry)
    assert slip is not None
    setup, mistake = slip
    practice = practice_match(random.Random(1), setup, mistake=mistake, variant=variant_of(entry))
    assert practice.rules.variant.name == "4x4k3" and practice.game.turn == "human"
    assert practice.game.board == setup_board(setup, variant_of(entry))
    assert len(practice.game.board.legal_moves()) == 16 - len(setup)
    assert practice.game.mistake == mistake
    assert reviewed(entry)["can_practise"] is True


def test_notakto_entries_say_which_boards_died_after_each_move() -> None:
    notakto = variant_named("notakto2")
    moves = (0, 9, 1, 10, 2)  # board 1 dies on the fifth move
    entry = friend_game(
        moves,
        mine="X",
        result="loss",
        resigned=None,
        game=1,
        game_id="n" * 22,
        ended=2e9,
        variant=notakto,
    )
    found = reviewed(entry)
    assert [move["dead"] for move in found["moves"]] == [[], [], [], [], [0]]
    assert found["winning_line"] is None and found["variant"]["notakto"] is True


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    config = {**DEFAULTS, "DATA_DIR": str(tmp_path)}
    if request.param == "redis":
        config["REDIS_URL"] = request.getfixturevalue("redis_url")
    found = open_history(config)
    yield found
    found.close()


def test_entries_stored_by_0_5_0_read_as_classic_beside_a_4x4_one(store: Any) -> None:
    old = [json.loads(line) for line in FIXTURE_0_5_0.open()]
    assert {entry["format"] for entry in old} == {3}  # as 0.5.0 wrote them
    for entry in reversed(old):  # oldest first, as they were played
        assert store.add("p", f"game:{entry['id']}", entry)
    assert store.add("p", "room:r:1", friend_slip())
    newest, *stored = store.games("p")
    assert variant_of(newest) == FOUR and reviewed(newest)["moves"][5]["best_cells"] == ["d1"]
    assert [summary(entry)["variant"] for entry in stored] == ["classic", "classic"]
    for before, entry in zip(old, stored, strict=True):
        upgraded = upgrade_entry(entry)
        assert (upgraded["format"], upgraded["variant"]) == (SCHEMA, "classic")
        assert {**upgraded, "format": 3, "variant": None} == {**before, "variant": None}
        assert reviewed(entry) == reviewed(upgraded)
        assert reviewed(entry)["variant"]["name"] == "classic"
        cells = [move["cell"] for move in entry["record"]["moves"]]
        assert [m["cell"] for m in reviewed(entry)["moves"]] == [
            CLASSIC.cell_name(c) for c in cells
        ]
    assert first_mistake(stored[1]) is not None  # the adaptive game's slip, practised


@pytest.mark.server  # the practice game is shown by a real server's socket
def test_practice_from_a_4x4_games_mistake_starts_on_its_board(
    app: Flask, client: FlaskClient
) -> None:
    entry = finished_game(slipped("4x4k3"), game_id="p" * 22, ended=2e9)
    slip = first_mistake(entry)
    assert slip is not None and reviewed(entry)["can_practise"]
    assert app.extensions["history"].add(player_of(client), f"game:{entry['id']}", entry)
    started = client.post(
        "/practice", data={"game": entry["id"]}, headers={"Origin": "http://localhost"}
    )
    assert started.status_code == 303 and started.headers["Location"].endswith("/practice")
    practice = Actions(connect(app, client, view="practice"))
    shown = practice.refresh()
    assert shown["mode"] == "impossible" and shown["turn"] == "human"
    assert len(shown["board"]) == 16 and 16 - shown["board"].count(".") == len(slip[0])
    assert shown["practice"]["mistake"]["cell"] == FOUR.cell_name(slip[1])  # named on 4x4


# --- explain --variant ----------------------------------------------------------------


def explain(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "webapp.cli", "explain", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )


def test_explain_a_4x4_position_from_its_solver() -> None:
    # X has a1, b1, c1 and O a2, b2, c2: d1 wins at once, and only d1 avoids the loss.
    run = explain("XXX.OOO.........", "--variant", "4x4k4", "--json")
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert (found["variant"], found["to_move"], found["best"]) == ("4x4k4", "X", "d1")
    assert found["values"]["d1"] == {"result": "win", "plies": 1}
    assert found["values"]["a4"] == {"result": "loss", "plies": 2}
    assert list(found["values"])[:3] == ["d1", "d2", "a3"]  # in reading order
    assert found["why"] == "d1 keeps a win in 1, the best any move keeps"
    assert found["counts"]["solver"] > 0
    text = explain("X......../.........", "--variant", "notakto2")
    assert text.returncode == 0 and "2:b2 keeps a win in 10" in text.stdout
    assert "positions" in text.stdout and "(counted now)" in text.stdout


def test_explain_refuses_a_bad_board_or_the_labs_flags_off_classic() -> None:
    short = explain("XO..", "--variant", "4x4k4")
    assert short.returncode == 2 and "a board has 16 cells, got 4" in short.stderr
    pruned = explain("................", "--variant", "4x4k4", "--prune")
    assert pruned.returncode == 2 and "--prune choose among the lab's searches" in pruned.stderr
    unknown = explain(".........", "--variant", "5x5")
    assert unknown.returncode == 2 and "no variant is called '5x5'" in unknown.stderr
    classic = explain("XOXOXO...", "--prune", "--json")  # classic as before
    assert classic.returncode == 0 and "variant" not in json.loads(classic.stdout)


def test_review_command_names_the_better_cell_on_4x4() -> None:
    command = [sys.executable, "-m", "webapp.cli", "review", "--variant", "4x4k4", *SLIP]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert " 6. O c2  mistake    kept loss in 2 (best: draw at d1), gift taken" in run.stdout
    assert "O: 1 mistake" in run.stdout
    bad = subprocess.run(
        [*command[:5], "notakto2", "1:a1", "9:a1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "move 2 ('9:a1'): '9:a1' is off the board" in bad.stderr
