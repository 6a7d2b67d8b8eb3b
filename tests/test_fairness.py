"""Verifiable dice: the stream as docs/fairness.md specifies it, the game record, its
verification (a real game and tampered ones), the lock, and `tictactoe verify`."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from webapp.game import engine
from webapp.game.board import Board
from webapp.game.fairness import Dice, FairnessError, check_client_seed, commitment, number
from webapp.game.match import Match, ai_move, human_move, lock_difficulty, new_match, next_game
from webapp.game.records import from_record, to_record
from webapp.game.rules import MatchError, Rules
from webapp.game.verification import Mismatch, game_record, verify

ROOT = Path(__file__).resolve().parent.parent
SEED = "00" * 31 + "2a"


def spec_number(seed: str, client: str, game: int, n: int) -> int:
    """Number n of the stream, written from docs/fairness.md's words alone."""
    message = (client + ":" + str(game) + ":" + str(n)).encode("utf-8")
    digest = hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()
    return int(digest.hex(), 16)


def finished(
    *, seed: int = 1, mode: str = "adaptive", client_seed: str = "player-1", **rules: int
) -> Match:
    """A match whose first game was played to its end, the human taking the first empty cell."""
    match = new_match(random.Random(seed), mode=mode, rules=Rules(**rules), client_seed=client_seed)
    while match.game.turn is not None:
        if match.game.turn == "human":
            match = human_move(match, match.game.board.legal_moves()[0])
        else:
            match = ai_move(match)
    return match


# --- the stream ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "game", "n"), [("a", 1, 0), ("player-1", 3, 7), ("Z_9", 12, 40)]
)
def test_numbers_follow_the_documented_formula(client: str, game: int, n: int) -> None:
    assert number(SEED, client, game, n) == spec_number(SEED, client, game, n)


def test_the_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert Dice(SEED, "a", 1).commitment == commitment(SEED)


def test_draws_use_the_numbers_in_order() -> None:
    dice = Dice(SEED, "me", 2)
    drawn = []
    for k in (2, 100, 7, 1):
        value, n, dice = dice.draw(k)
        drawn.append((value, n))
    assert drawn == [(spec_number(SEED, "me", 2, n) % k, n) for n, k in enumerate((2, 100, 7, 1))]
    assert dice.used == 4
    assert dice == dataclasses.replace(Dice(SEED, "me", 2), used=4)  # a value like any other
    assert hash(dice) == hash(Dice(SEED, "me", 2, used=4))
    with pytest.raises(dataclasses.FrozenInstanceError):
        dice.used = 0  # type: ignore[misc]


def test_who_starts_is_number_zero() -> None:
    for seed in range(40):
        match = new_match(random.Random(seed), client_seed="abc")
        dice = match.game.dice
        starts = ("human", "ai")[spec_number(dice.server_seed, "abc", 1, 0) % 2]
        assert match.game.first == starts
        assert dice.used == 1


@pytest.mark.parametrize("seed", ["", "a" * 97, "a:b", "with space", "é", None, 7, ["a"]])
def test_bad_client_seeds_are_refused(seed: object) -> None:
    with pytest.raises(FairnessError) as caught:
        check_client_seed(seed)
    assert caught.value.code == "bad_setting"
    assert "1 to 96 letters, digits, - or _" in caught.value.message


def test_each_game_has_its_own_server_seed() -> None:
    match = finished()
    following = next_game(match, random.Random(99))
    assert following.game.dice.server_seed != match.game.dice.server_seed
    assert following.game.dice.client_seed == "player-1"  # kept when none is sent
    assert following.game.dice.game == 2
    changed = next_game(match, random.Random(99), client_seed="other")
    assert changed.game.dice.client_seed == "other"


def test_the_same_seeds_and_moves_replay_the_same_game() -> None:
    one, two = finished(seed=5), finished(seed=5)
    assert one.game.ai_moves == two.game.ai_moves
    other = finished(seed=5, client_seed="player-2")
    assert other.game.dice.server_seed == one.game.dice.server_seed
    assert other.game.ai_moves != one.game.ai_moves  # the player's seed changes the dice


# --- the record ----------------------------------------------------------------------


def test_the_record_reveals_the_seed_only_once_the_game_is_over() -> None:
    match = new_match(random.Random(1), client_seed="abc")
    if match.game.turn == "ai":
        match = ai_move(match)
    playing = game_record(match)
    assert playing["dice"] == {
        "commitment": commitment(match.game.dice.server_seed),
        "client_seed": "abc",
        "server_seed": None,
        "player_seeded": False,  # its seed was drawn after "abc" was known
        "next_commitment": commitment(str(match.next_seed)),
    }
    assert SEED not in json.dumps(playing)
    assert match.game.dice.server_seed not in json.dumps(playing)
    done = game_record(finished(client_seed="abc"))
    assert done["dice"]["server_seed"] is not None
    assert done["status"] != "playing"


def test_the_record_lists_candidates_and_stream_numbers() -> None:
    record = game_record(finished(seed=3, start_ai_hp=50))
    ai = [move for move in record["moves"] if move["by"] == "ai"]
    assert ai
    numbers = [n for move in ai for n in (move["roll_n"], move["pick_n"])]
    assert numbers == list(range(1, len(numbers) + 1))
    assert record["ai_hp"] == 50  # the AI's HP during the game, before it was scored
    for move in ai:
        assert move["candidates"] == sorted(move["candidates"])
        assert move["cell"] in move["candidates"]
        assert move["difficulty"] == 50
        assert move["decision"] == ("perfect" if move["roll"] < 50 else "random")


@pytest.mark.parametrize("mode", ["adaptive", "easy", "medium", "hard", "impossible"])
@pytest.mark.parametrize("seed", range(6))
def test_real_games_verify(mode: str, seed: int) -> None:
    match = finished(seed=seed, mode=mode, start_ai_hp=40)
    found = verify(json.loads(json.dumps(game_record(match))))
    assert found.game == 1
    assert found.ai_moves == len(match.game.ai_moves)


def test_a_game_after_a_locked_difficulty_verifies() -> None:
    match = lock_difficulty(finished(start_ai_hp=60))  # locked at 40
    match = dataclasses.replace(match, ai_hp=5)  # the AI's HP fell: its own level is 95
    match = next_game(match, random.Random(4))
    while match.game.turn is not None:
        if match.game.turn == "human":
            match = human_move(match, match.game.board.legal_moves()[-1])
        else:
            match = ai_move(match)
    record = game_record(match)
    assert record["locked"] == 40
    assert {move["difficulty"] for move in record["moves"] if move["by"] == "ai"} == {40}
    assert verify(record).game == 2


def ai_move_of(record: dict[str, Any], where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first AI move of ``record`` that ``where`` accepts."""
    return next(move for move in record["moves"] if move["by"] == "ai" and where(move))


def change_roll(record: dict[str, Any]) -> None:
    move = ai_move_of(record, lambda move: True)
    move["roll"] = (move["roll"] + 1) % 100


def change_cell(record: dict[str, Any]) -> None:
    move = ai_move_of(record, lambda move: len(move["candidates"]) > 1)
    move["cell"] = next(cell for cell in move["candidates"] if cell != move["cell"])


def change_seed(record: dict[str, Any]) -> None:
    seed = record["dice"]["server_seed"]
    record["dice"]["server_seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]


def narrow_candidates(record: dict[str, Any]) -> None:
    # A random move's candidates cut down to the cell it played: the dice then add up,
    # and only the check against the rules catches it.
    move = ai_move_of(record, lambda move: len(move["candidates"]) > 1)
    move["candidates"] = [move["cell"]]


TAMPERING = [
    (change_seed, "the server seed does not match the commitment"),
    (change_roll, "AI move 1 at "),
    (change_cell, ": the dice pick "),
    (narrow_candidates, "are not the random moves"),
    (lambda r: r.update(first="ai" if r["first"] == "human" else "human"), "the dice say the"),
    (lambda r: r["dice"].update(client_seed="someone-else"), ""),
    (lambda r: r.update(status="human_won" if r["status"] != "human_won" else "draw"), "ended"),
    (lambda r: r["dice"].update(server_seed=None), "not revealed yet"),
    (lambda r: r.update(dice=None), "before verifiable dice"),
    (lambda r: r.update(kind="chess"), "not a game record"),
]


@pytest.mark.parametrize(("tamper", "named"), TAMPERING)
def test_tampered_records_fail_naming_the_first_mismatch(
    tamper: Callable[[dict[str, Any]], object], named: str
) -> None:
    # Seed 2 at difficulty 0 makes every AI move random, with several candidates.
    record = game_record(finished(seed=2))
    verify(record)
    tampered = copy.deepcopy(record)
    tamper(tampered)
    with pytest.raises(Mismatch) as caught:
        verify(tampered)
    assert named in str(caught.value)


def test_a_perfect_move_outside_the_perfect_set_fails() -> None:
    record = game_record(finished(seed=1, mode="impossible"))
    board = Board()
    for move in record["moves"]:
        wrong = sorted(set(board.legal_moves()) - set(engine.best_moves(board)))
        if move["by"] == "ai" and wrong:
            break
        board = board.apply_move(move["cell"])
    # The dice could pick among these as well as among the right ones: only the
    # check against the engine catches them.
    move["candidates"] = wrong
    with pytest.raises(Mismatch) as caught:
        verify(record)
    assert "are not the perfect moves" in str(caught.value)


# --- lock difficulty -----------------------------------------------------------------


def test_lock_keeps_the_difficulty_for_the_rest_of_the_match() -> None:
    match = lock_difficulty(new_match(random.Random(0), rules=Rules(start_ai_hp=70)))
    assert (match.locked, match.difficulty) == (30, 30)
    later = dataclasses.replace(match, ai_hp=10)
    assert later.difficulty == 30
    assert lock_difficulty(match) is match  # locking again changes nothing
    assert from_record(json.loads(json.dumps(to_record(later)))).locked == 30


def test_lock_is_refused_in_fixed_modes_and_after_the_match() -> None:
    with pytest.raises(MatchError) as caught:
        lock_difficulty(new_match(random.Random(0), mode="easy"))
    assert caught.value.code == "bad_setting"
    over = dataclasses.replace(finished(), human_hp=0)
    with pytest.raises(MatchError) as caught:
        lock_difficulty(over)
    assert caught.value.code == "match_over"


# --- tictactoe verify ----------------------------------------------------------------


def run_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", "verify", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_verify_command_accepts_a_real_game_and_names_a_tampered_one(tmp_path: Path) -> None:
    record = game_record(finished(seed=2))
    good = tmp_path / "game.json"
    good.write_text(json.dumps(record))
    result = run_verify(good)
    assert result.returncode == 3, result.stderr  # the dice verify; no signature to check
    assert result.stdout.startswith("dice verified, UNSIGNED: ")
    assert "game 1, " in result.stdout
    change_roll(record)
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(record))
    result = run_verify(bad)
    assert result.returncode == 1
    assert result.stdout.startswith("not verified: AI move 1 at ")
    assert "the dice give roll" in result.stdout
    missing = run_verify(tmp_path / "nothing.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
