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
import random
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from .board import EMPTY, Board, Cell, RuleError
from .engine import Value, value
from .lab_rules import CLASSIC_GAME, Game, game_for
from .position import Position
from .search_rules import Child as RuleChild
from .search_rules import Expanded, State
from .solver import Solver
from .strategies import x_expectation

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


class TooLarge(LabError):
    """A search stopped at its cap of ``most`` nodes (``too_large``)."""

    def __init__(self, most: int) -> None:
        super().__init__("too_large", f"this search visits more than {most:,} positions")
        self.most = most


Root = Board | Position
"""A search's root: today's board, or a position of any variant."""


def game_of(root: Root) -> tuple[Game, str]:
    """The root's rules and its cells as the lab's one string (lab_rules.py)."""
    if isinstance(root, Board):
        return CLASSIC_GAME, root.cells
    game = game_for(root.variant)
    return game, game.flat(root)


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

    board: Root
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
    game: Game
    pause: Callable[[], object] | None = None
    tracing: bool = False
    skip: int = 0
    most: int | None = None  # the cap of nodes: past it, ``TooLarge``
    me: str = "X"  # the mark the root's side to move places
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
        ended = self.game.ending(cells)
        scoring = self.options.scoring
        if ended is not None:
            sign = ended if depth % 2 == 0 else -ended  # for the root's side to move
            if scoring == "share":
                return (1 + sign) / 2, "end"
            if scoring == "depth":
                return sign * (self.game.top - depth), "end"
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
        children = self.game.children(cells)
        if not self.options.symmetry:
            return [(cell, child, ()) for cell, child in children]
        classes: dict[str, list[tuple[Cell, str]]] = {}
        for cell, child in children:
            classes.setdefault(self.game.canonical(child), []).append((cell, child))
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
        if not node % PAUSE_EVERY:
            if self.most is not None and node >= self.most:
                raise TooLarge(self.most)
            if self.pause is not None:
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
        maximiser = depth % 2 == 0  # the root's side to move
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
        self.me = self.game.to_move(cells)
        return self.visit(cells, 0, -INF, INF, None, None)


def _check(board: Root, path: tuple[Cell, ...]) -> Root:
    node = board
    for cell in path:
        node = node.apply_move(cell)
    return node


def check(board: Root, options: Options) -> tuple[Game, str]:
    """The root's rules and cells, once the options suit its variant (the share of the
    leaves below a depth limit is scored by random play on today's board only)."""
    game, cells = game_of(board)
    if options.scoring == "share" and options.depth is not None and game != CLASSIC_GAME:
        raise LabError(
            "bad_scoring", "the share of the leaves at a depth limit is scored on classic only"
        )
    return game, cells


def search(
    board: Root,
    options: Options = Options(),
    *,
    pause: Callable[[], object] | None = None,
    most: int | None = None,
) -> Result:
    """Run one search from ``board`` (calling ``pause`` every few hundred nodes, so that
    a long search can let others run; past ``most`` nodes, if given, ``TooLarge``)."""
    game, cells = check(board, options)
    run = _Search(options, game, pause, most=most)
    score, _ = _finish(run.root(cells))
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
        board: Root,
        options: Options = Options(),
        start: int = 0,
        *,
        pause: Callable[[], object] | None = None,
    ) -> None:
        if start < 0:
            raise LabError("bad_step", "a trace starts at step 0 or later")
        self.board, self.options, self.at = board, options, start
        game, cells = check(board, options)
        self.run = _Search(options, game, pause, tracing=True, skip=start)
        self.steps = self.run.root(cells)

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


def trace(board: Root, options: Options = Options()) -> Iterator[Event]:
    """Every event of a search, produced lazily, never held whole."""
    return Trace(board, options)


def page(
    board: Root,
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
    board: Root,
    path: tuple[Cell, ...],
    options: Options = Options(),
    *,
    pause: Callable[[], object] | None = None,
    most: int | None = None,
) -> list[Child]:
    """The children of the node reached from ``board`` by ``path``, with their exact
    values as the search from ``board`` sees them (depth counted from ``board``), by
    plain minimax with a table: on 3x3 at most a few thousand nodes (``most``: a cap)."""
    game, top = check(board, options)
    _, cells = game_of(_check(board, path))
    exact = Options(options.scoring, table=True, depth=options.depth)
    run = _Search(exact, game, pause=pause, most=most, me=game.to_move(top))
    found = []
    for cell, child in game.children(cells) if game.ending(cells) is None else []:
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
    board: Root,
    options: Options,
    clock: Callable[[], float],
    *,
    pause: Callable[[], object] | None = None,
    most: int | None = None,
) -> Measured:
    """Count one search without tracing it, timed by ``clock`` (seconds), calling ``pause``
    as ``search`` does (past ``most`` nodes, if given, ``TooLarge``)."""
    began = clock()
    counts = search(board, options, pause=pause, most=most).counts
    return Measured(options, counts, clock() - began)


# --- a plain search's size, estimated -------------------------------------------------------

ESTIMATE_DESCENTS = 400  # random descents of one estimate


def estimate(
    board: Root,
    options: Options,
    *,
    descents: int = ESTIMATE_DESCENTS,
    seed: int = 0,
    pause: Callable[[], object] | None = None,
) -> int:
    """The nodes a search without pruning or a table would visit, estimated by random
    descents (Knuth's estimator; docs/lab.md): each descent from the root picks one
    child at random at every node down to the end (or the depth limit), and counts
    1 + b1 + b1*b2 + ..., where bi is the number of children met at its i-th node (one
    per class of symmetric children with symmetry); the estimate is the mean over
    ``descents`` descents, seeded by ``seed`` so that it is the same every time.
    Its expectation is the exact count."""
    if options.prune or options.table:
        raise LabError("bad_setting", "only a search with no pruning and no table is estimated")
    game, cells = check(board, options)
    run = _Search(options, game)
    rng = random.Random(seed)
    total = 0
    for descent in range(descents):
        if pause is not None and not descent % 16:
            pause()
        total += _descend(run, cells, rng)
    return round(total / descents)


def _descend(run: _Search, cells: str, rng: random.Random) -> int:
    """One random descent's count (see ``estimate``)."""
    count = width = 1
    for depth in range(run.game.variant.cells + 1):
        if run.score_end(cells, depth) is not None:
            break
        moves = run.moves(cells)
        width *= len(moves)
        count += width
        cells = rng.choice(moves)[1]
    return count


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


def cut_reason(cut: Cut, scoring: Scoring = "depth", game: Game = CLASSIC_GAME) -> str:
    """Why a branch was cut, in words (in Notakto, where both place X, the sides are
    named as the side to move and the other side)."""
    mover, waiting = game.to_move(cut.cells), "O" if game.to_move(cut.cells) == "X" else "X"
    if game.variant.notakto:
        mover, waiting = "The side to move", "the other side"
    rest = _skipped_words(cut.skipped, game)
    after = game.cell_name(cut.after)
    if cut.maximiser:
        return (
            f"{mover} can already reach {_num(cut.alpha)} here with {after}, but"
            f" {waiting} has {_num(cut.beta)} elsewhere and will never come here:"
            f" {_num(cut.beta)} <= alpha {_num(cut.alpha)}, so {rest}"
        )
    return (
        f"{mover} can already hold this to {_num(cut.beta)} with {after}, but"
        f" {waiting} has {_num(cut.alpha)} elsewhere and will never come here:"
        f" beta {_num(cut.beta)} <= {_num(cut.alpha)}, so {rest}"
    )


def _skipped_words(skipped: tuple[Cell, ...], game: Game) -> str:
    """What a cut spares, in words: "c3 needs no search", "a3, b3 need no search"."""
    if not skipped:
        return "the node stops here, with no moves left to skip"
    names = ", ".join(game.cell_name(c) for c in skipped)
    return f"{names} {'needs' if len(skipped) == 1 else 'need'} no search"


def _num(score: Score) -> str:
    if score in (INF, -INF):
        return "+inf" if score > 0 else "-inf"
    return f"{score:g}"


# --- the AI's own search, counted and asked for values ----------------------------------------


class _Capped:
    """A rule set (search_rules.py) that calls ``pause`` now and then and stops its
    solver past ``most`` positions: the AI's search, bounded as the lab's are."""

    def __init__(self, solver: Solver, most: int, pause: Callable[[], object] | None) -> None:
        self.rules, self.solver, self.most, self.pause = solver.rules, solver, most, pause
        self.start = solver.nodes
        self.expanded = 0

    def state(self, position: Position) -> State:
        return self.rules.state(position)

    def canonical(self, state: State) -> int:
        return self.rules.canonical(state)

    def moves(self, state: State) -> list[RuleChild]:
        return self.rules.moves(state)

    def expand(self, state: State) -> Expanded:
        self.expanded += 1
        if not self.expanded % PAUSE_EVERY:
            if self.solver.nodes - self.start > self.most:
                raise TooLarge(self.most)
            if self.pause is not None:
                self.pause()
        return self.rules.expand(state)


@contextmanager
def capped(
    solver: Solver, most: int, pause: Callable[[], object] | None = None
) -> Iterator[Solver]:
    """``solver`` bounded to ``most`` more positions (``TooLarge`` past them), pausing."""
    rules = solver.rules
    solver.rules = _Capped(solver, most, pause)
    try:
        yield solver
    finally:
        solver.rules = rules


def engine_counts(
    board: Position, *, most: int, pause: Callable[[], object] | None = None
) -> Counts:
    """The positions the AI's own search (solver.py: alpha-beta, a table of bounds,
    symmetry, move ordering and its shortcuts) visits to value ``board`` from an empty
    table and no book; ``TooLarge`` past ``most``."""
    solver = Solver(board.variant)
    with capped(solver, most, pause):
        solver.value(board)
    return Counts(solver.nodes, 0, 0)


def engine_children(
    board: Position,
    path: tuple[Cell, ...],
    options: Options,
    solver: Solver,
    *,
    most: int,
    pause: Callable[[], object] | None = None,
) -> list[Child]:
    """What ``children`` gives with no depth limit, found by the AI's engine (``solver``,
    its table kept): each move's exact result and plies, scored as the lab scores them
    for the side to move at ``board`` (``TooLarge`` past ``most`` positions)."""
    if options.depth is not None:
        raise LabError("bad_depth", "the engine values moves to the end, with no depth limit")
    game = game_for(board.variant)
    node = _check(board, path)
    assert isinstance(node, Position)
    with capped(solver, most, pause):
        found = solver.analyse(node).moves
    ours = len(path) % 2 == 0  # the node's side to move is the root's
    empties = game.flat(node).count(EMPTY)
    children = []
    for cell, child in game.children(game.flat(node)):
        worth = found[cell]
        sign = {"win": 1, "loss": -1}.get(worth.result.value, 0) * (1 if ours else -1)
        end = len(path) + worth.plies  # the plies from the root to the game's end
        score: Score = {
            "result": sign,
            "depth": sign * (game.top - end),
            "empties": sign * (empties - worth.plies + 1),
            "share": (1 + sign) / 2,
        }[options.scoring]
        children.append(Child(cell, child, score, "exact"))
    return children
