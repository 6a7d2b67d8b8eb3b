"""Review by perfect play, proved on every move of every reachable position."""

from __future__ import annotations

import json
import random
from functools import cache

import pytest
from support.testing import reachable_positions

from webapp.cli.main import main
from webapp.game.board import Board, RuleError, winner_of
from webapp.game.review import judge, review, summary

RANK = {"loss": 0, "draw": 1, "win": 2}


@cache
def oracle(cells: str) -> tuple[str, int]:
    """(result, plies) for the side to move, from the rules alone: a win as fast as
    possible, a loss as slow as possible; independent of the engine's score arithmetic."""
    if winner_of(cells):
        return "loss", 0  # the side that just moved made the line
    if "." not in cells:
        return "draw", 0
    mark = "X" if cells.count("X") == cells.count("O") else "O"
    options = []
    for i, here in enumerate(cells):
        if here == ".":
            result, plies = oracle(cells[:i] + mark + cells[i + 1 :])
            mine = {"loss": "win", "win": "loss", "draw": "draw"}[result]
            options.append((mine, plies + 1))
    return max(options, key=lambda o: (RANK[o[0]], -o[1] if o[0] == "win" else o[1]))


def expected_verdict(best: tuple[str, int], played: tuple[str, int]) -> str:
    """The verdict as the issue defines it."""
    drop = RANK[best[0]] - RANK[played[0]]
    if drop == 2:
        return "blunder"
    if drop == 1:
        return "mistake"
    return "best" if played[1] == best[1] else "inaccuracy"


def test_every_move_of_every_reachable_position_is_judged_right() -> None:
    judged = 0
    seen = set()
    for board in reachable_positions().values():
        if board.is_over():
            continue
        best = oracle(board.cells)
        for cell in board.legal_moves():
            child = board.apply_move(cell).cells
            result, plies = oracle(child)
            played = ({"loss": "win", "win": "loss", "draw": "draw"}[result], plies + 1)
            move = judge(board, cell)
            assert (move.best.result.value, move.best.plies) == best, board.cells
            assert (move.played.result.value, move.played.plies) == played, (board.cells, cell)
            assert move.verdict == expected_verdict(best, played), (board.cells, cell)
            assert move.ply == 10 - board.empties and move.side == board.to_move
            seen.add(move.verdict)
            judged += 1
    assert judged == 16_167  # every edge of the position graph
    assert seen == {"best", "inaccuracy", "mistake", "blunder"}


def test_best_cells_are_every_move_that_keeps_the_best_value() -> None:
    for board in reachable_positions().values():
        if board.is_over():
            continue
        best = oracle(board.cells)
        keeping = set()
        for cell in board.legal_moves():
            result, plies = oracle(board.apply_move(cell).cells)
            if ({"loss": "win", "win": "loss", "draw": "draw"}[result], plies + 1) == best:
                keeping.add(cell)
        for cell in board.legal_moves():
            move = judge(board, cell)
            assert move.best_cells == tuple(sorted(keeping)), board.cells
            assert (cell in move.best_cells) == (move.verdict == "best"), (board.cells, cell)


def test_a_slip_names_the_cells_it_should_have_played() -> None:
    moves = review([0, 1])  # a1, then O's b1 edge: b2 was the only draw
    assert moves[1].verdict == "mistake" and moves[1].best_cells == (4,)
    assert moves[1].to_dict()["best_cells"] == ["b2"]


def random_game(rng: random.Random) -> list[int]:
    """The cells of one game of random moves."""
    board, cells = Board(), []
    while not board.is_over():
        cell = rng.choice(board.legal_moves())
        cells.append(cell)
        board = board.apply_move(cell)
    return cells


def test_a_game_review_is_its_moves_and_marks_each_gift() -> None:
    rng = random.Random(2024)
    gifts = {"taken": 0, "missed": 0}
    for _ in range(2000):
        cells = random_game(rng)
        moves = review(cells)
        board = Board()
        for index, (cell, move) in enumerate(zip(cells, moves, strict=True)):
            alone = judge(board, cell)
            assert (move.best, move.played, move.verdict) == (
                alone.best,
                alone.played,
                alone.verdict,
            )
            answer = moves[index + 1] if index + 1 < len(moves) else None
            if move.gave_away and answer is not None:
                assert move.gift == ("missed" if answer.gave_away else "taken")
                gifts[move.gift] += 1
            else:
                assert move.gift is None
            board = board.apply_move(cell)
    assert gifts["taken"] > 0 and gifts["missed"] > 0


def test_summary_counts_the_players_slips_and_gifts() -> None:
    moves = review([0, 3, 8])  # O's a2 throws the draw away; X's c3 misses the win
    assert [m.verdict for m in moves] == ["best", "mistake", "mistake"]
    assert moves[1].gift == "missed"
    assert summary(moves, "X") == "1 mistake, 1 missed gift"
    assert summary(moves, "O") == "1 mistake"
    assert summary(review([4, 0]), "X").startswith("No mistakes")


def test_an_illegal_sequence_is_refused_with_the_boards_code() -> None:
    with pytest.raises(RuleError) as taken:
        review([4, 4])
    assert taken.value.code == "cell_taken"
    with pytest.raises(RuleError) as over:
        review([0, 3, 1, 4, 2, 5])
    assert over.value.code == "game_over"


def test_review_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--json", "b2", "a1", "c3", "c1"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["moves"][0] == {
        "ply": 1,
        "cell": "b2",
        "side": "X",
        "best": {"result": "draw", "plies": 9},
        "played": {"result": "draw", "plies": 9},
        "verdict": "best",
        "best_cells": ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"],
    }
    assert found["moves"][1]["best_cells"] == ["a1", "c1", "a3", "c3"]  # a corner against b2
    assert [m["side"] for m in found["moves"]] == ["X", "O", "X", "O"]


def test_review_command_text_and_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "a1", "a2", "c3"]) == 0
    out = capsys.readouterr().out
    assert " 2. O a2  mistake    kept loss in 6 (best: draw at b2), gift missed" in out
    assert " 3. X c3  mistake    kept draw (best: win in 5 at b1, c1 or b2)" in out
    assert "X: 1 mistake, 1 missed gift" in out
    assert main(["review", "b2", "b2"]) == 2
    assert "move 2 ('b2')" in capsys.readouterr().err
    assert main(["review", "d4"]) == 2
