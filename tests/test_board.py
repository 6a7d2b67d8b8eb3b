"""Board rules: parsing, validation codes, side to move, cell names, moves and outcomes."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from support.testing import reachable_positions

from webapp.game.board import (
    CELLS,
    LINES,
    Board,
    Line,
    Mark,
    RuleError,
    Termination,
    cell_name,
    check_cell,
    other,
    parse_cell,
)


def all_strings() -> list[str]:
    """All 3^9 boards over X, O and '.'."""
    return ["".join(cells) for cells in itertools.product("XO.", repeat=9)]


@cache
def parse_all_strings() -> tuple[frozenset[str], frozenset[str]]:
    """Parse every 3^9 string: the boards that pass, and the error codes of the rest."""
    valid, codes = set(), set()
    for text in all_strings():
        try:
            valid.add(Board.parse(text).cells)
        except RuleError as err:
            codes.add(err.code)
    return frozenset(valid), frozenset(codes)


# --- parsing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        (".........", "........."),
        ("X...O....", "X...O...."),
        ("x...o....", "X...O...."),
        ("xO.Xo....", "XO.XO...."),
        ("---------", "........."),
        ("         ", "........."),
        ("X-O .- x.", "X.O....X."),
        ("XXXOO....", "XXXOO...."),
        ("XOXXOOOXX", "XOXXOOOXX"),
    ],
)
def test_parse_reads_marks_and_empty_spellings(text: str, cells: str) -> None:
    board = Board.parse(text)
    assert board.cells == cells
    assert str(board) == cells
    assert board == Board(cells)


def test_default_board_is_empty() -> None:
    assert Board().cells == "." * 9
    assert Board.parse(".........") == Board()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "bad_length"),
        ("X", "bad_length"),
        ("........", "bad_length"),
        ("..........", "bad_length"),
        ("X........\n", "bad_length"),
        ("X..Z.....", "bad_character"),
        ("0........", "bad_character"),
        ("X...o...1", "bad_character"),
        ("X\t.......", "bad_character"),
        ("_________", "bad_character"),
        ("XX.......", "bad_counts"),
        ("O........", "bad_counts"),
        ("XXXO.....", "bad_counts"),
        ("OOXX.O...", "bad_counts"),
        ("XXXXX....", "bad_counts"),
        ("XXXOOO...", "two_winners"),
        ("XXXOOOX..", "two_winners"),
        ("XOXOXOXO.", "wrong_winner"),
        ("XXXOO.O..", "wrong_winner"),
        ("OOOXX.X.X", "wrong_winner"),
        ("XO.XO.X.O", "wrong_winner"),
    ],
)
def test_parse_rejects_with_stable_code(text: str, code: str) -> None:
    with pytest.raises(RuleError) as caught:
        Board.parse(text)
    assert caught.value.code == code
    assert caught.value.message
    assert isinstance(caught.value, ValueError)


def test_bad_character_names_the_offending_characters() -> None:
    with pytest.raises(RuleError) as caught:
        Board.parse("X..Z..Q..")
    assert "QZ" in caught.value.message


def test_exactly_5478_of_all_3_to_the_9_boards_parse() -> None:
    assert len(set(all_strings())) == 19_683
    valid, codes = parse_all_strings()
    assert len(valid) == 5_478
    assert codes == {"bad_counts", "two_winners", "wrong_winner"}


def test_valid_boards_are_exactly_the_reachable_ones() -> None:
    valid, _ = parse_all_strings()
    assert valid == set(reachable_positions())


def test_a_double_line_made_by_one_move_is_valid() -> None:
    board = Board.parse("XXXOXOOOX")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner == "X"
    assert outcome.line == (0, 1, 2)


# --- side to move ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "to_move"),
    [
        (".........", "X"),
        ("X........", "O"),
        ("....X....", "O"),
        ("XO.......", "X"),
        ("XOX......", "O"),
        ("XOXO.....", "X"),
        ("XOXOX.O..", "X"),
        ("XOXXOOOX.", "X"),
        ("XOXXOOOXX", "O"),
    ],
)
def test_side_to_move_follows_from_counts(text: str, to_move: Mark) -> None:
    assert Board.parse(text).to_move == to_move


def test_other_swaps_marks() -> None:
    assert other("X") == "O"
    assert other("O") == "X"


def test_empties_counts_empty_cells() -> None:
    assert Board().empties == 9
    assert Board.parse("XO.X.O...").empties == 5
    assert Board.parse("XOXXOOOXX").empties == 0


# --- cell names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("a1", 0),
        ("b1", 1),
        ("c1", 2),
        ("a2", 3),
        ("b2", 4),
        ("c2", 5),
        ("a3", 6),
        ("b3", 7),
        ("c3", 8),
        ("B2", 4),
        ("C3", 8),
        (" a1 ", 0),
        ("b 3", 7),
        ("1 1", 4),
        ("0,2", 2),
        ("0 0", 0),
        ("2 0", 6),
        ("1, 2", 5),
        ("2,2", 8),
        (" 2  1 ", 7),
    ],
)
def test_parse_cell_reads_names_and_row_col_pairs(text: str, cell: int) -> None:
    assert parse_cell(text) == cell


@pytest.mark.parametrize(
    "text",
    ["", "b", "d1", "a0", "a4", "3 3", "1 3", "11", "1-1", "-1 0", "b2 b2", "one", "4"],
)
def test_parse_cell_rejects_with_bad_cell(text: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse_cell(text)
    assert caught.value.code == "bad_cell"


@pytest.mark.parametrize("cell", CELLS)
def test_cell_name_round_trips(cell: int) -> None:
    name = cell_name(cell)
    assert parse_cell(name) == cell
    assert parse_cell(f"{cell // 3} {cell % 3}") == cell


def test_cell_names_in_reading_order() -> None:
    assert [cell_name(c) for c in CELLS] == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]


@pytest.mark.parametrize("cell", [-1, 9, 100, True, False, "4", 4.0, None, [4]])
def test_cell_out_of_range(cell: object) -> None:
    with pytest.raises(RuleError) as caught:
        check_cell(cell)
    assert caught.value.code == "cell_out_of_range"
    with pytest.raises(RuleError) as caught:
        Board().apply_move(cell)
    assert caught.value.code == "cell_out_of_range"


@pytest.mark.parametrize("cell", [-1, 9])
def test_cell_name_rejects_out_of_range(cell: int) -> None:
    with pytest.raises(RuleError) as caught:
        cell_name(cell)
    assert caught.value.code == "cell_out_of_range"


# --- moves --------------------------------------------------------------------------


def test_apply_move_returns_new_board_and_leaves_old_unchanged() -> None:
    before = Board.parse("X...O....")
    after = before.apply_move(8)
    assert after is not before
    assert before.cells == "X...O...."
    assert after.cells == "X...O...X"
    again = after.apply_move(1)
    assert again.cells == "XO..O...X"
    assert after.cells == "X...O...X"


def test_board_is_immutable() -> None:
    board = Board()
    with pytest.raises(AttributeError):
        board.cells = "X........"  # type: ignore[misc]
    assert board.cells == "........."


def test_moves_alternate_starting_with_x() -> None:
    board = Board()
    for cell, mark in zip((4, 0, 8, 2), "XOXO", strict=True):
        board = board.apply_move(cell)
        assert board.cells[cell] == mark
    assert board.cells == "O.O.X...X"


@pytest.mark.parametrize(
    ("text", "cell"),
    [("X........", 0), ("X...O....", 4), ("XO.......", 1)],
)
def test_cell_taken(text: str, cell: int) -> None:
    with pytest.raises(RuleError) as caught:
        Board.parse(text).apply_move(cell)
    assert caught.value.code == "cell_taken"
    assert cell_name(cell) in caught.value.message


@pytest.mark.parametrize(
    ("text", "cell"),
    [("XXXOO....", 8), ("XXXOO....", 0), ("XOXXOOOXX", 0), ("XXOXO.O..", 5)],
)
def test_game_over(text: str, cell: int) -> None:
    board = Board.parse(text)
    with pytest.raises(RuleError) as caught:
        board.apply_move(cell)
    assert caught.value.code == "game_over"


def test_legal_moves() -> None:
    assert Board().legal_moves() == list(CELLS)
    assert Board.parse("X...O...X").legal_moves() == [1, 2, 3, 5, 6, 7]
    assert Board.parse("XXXOO....").legal_moves() == []
    assert Board.parse("XOXXOOOXX").legal_moves() == []


def test_rows() -> None:
    assert Board.parse("XO.X.O..X").rows() == ["XO.", "X.O", "..X"]


# --- outcomes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "winner", "line"),
    [
        ("XXXOO....", "X", (0, 1, 2)),
        ("OO.XXX...", "X", (3, 4, 5)),
        ("OO....XXX", "X", (6, 7, 8)),
        ("XO.XO.X..", "X", (0, 3, 6)),
        ("OX.OX..X.", "X", (1, 4, 7)),
        ("O.XO.X..X", "X", (2, 5, 8)),
        ("XO.OX...X", "X", (0, 4, 8)),
        ("O.XOX.X..", "X", (2, 4, 6)),
        ("OOOXX.X..", "O", (0, 1, 2)),
        ("XXOXO.O..", "O", (2, 4, 6)),
        ("X.OX.O.XO", "O", (2, 5, 8)),
        ("XOX.O.XO.", "O", (1, 4, 7)),
    ],
)
def test_winning_line_and_outcome(text: str, winner: Mark, line: Line) -> None:
    board = Board.parse(text)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.WIN
    assert outcome.winner == winner
    assert outcome.line == line
    assert line in LINES
    assert board.is_over()
    assert board.legal_moves() == []


@pytest.mark.parametrize("text", ["XOXXOOOXX", "XXOOOXXOX", "XOXOXXOXO"])
def test_full_board_without_line_is_a_draw(text: str) -> None:
    board = Board.parse(text)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.DRAW
    assert outcome.winner is None
    assert outcome.line is None
    assert board.is_over()


@pytest.mark.parametrize("text", [".........", "X........", "XO.XO....", "XOXXOOOX."])
def test_game_in_progress_has_no_outcome(text: str) -> None:
    board = Board.parse(text)
    assert board.outcome() is None
    assert not board.is_over()
    assert board.legal_moves()


def test_winning_move_ends_the_game() -> None:
    board = Board.parse("XX.OO....").apply_move(2)
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.line) == ("X", (0, 1, 2))
