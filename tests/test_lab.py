"""The search made visible (webapp/game/lab.py), held to the definitions in docs/lab.md."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
from support.testing import TREE_STATS

from webapp.game import engine, lab
from webapp.game.board import EMPTY, Board, winner_of
from webapp.game.lab import INF, Cut, Enter, Leave, Options, Update
from webapp.game.tree import canonical

# X to move, three empty cells: a3 (6) wins at once, b3 (7) wins only after O answers,
# c3 (8) wins at once. Hand-checked: plain minimax visits 8 nodes, alpha-beta 6.
NEAR_END = "XOXOXO..."
NEAR_END_ALPHABETA = [
    Enter(0, None, None, "XOXOXO...", 0, -INF, INF),
    Enter(1, 0, 6, "XOXOXOX..", 1, -INF, INF),
    Leave(1, 9, "exact", "end"),
    Update(0, 6, 9, 9, INF),
    Enter(2, 0, 7, "XOXOXO.X.", 1, 9, INF),
    Enter(3, 2, 6, "XOXOXOOX.", 2, 9, INF),
    Enter(4, 3, 8, "XOXOXOOXX", 3, 9, INF),
    Leave(4, 7, "exact", "end"),
    Update(3, 8, 7, 9, INF),
    Leave(3, 9, "at most", "searched"),
    Update(2, 6, 9, 9, 9),
    Cut(2, "XOXOXO.X.", 1, 6, (8,), 9, 9, False),
    Leave(2, 9, "at most", "searched"),
    Update(0, 7, 9, 9, INF),
    Enter(5, 0, 8, "XOXOXO..X", 1, 9, INF),
    Leave(5, 9, "exact", "end"),
    Update(0, 8, 9, 9, INF),
    Leave(0, 9, "exact", "searched"),
]

# 20 positions of every stage, and the empty board.
POSITIONS = [
    ".........",
    "X........",
    "....X....",
    ".X.......",
    "X...O....",
    "X.......O",
    "XO.......",
    "X...O...X",
    "XX.OO....",
    ".X...XOOX",
    "OXO.X.X..",
    "X.O.X....",
    "XOX.O....",
    "..X.O.X..",
    "XO..X....",
    "X.X.O.O..",
    "XOXOXO...",
    "XOXXOO...",
    "OX.XO.X..",
    "XOXOOX...",
    "XXOOXX.O.",
]


def test_near_end_alphabeta_trace_is_exactly_the_hand_checked_one() -> None:
    events = list(lab.trace(Board.parse(NEAR_END), Options("depth", prune=True)))
    assert events == NEAR_END_ALPHABETA
    assert lab.search(Board.parse(NEAR_END), Options("depth", prune=True)).counts == lab.Counts(
        6, 0, 1
    )


def test_near_end_plain_minimax_visits_every_node_in_cell_order() -> None:
    events = list(lab.trace(Board.parse(NEAR_END), Options("depth")))
    entered = [(e.node, e.cell, e.depth) for e in events if isinstance(e, Enter)]
    assert entered == [
        (0, None, 0),
        (1, 6, 1),
        (2, 7, 1),
        (3, 6, 2),
        (4, 8, 3),
        (5, 8, 2),
        (6, 6, 3),
        (7, 8, 1),
    ]
    values = {e.node: e.value for e in events if isinstance(e, Leave)}
    assert values == {1: 9, 4: 7, 3: 7, 6: 7, 5: 7, 2: 7, 7: 9, 0: 9}
    assert not any(isinstance(e, Cut) for e in events)
    result = lab.search(Board.parse(NEAR_END))
    assert [(m.cell, m.value, m.bound) for m in result.moves] == [
        (6, 9, "exact"),
        (7, 7, "exact"),
        (8, 9, "exact"),
    ]
    assert result.best == 6  # a tie with c3 goes to the lowest cell


@pytest.mark.parametrize(
    ("scoring", "values"),
    [
        ("result", {6: 1, 7: 1, 8: 1}),
        ("depth", {6: 9, 7: 7, 8: 9}),
        ("empties", {6: 3, 7: 1, 8: 3}),
        ("share", {6: 1.0, 7: 1.0, 8: 1.0}),
    ],
)
def test_each_scoring_on_the_near_end_position(
    scoring: lab.Scoring, values: dict[int, float]
) -> None:
    result = lab.search(Board.parse(NEAR_END), Options(scoring))
    assert {m.cell: m.value for m in result.moves} == values
    assert result.value == max(values.values())


def test_share_at_a_depth_limit_scores_the_frontier_by_random_play() -> None:
    board = Board()
    result = lab.search(board, Options("share", depth=1))
    assert result.counts.nodes == 10
    # The frontier is X's expected result under random play: 1 win, 1/2 draw, 0 loss.
    from webapp.game.strategies import win_probability

    for move in result.moves:
        assert move.value == pytest.approx(win_probability(Board(move.cells), "X"))
    assert result.best == 4  # the centre has the best share
    leaves = [e for e in lab.trace(board, Options("share", depth=1)) if isinstance(e, Leave)]
    assert [e.how for e in leaves] == ["frontier"] * 9 + ["searched"]


def test_exact_scorings_score_the_frontier_as_a_draw() -> None:
    result = lab.search(Board(), Options("depth", depth=2))
    assert result.counts.nodes == 1 + 9 + 72
    assert {m.value for m in result.moves} == {0}


def test_table_hit_is_a_visit_that_is_not_expanded() -> None:
    board = Board()
    result = lab.search(board, Options("depth", table=True))
    # Each position is expanded once; every later visit of it is a hit.
    assert result.counts.nodes == TREE_STATS["positions"] + result.counts.hits
    assert result.counts == lab.Counts(16168, 10690, 0)
    hits = [e for e in lab.page(board, Options("depth", table=True), 0, 4000) if e_hit(e)]
    assert hits


def e_hit(event: lab.Event) -> bool:
    return isinstance(event, Leave) and event.how == "table"


def test_symmetry_merges_equal_children() -> None:
    result = lab.search(Board(), Options("depth", symmetry=True))
    searched = [m.cell for m in result.moves if m.twin_of is None]
    assert searched == [0, 1, 4]  # corner, edge, centre: the lowest cell of each class
    assert {m.cell: m.twin_of for m in result.moves if m.twin_of is not None} == {
        2: 0,
        6: 0,
        8: 0,
        3: 1,
        5: 1,
        7: 1,
    }
    assert all(m.value == 0 for m in result.moves)
    assert result.counts.nodes == independent_symmetric_count(EMPTY * 9)


def test_empty_board_counts_of_every_kind() -> None:
    measured = {o.kind: lab.search(Board(), o).counts.nodes for o in lab.kinds("depth")}
    assert measured == {
        "minimax": 549_946,
        "alphabeta": 20_866,
        "minimax+symmetry": 58_524,
        "alphabeta+symmetry": 3_715,
        "minimax+table": 16_168,
        "alphabeta+table": 14_072,
        "minimax+table+symmetry": 8_307,
        "alphabeta+table+symmetry": 2_848,
    }
    assert measured["minimax"] == TREE_STATS["tree_nodes"]


# --- independent counts -------------------------------------------------------------------


def independent_tree_size(cells: str) -> int:
    """Nodes of the full game tree below and including ``cells``."""
    if winner_of(cells) or EMPTY not in cells:
        return 1
    return 1 + sum(independent_tree_size(child) for _, child in engine.successors(cells))


def independent_symmetric_count(cells: str) -> int:
    if winner_of(cells) or EMPTY not in cells:
        return 1
    kept = {canonical(child): child for _, child in reversed(list(engine.successors(cells)))}
    return 1 + sum(independent_symmetric_count(child) for child in kept.values())


def textbook_alphabeta(cells: str, me: str, depth: int, alpha: float, beta: float) -> tuple:
    """Fail-hard alpha-beta in its textbook form, depth-aware scores: (value, nodes)."""
    won = winner_of(cells)
    if won:
        return (10 - depth if won[0] == me else depth - 10), 1
    if EMPTY not in cells:
        return 0, 1
    nodes = 1
    maximiser = Board(cells).to_move == me
    for _, child in engine.successors(cells):
        score, below = textbook_alphabeta(child, me, depth + 1, alpha, beta)
        nodes += below
        if maximiser:
            if score >= beta:
                return beta, nodes
            alpha = max(alpha, score)
        else:
            if score <= alpha:
                return alpha, nodes
            beta = min(beta, score)
    return (alpha if maximiser else beta), nodes


@pytest.mark.parametrize("text", POSITIONS)
def test_counts_match_an_independent_count(text: str) -> None:
    board = Board.parse(text)
    plain = lab.search(board, Options("depth"))
    if text != EMPTY * 9:  # the empty board's tree is counted in the test above
        assert plain.counts.nodes == independent_tree_size(board.cells)
    pruned = lab.search(board, Options("depth", prune=True))
    score, nodes = textbook_alphabeta(board.cells, board.to_move, 0, -math.inf, math.inf)
    assert (pruned.value, pruned.counts.nodes) == (score, nodes)
    assert pruned.value == plain.value


# --- agreement with the engine on every position -----------------------------------------


@pytest.mark.parametrize("scoring", lab.EXACT_SCORINGS)
def test_values_agree_with_the_engine_on_every_position(scoring: lab.Scoring) -> None:
    checked = 0
    for cells in engine.solved():
        board = Board(cells)
        analysis = engine.analyse(board)
        want = {c: (v.result.value, v.plies) for c, v in analysis.moves.items()}
        true: dict[int, float] = {}
        for options in (Options(scoring, table=True), Options(scoring, prune=True)):
            result = lab.search(board, options)
            true = true or {m.cell: m.value for m in result.moves}  # the table's are exact
            assert same(lab.engine_value(result.value, board, scoring), lab.engine_says(board))
            for move in result.moves:
                said = lab.engine_value(move.value, board, scoring)
                if move.bound == "exact":
                    assert same(said, want[move.cell]), (cells, move)
                    checked += 1
                else:  # a bound the true value keeps
                    exact = true[move.cell]
                    assert exact <= move.value if move.bound == "at most" else exact >= move.value
    assert checked > 10_000


def same(said: tuple[str, int | None], want: tuple[str, int]) -> bool:
    return said[0] == want[0] and (said[1] is None or said[1] == want[1])


def test_share_without_a_limit_is_the_result_scoring_halved() -> None:
    for cells in itertools.islice(sorted(engine.solved()), 0, None, 7):
        board = Board(cells)
        share = lab.search(board, Options("share", table=True))
        result = lab.search(board, Options("result", table=True))
        assert share.value == (1 + result.value) / 2


# --- children, pages, options ---------------------------------------------------------------


def test_children_of_a_node_have_the_values_the_search_gives_them() -> None:
    board = Board()
    root = lab.children(board, (), Options("depth"))
    assert [c.cell for c in root] == list(range(9))
    assert {c.value for c in root} == {0}
    # After X a1, O b1, X b2 wins in 5 more plies: 7 from the search's root, worth 10 - 7.
    below = lab.children(board, (0, 1), Options("depth"))
    plies = engine.analyse(Board.parse("XO.......")).moves[4].plies
    assert {c.cell: c.value for c in below}[4] == 10 - (2 + plies) == 3


def test_children_of_a_finished_or_illegal_line() -> None:
    assert lab.children(Board.parse("XXXOO...."), (), Options()) == []
    with pytest.raises(lab.RuleError) as caught:
        lab.children(Board(), (0, 0), Options())
    assert caught.value.code == "cell_taken"


def test_a_page_of_the_empty_boards_trace_stops_early() -> None:
    board = Board()
    first = lab.page(board, Options("depth"), 0, 50)
    later = lab.page(board, Options("depth"), 25, 50)
    assert len(first) == len(later) == 50
    assert first[25:] == later[:25]
    assert isinstance(first[0], Enter) and first[0].node == 0


def test_lazy_trace_equals_the_pages() -> None:
    board = Board.parse("X...O....")
    events = list(lab.trace(board, Options("depth", prune=True)))
    assert events[:300] == lab.page(board, Options("depth", prune=True), 0, 300)
    nodes = [e for e in events if isinstance(e, Enter)]
    assert len(nodes) == lab.search(board, Options("depth", prune=True)).counts.nodes


def test_cut_reason_in_words() -> None:
    (cut,) = [e for e in NEAR_END_ALPHABETA if isinstance(e, Cut)]
    reason = lab.cut_reason(cut)
    assert "O can already hold this to 9 with a3" in reason
    assert reason.endswith("so c3 needs no search")


@pytest.mark.parametrize(
    ("skipped", "ending"),
    [
        ((6, 7), "so a3, b3 need no search"),
        ((), "so the node stops here, with no moves left to skip"),
    ],
)
def test_cut_reason_says_what_it_spares(skipped: tuple[int, ...], ending: str) -> None:
    (cut,) = [e for e in NEAR_END_ALPHABETA if isinstance(e, Cut)]
    assert lab.cut_reason(dataclasses.replace(cut, skipped=skipped)).endswith(ending)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [({"scoring": "fast"}, "bad_scoring"), ({"depth": 0}, "bad_depth")],
)
def test_bad_options_are_refused(kwargs: dict, code: str) -> None:
    with pytest.raises(lab.LabError) as caught:
        Options(**kwargs)
    assert caught.value.code == code


def test_measure_uses_the_clock_it_is_given() -> None:
    ticks = iter([10.0, 10.25])
    measured = lab.measure(Board.parse(NEAR_END), Options(), lambda: next(ticks))
    assert measured.seconds == 0.25
    assert measured.counts.nodes == 8


def _open_at(whole: list[lab.Event], step: int) -> tuple[Enter, ...]:
    """The nodes open at ``step`` of a whole trace (its own node included), by replay."""
    opened: list[Enter] = []
    for event in whole[:step]:
        if isinstance(event, Enter):
            opened.append(event)
        elif isinstance(event, Leave):
            opened.pop()
    if isinstance(whole[step], Enter):
        opened.append(whole[step])
    return tuple(opened)


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (".........", Options("depth", prune=True, symmetry=True)),
        ("X........", Options("result", prune=True)),
        ("X...O....", Options("depth")),
        ("X...O....", Options("empties", prune=True, table=True)),
        ("XO..X....", Options("share", prune=True, depth=3)),
        ("XO.OX....", Options("depth", prune=True, table=True, symmetry=True)),
    ],
)
def test_a_paged_trace_is_the_whole_trace(text: str, options: Options) -> None:
    board = Board.parse(text)
    whole = list(lab.trace(board, options))
    counts = lab.search(board, options).counts
    assert len(whole) == 3 * counts.nodes - 1 + counts.cuts
    resumed = lab.Trace(board, options)
    paged: list[lab.Event] = []
    for size in itertools.cycle((1, 7, 200, 33)):
        step = resumed.at
        opened, events = resumed.take(size)
        if not events:
            break
        assert opened == _open_at(whole, step)
        paged += events
    assert paged == whole
    for start in (len(whole) - 1, 0, len(whole) // 2, 5):
        opened, events = lab.Trace(board, options, start).take(50)
        assert events == whole[start : start + 50] and opened == _open_at(whole, start)


def test_a_trace_skips_forward_and_ends_where_the_search_does() -> None:
    board, options = Board(), Options("depth", prune=True)
    trace = lab.Trace(board, options)
    trace.take(10)
    trace.skip(70_289 - 10 - 2)
    opened, events = trace.take(200)
    assert [type(e) for e in events] == [Update, Leave] and opened[0].node == 0
    assert events[-1] == Leave(0, 0, "exact", "searched") and trace.at == 70_289
    assert trace.take(5) == ((), [])
    with pytest.raises(lab.LabError) as caught:
        lab.Trace(board, options, -1)
    assert caught.value.code == "bad_step"
