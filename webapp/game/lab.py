"""The search made visible: minimax on any position as a trace of what it does.

One search, with four choices (docs/lab.md defines each and every count):

- the scoring: ``result`` (win 1, draw 0, loss -1), ``depth`` (10 minus the plies of a
  win), ``empties`` (the empty squares + 1 of a win) or ``share`` (the win/draw/loss
  share of the leaves below, at a depth limit);
- plain minimax or fail-hard alpha-beta (``prune``);
- a transposition table (``table``);
- the board's 8 symmetries merging equal children (``symmetry``).

Values are for the side to move at the search's root (the maximiser). The search is a
generator: traced, it yields each event in order and can stop after any of them and
resume (``Trace``); counting builds no events and stores none. No clock: the caller
passes one to ``measure``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Literal

from .board import CELLS, EMPTY, Board, Cell, Mark, RuleError, cell_name, other, winner_of
from .engine import Value, value
from .strategies import x_expectation
from .tree import canonical

Scoring = Literal["result", "depth", "empties", "share"]
SCORINGS: tuple[Scoring, ...] = ("result", "depth", "empties", "share")
EXACT_SCORINGS: tuple[Scoring, ...] = ("result", "depth", "empties")
Bound = Literal["exact", "at least", "at most"]
How = Literal["end", "frontier", "table", "searched"]
Score = float
INF = math.inf
PAUSE_EVERY = 256  # nodes between two calls of a search's ``pause``


class LabError(RuleError):
    """A search that cannot be run as asked; ``code`` is stable."""


@dataclass(frozen=True)
class Options:
    """The choices of one search."""

    scoring: Scoring = "depth"
    prune: bool = False
    table: bool = False
    symmetry: bool = False
    depth: int | None = None

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise LabError("bad_scoring", f"scoring is one of {', '.join(SCORINGS)}")
        if self.depth is not None and (isinstance(self.depth, bool) or self.depth < 1):
            raise LabError("bad_depth", f"a depth limit is at least 1 ply, got {self.depth!r}")

    @property
    def kind(self) -> str:
        """The search's name: ``minimax`` or ``alphabeta``, ``+table``, ``+symmetry``."""
        name = "alphabeta" if self.prune else "minimax"
        return name + ("+table" if self.table else "") + ("+symmetry" if self.symmetry else "")


# --- events -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Enter:
    """A node is visited: its number in visit order, its parent's, the move that led
    here (None at the root), its position, depth and the window it was given."""

    node: int
    parent: int | None
    cell: Cell | None
    cells: str
    depth: int
    alpha: Score
    beta: Score


@dataclass(frozen=True)
class Leave:
    """A node's value is known: how it was found, and whether it is exact or a bound."""

    node: int
    value: Score
    bound: Bound
    how: How


@dataclass(frozen=True)
class Update:
    """A node took a child's value: its best so far and its window now."""

    node: int
    cell: Cell
    best: Score
    alpha: Score
    beta: Score


@dataclass(frozen=True)
class Cut:
    """A node stops before its remaining children, because alpha >= beta."""

    node: int
    cells: str
    depth: int
    after: Cell
    skipped: tuple[Cell, ...]
    alpha: Score
    beta: Score
    maximiser: bool


Event = Enter | Leave | Update | Cut


@dataclass(frozen=True)
class Counts:
    """What one search did: nodes visited (root included), table hits, cuts."""

    nodes: int
    hits: int
    cuts: int


@dataclass(frozen=True)
class Child:
    """One legal move of a node: its position, value and bound; ``twin_of`` names the
    move whose search it shares when symmetry merged them."""

    cell: Cell
    cells: str
    value: Score
    bound: Bound
    twin_of: Cell | None = None


@dataclass(frozen=True)
class Result:
    """A whole search from a root: its value, each move's, the pick and the counts."""

    board: Board
    options: Options
    value: Score
    moves: tuple[Child, ...]
    best: Cell | None
    counts: Counts


# --- the search ----------------------------------------------------------------------------

Steps = Generator[Event, None, tuple[Score, Bound]]
Opened = tuple[int, int | None, Cell | None, str, int, Score, Score]


@dataclass
class _Search:
    """One search, as generators: ``visit`` yields a node's events (when ``tracing``)
    and returns its value and bound, so a trace can stop after any event and resume.
    The first ``skip`` events are passed over without being built."""

    options: Options
    me: Mark
    pause: Callable[[], object] | None = None
    tracing: bool = False
    skip: int = 0
    nodes: int = 0
    hits: int = 0
    cuts: int = 0
    table: dict[str, Score] = field(default_factory=dict)
    root_children: list[Child] = field(default_factory=list)
    opened: list[Opened] = field(default_factory=list)  # the nodes entered, not yet left

    def due(self) -> bool:
        """Whether the next event is yielded (else it is one of those skipped)."""
        if self.skip:
            self.skip -= 1
            return False
        return True

    def score_end(self, cells: str, depth: int) -> tuple[Score, How] | None:
        """The value of a finished position, or of one at the depth limit; else None."""
        won = winner_of(cells)
        scoring = self.options.scoring
        if won or EMPTY not in cells:
            sign = 0 if not won else (1 if won[0] == self.me else -1)
            if scoring == "share":
                return (1 + sign) / 2, "end"
            if scoring == "depth":
                return sign * (10 - depth), "end"
            if scoring == "empties":
                return sign * (cells.count(EMPTY) + 1), "end"
            return sign, "end"
        if self.options.depth is not None and depth >= self.options.depth:
            if scoring == "share":
                expected = x_expectation(cells)
                return (expected if self.me == "X" else 1.0 - expected), "frontier"
            return 0, "frontier"
        return None

    def moves(self, cells: str) -> list[tuple[Cell, str, tuple[Cell, ...]]]:
        """Children in cell order; with symmetry, one per class, with the merged cells."""
        mark = "X" if cells.count("X") == cells.count("O") else "O"
        children = [(i, cells[:i] + mark + cells[i + 1 :]) for i in CELLS if cells[i] == EMPTY]
        if not self.options.symmetry:
            return [(cell, child, ()) for cell, child in children]
        classes: dict[str, list[tuple[Cell, str]]] = {}
        for cell, child in children:
            classes.setdefault(canonical(child), []).append((cell, child))
        return [(c[0][0], c[0][1], tuple(cell for cell, _ in c[1:])) for c in classes.values()]

    def visit(
        self,
        cells: str,
        depth: int,
        alpha: Score,
        beta: Score,
        parent: int | None,
        cell: Cell | None,
    ) -> Steps:
        """Visit one node: count it, yield its events, and return its value and bound."""
        node = self.nodes
        self.nodes += 1
        if self.pause is not None and not node % PAUSE_EVERY:
            self.pause()
        tracing = self.tracing
        if tracing:
            self.opened.append((node, parent, cell, cells, depth, alpha, beta))
            if self.due():
                yield Enter(node, parent, cell, cells, depth, alpha, beta)
        how: How
        bound: Bound
        if self.options.table and cells in self.table:
            self.hits += 1
            score, bound, how = self.table[cells], "exact", "table"
        elif (end := self.score_end(cells, depth)) is not None:
            score, bound, how = end[0], "exact", end[1]
        else:
            score, bound = yield from self.expand(node, cells, depth, alpha, beta)
            how = "searched"
        if self.options.table and bound == "exact" and how != "table":
            self.table[cells] = score
        if tracing:
            if self.due():
                yield Leave(node, score, bound, how)
            self.opened.pop()
        return score, bound

    def expand(self, node: int, cells: str, depth: int, alpha: Score, beta: Score) -> Steps:
        """Search a node's children; fail-hard when pruning (docs/lab.md)."""
        maximiser = Board(cells).to_move == self.me
        prune, tracing = self.options.prune, self.tracing
        low, high = alpha, beta
        best = -INF if maximiser else INF
        moves = self.moves(cells)
        for index, (cell, child, twins) in enumerate(moves):
            score, bound = yield from self.visit(child, depth + 1, low, high, node, cell)
            if node == 0:
                self.root_children.append(Child(cell, child, score, bound))
                self.root_children.extend(Child(t, child, score, bound, cell) for t in twins)
            best = max(best, score) if maximiser else min(best, score)
            if prune:
                low, high = (max(low, score), high) if maximiser else (low, min(high, score))
            if tracing and self.due():
                yield Update(node, cell, best, low, high)
            if prune and low >= high:
                self.cuts += 1
                rest = tuple(sorted(c for m in moves[index + 1 :] for c in (m[0], *m[2])))
                if tracing and self.due():
                    yield Cut(node, cells, depth, cell, rest, low, high, maximiser)
                return (high, "at least") if maximiser else (low, "at most")
        if not prune:
            return best, "exact"
        if maximiser:
            return low, ("at most" if low <= alpha and alpha > -INF else "exact")
        return high, ("at least" if high >= beta and beta < INF else "exact")

    def root(self, cells: str) -> Steps:
        """The whole search from the root, with the window (-inf, +inf)."""
        return self.visit(cells, 0, -INF, INF, None, None)


def _check(board: Board, path: tuple[Cell, ...]) -> Board:
    node = board
    for cell in path:
        node = node.apply_move(cell)
    return node


def search(
    board: Board, options: Options = Options(), *, pause: Callable[[], object] | None = None
) -> Result:
    """Run one search from ``board`` (calling ``pause`` every few hundred nodes, so that
    a long search can let others run)."""
    run = _Search(options, board.to_move, pause)
    score, _ = _finish(run.root(board.cells))
    moves = tuple(sorted(run.root_children, key=lambda child: child.cell))
    best = next((child.cell for child in moves if child.value == score), None)
    return Result(board, options, score, moves, best, Counts(run.nodes, run.hits, run.cuts))


def _finish(steps: Steps) -> tuple[Score, Bound]:
    """Drive a search that yields nothing to its end, and return its value and bound."""
    try:
        next(steps)
    except StopIteration as done:
        found: tuple[Score, Bound] = done.value
        return found
    raise AssertionError("a search that is not traced yields no events")


class Trace:
    """A search's trace as a resumable iterator: events from ``start`` on, each built
    only when reached (the ones before ``start`` are passed over unbuilt, at about the
    cost of counting them). ``at`` is the next event's place in the trace; ``opened``
    the nodes entered and not yet left, so any event can be read in its context."""

    def __init__(
        self,
        board: Board,
        options: Options = Options(),
        start: int = 0,
        *,
        pause: Callable[[], object] | None = None,
    ) -> None:
        if start < 0:
            raise LabError("bad_step", "a trace starts at step 0 or later")
        self.board, self.options, self.at = board, options, start
        self.run = _Search(options, board.to_move, pause, tracing=True, skip=start)
        self.steps = self.run.root(board.cells)

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        event = next(self.steps)
        self.at += 1
        return event

    def opened(self) -> tuple[Enter, ...]:
        """The Enter events of the nodes open at the last event taken (or skipped)."""
        return tuple(Enter(*row) for row in self.run.opened)

    def skip(self, count: int) -> None:
        """Pass over the next ``count`` events unbuilt (as they are reached)."""
        self.run.skip += count
        self.at += count

    def take(self, size: int) -> tuple[tuple[Enter, ...], list[Event]]:
        """The next ``size`` events (fewer at the trace's end), and the nodes open at the
        first of them (its own included), whose Enter events may be on earlier pages."""
        first = next(self, None)
        if first is None:
            return (), []
        return self.opened(), [first, *itertools.islice(self, size - 1)]


def trace(board: Board, options: Options = Options()) -> Iterator[Event]:
    """Every event of a search, produced lazily, never held whole."""
    return Trace(board, options)


def page(
    board: Board,
    options: Options,
    start: int,
    size: int,
    *,
    pause: Callable[[], object] | None = None,
) -> list[Event]:
    """Events ``start`` .. ``start + size - 1`` of a search (fewer at its end); the search
    stops as soon as the page is full, so a page costs its end's place in the trace."""
    if start < 0 or size < 1:
        raise LabError("bad_page", "a page starts at 0 or later and holds at least 1 event")
    return Trace(board, options, start, pause=pause).take(size)[1]


def children(
    board: Board,
    path: tuple[Cell, ...],
    options: Options = Options(),
    *,
    pause: Callable[[], object] | None = None,
) -> list[Child]:
    """The children of the node reached from ``board`` by ``path``, with their exact
    values as the search from ``board`` sees them (depth counted from ``board``), by
    plain minimax with a table: at most a few thousand nodes."""
    node = _check(board, path)
    exact = Options(options.scoring, table=True, depth=options.depth)
    run = _Search(exact, board.to_move, pause=pause)
    found = []
    for cell in node.legal_moves():
        child = node.apply_move(cell).cells
        score, bound = _finish(run.visit(child, len(path) + 1, -INF, INF, None, cell))
        found.append(Child(cell, child, score, bound))
    return found


# --- counts, timed ------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """One kind of search from one position: its counts and the seconds it took."""

    options: Options
    counts: Counts
    seconds: float


def kinds(scoring: Scoring = "depth", depth: int | None = None) -> list[Options]:
    """The 8 kinds of search under one scoring: plain or pruned, table, symmetry."""
    flags = itertools.product((False, True), repeat=3)
    return [Options(scoring, p, t, s, depth) for t, s, p in flags]


def measure(
    board: Board,
    options: Options,
    clock: Callable[[], float],
    *,
    pause: Callable[[], object] | None = None,
) -> Measured:
    """Count one search without tracing it, timed by ``clock`` (seconds), calling ``pause``
    as ``search`` does."""
    began = clock()
    counts = search(board, options, pause=pause).counts
    return Measured(options, counts, clock() - began)


# --- agreement with the engine, and reasons in words --------------------------------------


def engine_value(score: Score, board: Board, scoring: Scoring) -> tuple[str, int | None]:
    """An exact scoring's value as the engine states it: the result, and the plies to
    the end for the depth-aware scorings (None for ``result``)."""
    if scoring not in EXACT_SCORINGS:
        raise LabError("bad_scoring", "only result, depth and empties are exact scorings")
    result = "win" if score > 0 else "loss" if score < 0 else "draw"
    if scoring == "result":
        return result, None
    if score == 0:
        return result, board.empties
    top = 10 if scoring == "depth" else board.empties + 1
    return result, int(top - abs(score))


def engine_says(board: Board) -> tuple[str, int]:
    """The engine's value of ``board``: result and plies, for comparison."""
    found: Value = value(board)
    return found.result.value, found.plies


def cut_reason(cut: Cut, scoring: Scoring = "depth") -> str:
    """Why a branch was cut, in words."""
    mover = Board(cut.cells).to_move
    waiting = other(mover)
    rest = _skipped_words(cut.skipped)
    if cut.maximiser:
        return (
            f"{mover} can already reach {_num(cut.alpha)} here with {cell_name(cut.after)}, but"
            f" {waiting} has {_num(cut.beta)} elsewhere and will never come here:"
            f" {_num(cut.beta)} <= alpha {_num(cut.alpha)}, so {rest}"
        )
    return (
        f"{mover} can already hold this to {_num(cut.beta)} with {cell_name(cut.after)}, but"
        f" {waiting} has {_num(cut.alpha)} elsewhere and will never come here:"
        f" beta {_num(cut.beta)} <= {_num(cut.alpha)}, so {rest}"
    )


def _skipped_words(skipped: tuple[Cell, ...]) -> str:
    """What a cut spares, in words: "c3 needs no search", "a3, b3 need no search"."""
    if not skipped:
        return "the node stops here, with no moves left to skip"
    names = ", ".join(cell_name(c) for c in skipped)
    return f"{names} {'needs' if len(skipped) == 1 else 'need'} no search"


def _num(score: Score) -> str:
    if score in (INF, -INF):
        return "+inf" if score > 0 else "-inf"
    return f"{score:g}"
