"""The engine, proved by walking every line of play rather than sampled."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from functools import cache

import pytest
from support.testing import reachable_positions

from webapp.game import engine, search, strategies, tree
from webapp.game.board import CELLS, LINES, Board, Mark, RuleError, other

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

# Results for the side to move, as numbers so they compare: loss < draw < win.
LOSS, DRAW, WIN = -1, 0, 1
RESULT_NAMES = {LOSS: "loss", DRAW: "draw", WIN: "win"}


@cache
def reference(cells: str) -> tuple[int, int]:
    """(result, plies to the end) for the side to move, from the board rules alone.

    The mover prefers the fastest win, then a draw, then the slowest loss.
    """
    board = Board(cells)
    outcome = board.outcome()
    if outcome is not None:
        return (DRAW if outcome.winner is None else LOSS), 0
    options = []
    for cell in board.legal_moves():
        result, plies = reference(board.apply_move(cell).cells)
        options.append((-result, plies + 1))
    return max(options, key=lambda option: (option[0], -option[1] * option[0]))


def all_positions() -> tuple[Board, ...]:
    """Every position reachable from the empty board, found with the board rules."""
    return tuple(reachable_positions().values())


def playable_positions() -> list[Board]:
    """Every reachable position that is not over."""
    return [board for board in all_positions() if not board.is_over()]


def lines_of_play(board: Board, engine_mark: Mark, plies: int = 0) -> Iterator[tuple[Board, int]]:
    """Every finished game from ``board``: the opponent tries all moves, the engine
    every one of its best moves. Yields the final board and the plies it took."""
    if board.is_over():
        yield board, plies
        return
    if board.to_move == engine_mark:
        moves: tuple[int, ...] | list[int] = engine.best_moves(board)
        assert moves, board
    else:
        moves = board.legal_moves()
    for cell in moves:
        yield from lines_of_play(board.apply_move(cell), engine_mark, plies + 1)


def result_for(board: Board, mark: Mark) -> int:
    """WIN, DRAW or LOSS for ``mark`` on a finished board."""
    outcome = board.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return DRAW
    return WIN if outcome.winner == mark else LOSS


def symmetries() -> set[tuple[int, ...]]:
    """The 8 symmetries of the square, built from row/column coordinates."""
    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda r, c: (r, c),
        lambda r, c: (c, 2 - r),
        lambda r, c: (2 - r, 2 - c),
        lambda r, c: (2 - c, r),
        lambda r, c: (r, 2 - c),
        lambda r, c: (2 - r, c),
        lambda r, c: (c, r),
        lambda r, c: (2 - c, 2 - r),
    ]
    found = set()
    for move in maps:
        cells = (move(cell // 3, cell % 3) for cell in CELLS)
        found.add(tuple(row * 3 + col for row, col in cells))
    return found


def transform(cells: str, perm: tuple[int, ...]) -> str:
    """Cell ``i`` of the result holds cell ``perm[i]`` of ``cells``."""
    return "".join(cells[i] for i in perm)


FIRST_MOVE_STARTS = [Board()] + [Board().apply_move(cell) for cell in CELLS]


# --- the solved table -----------------------------------------------------------------


def test_solved_table_holds_every_reachable_position() -> None:
    table = engine.solved()
    assert len(table) == 5_478
    assert set(table) == {board.cells for board in all_positions()}


def test_solved_values_match_an_independent_solver() -> None:
    for board in all_positions():
        result, plies = reference(board.cells)
        value = engine.value(board)
        assert (value.result.value, value.plies) == (RESULT_NAMES[result], plies), board


def test_empty_board_is_a_draw_in_nine() -> None:
    value = engine.value(Board())
    assert value.result is engine.Result.DRAW
    assert value.plies == 9
    assert value.to_dict() == {"result": "draw", "plies": 9}


def test_alphabeta_search_equals_solved_on_every_position() -> None:
    table = engine.solved()
    for cells, score in table.items():
        assert search.alphabeta_search(cells, search.SearchStats()) == score, cells


def test_minimax_search_equals_solved_from_four_marks() -> None:
    table = engine.solved()
    checked = 0
    for cells, score in table.items():
        if cells.count(".") <= 5:
            assert search.minimax_search(cells, search.SearchStats()) == score, cells
            checked += 1
    assert checked > 5_000


def test_root_search_minimax_visits_whole_tree_and_alphabeta_prunes() -> None:
    cell, score, full = search.root_search(Board(), search.minimax_search)
    assert score == 0
    assert cell in engine.best_moves(Board())
    # root_search counts every node below the root.
    assert full.nodes + 1 == tree.tree_stats().tree_nodes
    cell, pruned_score, pruned = search.root_search(Board(), search.alphabeta_search)
    assert pruned_score == score
    assert cell in engine.best_moves(Board())
    assert 0 < pruned.nodes < full.nodes // 5


@pytest.mark.parametrize("text", ["XX.OO....", "X...O...X", ".X...XOOX", "XOXOXO..."])
def test_root_search_agrees_with_analysis(text: str) -> None:
    board = Board.parse(text)
    for way in (search.minimax_search, search.alphabeta_search):
        cell, score, stats = search.root_search(board, way)
        assert cell in engine.best_moves(board)
        assert score == engine.solved()[board.cells]
        assert stats.nodes > 0


def test_successors_are_the_legal_moves_and_their_positions() -> None:
    for board in playable_positions():
        expected = [(cell, board.apply_move(cell).cells) for cell in board.legal_moves()]
        assert list(engine.successors(board.cells)) == expected, board


def test_terminal_score_is_a_loss_for_the_side_to_move_or_a_draw() -> None:
    for board in all_positions():
        outcome = board.outcome()
        score = engine.terminal_score(board.cells)
        if outcome is None:
            assert score is None, board
        elif outcome.winner is None:
            assert score == 0, board
        else:
            assert outcome.winner != board.to_move  # only the last mover can own a line
            assert score == -engine.WIN, board


@pytest.mark.parametrize(
    ("score", "earlier"),
    [(engine.WIN, engine.WIN - 1), (-engine.WIN, 1 - engine.WIN), (0, 0), (95, 94), (-93, -92)],
)
def test_farther_scores_shrink_by_one_ply(score: int, earlier: int) -> None:
    assert engine.farther(score) == earlier


# --- perfect play, proved ------------------------------------------------------------


@pytest.mark.parametrize("engine_mark", ["X", "O"])
@pytest.mark.parametrize("start", FIRST_MOVE_STARTS, ids=lambda b: b.cells)
def test_engine_never_loses_from_the_opening(start: Board, engine_mark: Mark) -> None:
    results = {result_for(end, engine_mark) for end, _ in lines_of_play(start, engine_mark)}
    assert LOSS not in results
    # The opponent's lines include perfect play, which holds the engine to a draw.
    assert DRAW in results


def test_opening_walk_reaches_many_lines() -> None:
    # A guard that the proof walks whole trees, not one line per start.
    assert sum(1 for _ in lines_of_play(Board(), "X")) == 10_640
    assert sum(1 for _ in lines_of_play(Board(), "O")) == 6_112


def test_engine_converts_every_won_position() -> None:
    won = [board for board in playable_positions() if reference(board.cells)[0] == WIN]
    assert len(won) > 2_000
    for board in won:
        mark = board.to_move
        lengths = []
        for end, plies in lines_of_play(board, mark):
            assert result_for(end, mark) == WIN, (board, end)
            lengths.append(plies)
        # The promised distance is exact: the best defence lasts that long, none longer.
        assert max(lengths) == engine.value(board).plies, board


def test_engine_secures_the_value_of_every_position() -> None:
    for board in playable_positions():
        mark = board.to_move
        expected, plies = reference(board.cells)
        ends = [(result_for(end, mark), n) for end, n in lines_of_play(board, mark)]
        assert min(result for result, _ in ends) == expected, board
        if expected == LOSS:
            # Lost positions: the engine delays, so the quickest loss is the promised one.
            assert min(n for result, n in ends if result == LOSS) == plies, board


def test_perfect_move_always_picks_a_best_move() -> None:
    rng = random.Random(11)
    for board in playable_positions():
        assert engine.perfect_move(board, rng) in engine.best_moves(board), board


# --- scenarios ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fastest", "slower"),
    [
        ("XOXOXO...", {6, 8}, {7}),
        ("XOO..X...", {3, 4}, {6, 7}),
        ("X..O.XO..", {2, 8}, {1, 7}),
    ],
)
def test_takes_fastest_win(text: str, fastest: set[int], slower: set[int]) -> None:
    board = Board.parse(text)
    analysis = engine.analyse(board)
    for cell in slower:
        assert analysis.moves[cell].result is engine.Result.WIN
        assert analysis.moves[cell].plies > analysis.value.plies
    assert set(engine.best_moves(board)) == fastest
    picks = {engine.perfect_move(board, random.Random(seed)) for seed in range(30)}
    assert picks == fastest


@pytest.mark.parametrize(
    ("text", "cell"),
    [("XX.OO....", 2), ("OO.XX.X..", 2), ("X.XOO....", 1), ("XO.XO....", 6)],
)
def test_takes_immediate_win(text: str, cell: int) -> None:
    board = Board.parse(text)
    assert engine.best_moves(board) == (cell,)
    assert engine.value(board).to_dict() == {"result": "win", "plies": 1}
    outcome = board.apply_move(engine.perfect_move(board, random.Random(0))).outcome()
    assert outcome is not None
    assert outcome.winner == board.to_move


@pytest.mark.parametrize(
    ("text", "cell"),
    [("XX..O....", 2), ("O.X.X....", 6), ("X.X.O....", 1), ("OO.X....X", 2), ("X..OO...X", 5)],
)
def test_blocks_immediate_win(text: str, cell: int) -> None:
    board = Board.parse(text)
    opponent = other(board.to_move)
    # The opponent really does threaten to win at ``cell``.
    elsewhere = board.apply_move(next(c for c in board.legal_moves() if c != cell))
    won = elsewhere.apply_move(cell).outcome()
    assert won is not None
    assert won.winner == opponent
    for seed in range(10):
        assert engine.perfect_move(board, random.Random(seed)) == cell
    blocked = board.apply_move(cell)
    for reply in blocked.legal_moves():
        outcome = blocked.apply_move(reply).outcome()
        assert outcome is None or outcome.winner != opponent


def test_fatalist_board_blocks_and_delays_the_loss() -> None:
    board = Board.parse(".X...XOOX")
    assert board.to_move == "O"
    analysis = engine.analyse(board)
    assert analysis.value.to_dict() == {"result": "loss", "plies": 4}
    assert analysis.best == (2,)
    assert analysis.moves[2].to_dict() == {"result": "loss", "plies": 4}
    for cell in (0, 3, 4):
        assert analysis.moves[cell].to_dict() == {"result": "loss", "plies": 2}
    for seed in range(10):
        assert engine.perfect_move(board, random.Random(seed)) == 2


def test_seed_example_heuristic_ties_a_losing_move() -> None:
    board = Board.parse("OXO.X.X..")
    assert board.to_move == "O"
    scores = {
        cell: strategies.win_probability(board.apply_move(cell), "O") for cell in (3, 5, 7, 8)
    }
    assert scores[5] == scores[7] == pytest.approx(1 / 3)
    assert scores[5] == scores[7] > max(scores[3], scores[8])
    assert engine.analyse(board).moves[5].result is engine.Result.LOSS
    assert engine.analyse(board).moves[7].result is engine.Result.DRAW
    heuristic = {strategies.heuristic_move(board, random.Random(seed)) for seed in range(30)}
    assert heuristic == {5, 7}
    for seed in range(30):
        assert engine.perfect_move(board, random.Random(seed)) == 7
        assert strategies.lookahead_move(board, random.Random(seed), depth=2) == 7


# --- tie-breaking ---------------------------------------------------------------------


def test_tie_breaking_uses_the_injected_random() -> None:
    board = Board()
    picks = [engine.perfect_move(board, random.Random(seed)) for seed in range(20)]
    assert len(set(picks)) > 3
    assert set(picks) <= set(engine.best_moves(board))
    for seed, pick in enumerate(picks):
        assert engine.perfect_move(board, random.Random(seed)) == pick


def test_same_seed_plays_the_same_game() -> None:
    def game(seed: int) -> str:
        rng = random.Random(seed)
        board = Board()
        while not board.is_over():
            board = board.apply_move(engine.perfect_move(board, rng))
        return board.cells

    assert game(7) == game(7)
    assert len({game(seed) for seed in range(20)}) > 1


# --- analysis shape -------------------------------------------------------------------


def test_analysis_to_dict_shape() -> None:
    board = Board.parse("X...O...X")
    data = engine.analyse(board).to_dict()
    assert set(data) == {"board", "to_move", "result", "plies", "moves", "best"}
    assert data["board"] == "X...O...X"
    assert data["to_move"] == "O"
    assert data["result"] == "draw"
    assert data["plies"] == board.empties == 6
    moves = data["moves"]
    assert isinstance(moves, dict)
    assert list(moves) == [str(c) for c in board.legal_moves()]
    for move in moves.values():
        assert set(move) == {"result", "plies"}
    assert moves["1"] == {"result": "draw", "plies": 6}
    assert moves["2"] == {"result": "loss", "plies": 4}
    assert data["best"] == [1, 3, 5, 7]
    assert json.loads(json.dumps(data)) == data


def test_draw_plies_are_the_empty_cells() -> None:
    for board in playable_positions():
        analysis = engine.analyse(board)
        if analysis.value.result is engine.Result.DRAW:
            assert analysis.value.plies == board.empties
        for move in analysis.moves.values():
            if move.result is engine.Result.DRAW:
                assert move.plies == board.empties


def test_best_moves_all_share_the_top_value() -> None:
    for board in playable_positions():
        analysis = engine.analyse(board)
        top = {analysis.moves[cell] for cell in analysis.best}
        assert top == {analysis.value}, board
        assert all(
            analysis.moves[c] < analysis.value for c in analysis.moves if c not in analysis.best
        )


@pytest.mark.parametrize(
    ("text", "result"), [("XXXOO....", "loss"), ("XOXXOOOXX", "draw"), ("OOOXX.X..", "loss")]
)
def test_terminal_board_has_no_moves(text: str, result: str) -> None:
    board = Board.parse(text)
    data = engine.analyse(board).to_dict()
    assert data["moves"] == {}
    assert data["best"] == []
    assert data["result"] == result
    assert data["plies"] == 0
    assert engine.best_moves(board) == ()
    for move in (engine.perfect_move, strategies.heuristic_move, strategies.random_move):
        with pytest.raises(RuleError) as caught:
            move(board, random.Random(0))
        assert caught.value.code == "game_over"


# --- counting the game -----------------------------------------------------------------


def test_tree_stats_match_published_counts() -> None:
    stats = tree.tree_stats()
    assert stats == tree.TreeStats(
        positions=5_478,
        positions_symmetric=765,
        terminal=958,
        terminal_symmetric=138,
        games=255_168,
        x_wins=131_184,
        o_wins=77_904,
        draws=46_080,
        tree_nodes=549_946,
    )
    assert stats.x_wins + stats.o_wins + stats.draws == stats.games


def test_symmetries_are_the_eight_of_the_square() -> None:
    assert len(tree.SYMMETRIES) == 8
    assert set(tree.SYMMETRIES) == symmetries()
    for perm in tree.SYMMETRIES:
        assert {tuple(sorted(perm.index(c) for c in line)) for line in LINES} == set(LINES)


def test_canonical_is_invariant_under_all_symmetries() -> None:
    table = engine.solved()
    perms = symmetries()
    for board in all_positions():
        canon = tree.canonical(board.cells)
        assert canon in {transform(board.cells, p) for p in perms}
        for perm in perms:
            image = transform(board.cells, perm)
            assert tree.canonical(image) == canon
            assert table[image] == table[board.cells]


def test_canonical_distinguishes_different_positions() -> None:
    assert tree.canonical("X........") == tree.canonical("........X")
    assert tree.canonical("X........") != tree.canonical("....X....")
    assert tree.canonical("X........") != tree.canonical(".X.......")


# --- strategies and the heuristic ------------------------------------------------------


def test_strategy_names() -> None:
    assert strategies.STRATEGY_NAMES == ("random", "heuristic", "lookahead", "perfect")
    assert strategies.strategy("perfect") is strategies.perfect_move
    assert strategies.strategy("random") is strategies.random_move
    assert strategies.strategy("heuristic") is strategies.heuristic_move


@pytest.mark.parametrize("name", ["random", "heuristic", "lookahead", "perfect"])
def test_every_strategy_plays_legal_moves(name: str) -> None:
    play = strategies.strategy(name)
    rng = random.Random(3)
    for board in playable_positions()[::50]:
        assert play(board, rng) in board.legal_moves()


def test_lookahead_strategy_uses_its_depth() -> None:
    board = Board.parse("OXO.X.X..")
    shallow = strategies.strategy("lookahead", depth=1)
    deep = strategies.strategy("lookahead", depth=2)
    assert {shallow(board, random.Random(seed)) for seed in range(30)} == {5, 7}
    assert {deep(board, random.Random(seed)) for seed in range(30)} == {7}


@pytest.mark.parametrize("name", ["minimax", "", "Perfect", "best"])
def test_bad_strategy(name: str) -> None:
    with pytest.raises(RuleError) as caught:
        strategies.strategy(name)
    assert caught.value.code == "bad_strategy"
    for known in strategies.STRATEGY_NAMES:
        assert known in caught.value.message


def test_random_move_covers_all_legal_moves() -> None:
    board = Board.parse("X...O....")
    rng = random.Random(1)
    assert {strategies.random_move(board, rng) for _ in range(200)} == set(board.legal_moves())


def test_win_probability_sanity() -> None:
    x = strategies.win_probability(Board(), "X")
    assert 0.5 < x < 1
    assert strategies.win_probability(Board(), "O") == pytest.approx(1 - x)
    assert strategies.win_probability(Board.parse("XXXOO...."), "X") == 1.0
    assert strategies.win_probability(Board.parse("XXXOO...."), "O") == 0.0
    assert strategies.win_probability(Board.parse("OOOXX.X.."), "X") == 0.0
    assert strategies.win_probability(Board.parse("XOXXOOOXX"), "X") == 0.5
    # One move from a win: X wins half the time (takes it now) or better.
    assert strategies.win_probability(Board.parse("XX.OO...."), "X") > 0.5


def test_win_probability_stays_in_range() -> None:
    for board in all_positions():
        assert 0.0 <= strategies.win_probability(board, "X") <= 1.0
        total = strategies.win_probability(board, "X") + strategies.win_probability(board, "O")
        assert total == pytest.approx(1.0)
