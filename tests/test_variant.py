"""The variants' table, cell names and the text form of their positions."""

from __future__ import annotations

import pytest

from webapp.game import board
from webapp.game.board import RuleError
from webapp.game.position import Ending, Position
from webapp.game.variant import VARIANTS, variant_named

SHAPES = {
    "classic": (3, 3, 3, False, 1),
    "misere": (3, 3, 3, True, 1),
    "4x4k3": (4, 4, 3, False, 1),
    "4x4k4": (4, 4, 4, False, 1),
    "notakto1": (3, 3, 3, True, 1),
    "notakto2": (3, 3, 3, True, 2),
    "notakto3": (3, 3, 3, True, 3),
}


def test_the_seven_variants_by_name() -> None:
    assert [v.name for v in VARIANTS] == list(SHAPES)
    for name, shape in SHAPES.items():
        v = variant_named(name)
        assert (v.rows, v.columns, v.k, v.misere, v.boards) == shape
        assert v.notakto == name.startswith("notakto")


def test_an_unknown_variant_names_the_known_ones() -> None:
    with pytest.raises(RuleError) as caught:
        variant_named("5x5k4")
    assert caught.value.code == "unknown_variant"
    assert "classic" in caught.value.message and "notakto3" in caught.value.message


@pytest.mark.parametrize(("name", "count"), [("classic", 8), ("4x4k3", 24), ("4x4k4", 10)])
def test_lines_of_each_board(name: str, count: int) -> None:
    lines = variant_named(name).lines
    assert len(set(lines)) == count
    assert all(line.bit_count() == variant_named(name).k for line in lines)


def test_classic_cells_are_named_as_today() -> None:
    classic = variant_named("classic")
    for cell in range(9):
        assert classic.cell_name(cell) == board.cell_name(cell)
        assert classic.parse_cell(board.cell_name(cell)) == cell


@pytest.mark.parametrize(
    ("name", "cell", "text"),
    [("4x4k4", 0, "a1"), ("4x4k4", 3, "d1"), ("4x4k4", 12, "a4"), ("4x4k3", 15, "d4"),
     ("notakto2", 13, "2:b2"), ("notakto3", 26, "3:c3"), ("notakto1", 4, "b2")],
)  # fmt: skip
def test_cell_names_both_ways(name: str, cell: int, text: str) -> None:
    v = variant_named(name)
    assert v.cell_name(cell) == text
    assert v.parse_cell(text.upper()) == cell


@pytest.mark.parametrize(
    ("name", "text"),
    [("classic", "d1"), ("classic", "a4"), ("4x4k4", "e1"), ("notakto2", "b2"),
     ("notakto2", "3:a1"), ("notakto1", "2:a1"), ("classic", "centre"), ("4x4k4", "")],
)  # fmt: skip
def test_a_bad_cell_name_is_refused_clearly(name: str, text: str) -> None:
    with pytest.raises(RuleError) as caught:
        variant_named(name).parse_cell(text)
    assert caught.value.code == "bad_cell"
    assert "use " in caught.value.message


@pytest.mark.parametrize(
    ("name", "text"),
    [("classic", "X.O.X...."), ("4x4k4", "X..O....X..O...."), ("notakto2", "X......../....X...."),
     ("notakto3", "XX.X..X../........./...X....."), ("misere", ".........")],
)  # fmt: skip
def test_positions_read_and_write_back(name: str, text: str) -> None:
    position = Position.parse(variant_named(name), text)
    assert str(position) == text
    assert Position.parse(variant_named(name), text.lower().replace(".", "-")) == position


def test_empty_positions_and_moves() -> None:
    notakto = variant_named("notakto2")
    position = Position.empty(notakto).apply_move(notakto.parse_cell("2:b2"))
    assert str(position) == "........./....X...."
    assert position.to_move == "X" and not position.first_to_move
    four = Position.empty(variant_named("4x4k4")).apply_move(5).apply_move(0)
    assert str(four) == "O....X.........." and four.to_move == "X"


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [("notakto2", "X........", "bad_boards"),
     ("4x4k4", "X.O.X....", "bad_length"),
     ("classic", "X.Z.X....", "bad_character"),
     ("notakto1", "X.O......", "bad_character"),
     ("4x4k4", "XX..............", "bad_counts"),
     ("4x4k3", "XXX.OOO.........", "two_winners"),
     ("classic", "XXX.OO.O.", "wrong_winner"),
     ("4x4k3", "XXX.OO.OO.O.XXX.", "play_after_end"),
     ("notakto1", "XXX...XXX", "play_after_end")],
)  # fmt: skip
def test_a_bad_position_is_refused_clearly(name: str, text: str, code: str) -> None:
    with pytest.raises(RuleError) as caught:
        Position.parse(variant_named(name), text)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("name", "text", "ending"),
    [("classic", "XXX.OO...", Ending.MOVER_LOST),
     ("misere", "XXX.OO...", Ending.MOVER_WON),
     ("4x4k3", "XXOOOOXXXXOOOOXX", Ending.DRAW),
     ("notakto2", "XXX....../X...X...X", Ending.MOVER_WON),
     ("notakto2", "XXX....../X.X......", None)],
)  # fmt: skip
def test_the_end_of_a_game(name: str, text: str, ending: Ending | None) -> None:
    position = Position.parse(variant_named(name), text)
    assert position.ending() == ending
    assert (position.legal_moves() == []) == (ending is not None)


def test_no_move_on_a_dead_board_or_a_taken_cell() -> None:
    notakto = variant_named("notakto2")
    position = Position.parse(notakto, "XXX....../.........")
    assert position.legal_moves() == list(range(9, 18))
    for cell, code in ((4, "dead_board"), (0, "cell_taken"), (18, "cell_out_of_range")):
        with pytest.raises(RuleError) as caught:
            position.apply_move(cell)
        assert caught.value.code == code
