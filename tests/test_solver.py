"""The engine of every variant, checked against an independent count and today's engine.

The count here is a plain memoised negamax over the positions' text, with lines found
from coordinates; it shares nothing with the engine but the rules as the issue states
them. On 3x3 boards it walks every position; on 4x4 it walks the sampled positions'
subtrees, and the 4x4k4 empty board is proved in bench/variants.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

import pytest
from support.testing import reachable_positions

from webapp.game import engine
from webapp.game.board import RuleError
from webapp.game.book import Book, BookError, build_book, solver_with
from webapp.game.engine import Result
from webapp.game.position import Position
from webapp.game.solver import Solver
from webapp.game.variant import Variant, variant_named

LOSS, DRAW, WIN = -1, 0, 1
RESULTS = {LOSS: Result.LOSS, DRAW: Result.DRAW, WIN: Result.WIN}
FROM_EMPTY = {
    "classic": Result.DRAW,
    "misere": Result.DRAW,
    "4x4k3": Result.WIN,
    "4x4k4": Result.DRAW,
    "notakto1": Result.WIN,
    "notakto2": Result.LOSS,
    "notakto3": Result.WIN,
}
Count = tuple[int, int]
"""(result for the side to move, plies to the end)."""


@cache
def coordinate_lines(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Runs of ``k`` on a ``size`` x ``size`` board, from (row, column) steps."""
    runs = set()
    for row in range(size):
        for col in range(size):
            for step in ((0, 1), (1, 0), (1, 1), (1, -1)):
                spots = [(row + i * step[0], col + i * step[1]) for i in range(k)]
                if all(0 <= r < size and 0 <= c < size for r, c in spots):
                    runs.add(tuple(r * size + c for r, c in spots))
    return tuple(sorted(runs))


def preferred(options: list[Count]) -> Count:
    """The mover's pick: a win over a draw over a loss; the fastest win, slowest loss."""
    return max(options, key=lambda option: (option[0], -option[1] * option[0]))


@cache
def line_count(size: int, k: int, misere: bool, cells: str) -> Count:
    """Result and plies for the side to move, by walking every line of play."""
    last = "X" if cells.count("X") > cells.count("O") else "O"
    if any(all(cells[i] == last for i in run) for run in coordinate_lines(size, k)):
        return (WIN if misere else LOSS), 0
    if "." not in cells:
        return DRAW, 0
    mover = "O" if last == "X" else "X"
    options = []
    for i, mark in enumerate(cells):
        if mark == ".":
            result, plies = line_count(size, k, misere, cells[:i] + mover + cells[i + 1 :])
            options.append((-result, plies + 1))
    return preferred(options)


@cache
def line_result(size: int, k: int, misere: bool, cells: str) -> int:
    """The result alone, stopping at the first winning move (fast on a won game)."""
    last = "X" if cells.count("X") > cells.count("O") else "O"
    if any(all(cells[i] == last for i in run) for run in coordinate_lines(size, k)):
        return WIN if misere else LOSS
    mover, best = ("O" if last == "X" else "X"), (LOSS if "." in cells else DRAW)
    for i in (i for i, mark in enumerate(cells) if mark == "."):
        best = max(best, -line_result(size, k, misere, cells[:i] + mover + cells[i + 1 :]))
        if best == WIN:
            break
    return best


def turned(board: str) -> str:
    """A 3x3 board a quarter turn clockwise."""
    return "".join(board[6 - 3 * (i % 3) + i // 3] for i in range(9))


def board_images(board: str) -> list[str]:
    """The eight images of a 3x3 board: four turns, each mirrored."""
    images = []
    for _ in range(4):
        board = turned(board)
        images += [board, "".join(board[r * 3 : r * 3 + 3][::-1] for r in range(3))]
    return images


def dead(board: str) -> bool:
    return any(all(board[i] == "X" for i in run) for run in coordinate_lines(3, 3))


@cache
def notakto_count(boards: tuple[str, ...]) -> Count:
    """Notakto by the rules: result and plies, boards compared up to symmetry and order."""
    live = [b for b in boards if not dead(b)]
    if not live:
        return WIN, 0  # the other player killed the last board
    options = []
    for n, board in enumerate(live):
        for i, mark in enumerate(board):
            if mark == ".":
                after = board[:i] + "X" + board[i + 1 :]
                rest = live[:n] + live[n + 1 :] + ([] if dead(after) else [after])
                result, plies = notakto_count(tuple(sorted(min(board_images(b)) for b in rest)))
                options.append((-result, plies + 1))
    return preferred(options)


@cache
def notakto_result(boards: tuple[str, ...]) -> int:
    """Notakto's result alone, stopping at the first winning move."""
    live = [b for b in boards if not dead(b)]
    if not live:
        return WIN
    for n, board in enumerate(live):
        for i in (i for i, mark in enumerate(board) if mark == "."):
            after = board[:i] + "X" + board[i + 1 :]
            rest = live[:n] + live[n + 1 :] + ([] if dead(after) else [after])
            if notakto_result(tuple(sorted(min(board_images(b)) for b in rest))) == LOSS:
                return WIN
    return LOSS


def counted(position: Position) -> Count:
    """The independent count of any variant's position."""
    v, text = position.variant, str(position)
    if v.notakto:
        return notakto_count(tuple(sorted(min(board_images(b)) for b in text.split("/"))))
    return line_count(v.rows, v.k, v.misere, text)


def random_positions(v: Variant, count: int, stones: int, seed: int) -> list[Position]:
    """``count`` unfinished positions of random play with ``stones`` marks."""
    rng = random.Random(seed)
    found: list[Position] = []
    for _ in range(count * 20):
        position = Position.empty(v)
        for _ in range(stones):
            if position.is_over():
                break
            position = position.apply_move(rng.choice(position.legal_moves()))
        if position.stones == stones and not position.is_over():
            found.append(position)
        if len(found) == count:
            return found
    raise AssertionError(f"too few positions with {stones} marks")


def assert_agrees(solver: Solver, position: Position) -> None:
    """Every move's result and plies, the value and the lowest best move, as counted."""
    analysis = solver.analyse(position)
    if position.is_over():
        assert (analysis.moves, analysis.best) == ({}, ())
        assert (RESULTS_BACK[analysis.value.result], analysis.value.plies) == counted(position)
        return
    assert set(analysis.moves) == set(position.legal_moves())
    for cell, value in analysis.moves.items():
        result, plies = counted(position.apply_move(cell))
        assert (value.result, value.plies) == (RESULTS[-result], plies + 1), (position, cell)
    result, plies = counted(position)
    assert (analysis.value.result, analysis.value.plies) == (RESULTS[result], plies)
    top = preferred([(RESULTS_BACK[v.result], v.plies) for v in analysis.moves.values()])
    assert analysis.best == tuple(
        c for c, v in analysis.moves.items() if (RESULTS_BACK[v.result], v.plies) == top
    )
    assert solver.best_move(position) == analysis.best[0]


RESULTS_BACK = {result: number for number, result in RESULTS.items()}


@pytest.mark.parametrize("name", [n for n in FROM_EMPTY if n != "4x4k4"])
def test_value_from_the_empty_board(name: str) -> None:
    v = variant_named(name)
    assert Solver(v).value(Position.empty(v)).result == FROM_EMPTY[name]
    if v.notakto:
        assert RESULTS[notakto_result(("." * 9,) * v.boards)] == FROM_EMPTY[name]
    else:
        assert RESULTS[line_result(v.rows, v.k, v.misere, "." * v.cells)] == FROM_EMPTY[name]


@pytest.mark.parametrize("name", ["classic", "misere", "notakto1", "notakto2"])
def test_every_first_move_agrees_with_the_count(name: str) -> None:
    assert_agrees(Solver(variant_named(name)), Position.empty(variant_named(name)))


def test_four_in_a_row_on_4x4_is_a_draw_for_the_engine() -> None:
    v = variant_named("4x4k4")
    analysis = Solver(v).analyse(Position.empty(v))
    assert analysis.value.result == Result.DRAW and analysis.value.plies == 16
    assert analysis.best == tuple(range(16))  # every first move keeps the draw


@pytest.mark.parametrize(
    ("name", "stones", "count"),
    [("4x4k4", 6, 2), ("4x4k4", 8, 15), ("4x4k4", 10, 40), ("4x4k3", 5, 10), ("4x4k3", 7, 40),
     ("notakto2", 3, 40), ("notakto3", 8, 15), ("notakto3", 12, 40)],
)  # fmt: skip
def test_sampled_positions_agree_with_the_count(name: str, stones: int, count: int) -> None:
    v = variant_named(name)
    solver = Solver(v)
    for position in random_positions(v, count, stones, seed=stones):
        assert_agrees(solver, position)


@pytest.mark.parametrize("name", ["classic", "misere", "notakto1"])
def test_every_position_of_the_small_games_agrees(name: str) -> None:
    v = variant_named(name)
    solver = Solver(v)
    seen, layer = {str(Position.empty(v))}, [Position.empty(v)]
    while layer:
        for position in layer:
            assert_agrees(solver, position)
        after = {str(p.apply_move(c)): p.apply_move(c) for p in layer for c in p.legal_moves()}
        layer = [p for text, p in after.items() if text not in seen]
        seen.update(after)
    assert len(seen) == {"classic": 5478, "misere": 5478}.get(name, len(seen))


def test_classic_matches_todays_engine_everywhere() -> None:
    classic = variant_named("classic")
    solver = Solver(classic)
    for cells, board in reachable_positions().items():
        ours = solver.analyse(Position.parse(classic, cells))
        today = engine.analyse(board)
        assert ours.to_dict() == today.to_dict(), cells


@pytest.fixture(scope="module")
def small_book() -> Book:
    return build_book(variant_named("4x4k4"), depth=3)


def test_a_book_holds_exact_scores_and_survives_bytes(small_book: Book) -> None:
    v = small_book.variant
    assert len(small_book) == 1 + 3 + 33 + 219
    again = Book.from_bytes(v, small_book.to_bytes())
    assert again == small_book
    booked, searched = solver_with(again), Solver(v)
    for position in [*random_positions(v, 20, 3, seed=1), Position.empty(v)]:
        state = searched.rules.state(position)
        assert again.lookup(searched.rules.canonical(state)) == searched.score(state)
        assert booked.analyse(position) == searched.analyse(position)
        assert booked.best_move(position) == searched.best_move(position)


@pytest.mark.parametrize(
    "spoil",
    [lambda data: b"not a book" + data,
     lambda data: data[:-1],
     lambda data: data[: len(b"tictactoe-book 1\n") + 3],
     lambda data: data.replace(b"4x4k4", b"4x4k3", 1),
     lambda data: data.replace(b" 3 ", b" three ", 1)],
)  # fmt: skip
def test_bad_book_bytes_are_refused(small_book: Book, spoil: Callable[[bytes], bytes]) -> None:
    with pytest.raises(BookError) as caught:
        Book.from_bytes(small_book.variant, spoil(small_book.to_bytes()))
    assert caught.value.code == "bad_book"


def test_a_finished_game_has_no_best_move() -> None:
    classic = variant_named("classic")
    with pytest.raises(RuleError) as caught:
        Solver(classic).best_move(Position.parse(classic, "XXX.OO..."))
    assert caught.value.code == "game_over"


def test_moves_on_several_boards_are_keyed_by_board_and_cell() -> None:
    notakto = variant_named("notakto2")
    analysis = Solver(notakto).analyse(Position.parse(notakto, "XXX....../........."))
    assert list(analysis.moves) == list(range(9, 18))
    answer = analysis.to_dict()
    assert answer["board"] == "XXX....../........." and answer["to_move"] == "X"
    assert answer["moves"] == {str(cell): v.to_dict() for cell, v in analysis.moves.items()}
    assert answer["best"] == [13]  # the centre of the one live board wins
    assert (answer["result"], answer["plies"]) == ("win", 6)
