"""The lab page's answers: a node's children, a page of a search's trace, the counts.

Each answer's cost is bounded. A node's children cost one search with a table (a few
thousand nodes at most). A page of a trace costs at most one whole search (the empty
board's plain minimax, about 2 s, is the largest): each connection keeps the trace it
is stepping (``Cursors``), so the next page goes on where the last one stopped, and a
page before it or of another search runs that search again from its start, passing
over the steps before the page unbuilt. The counts of the eight kinds of search are computed
on demand for positions with 6 empty cells or fewer (or a depth limit of 4 or less:
some tens of milliseconds at most), and read from counts.json, measured once, for
the costly ones (7 to 9 empty cells: the empty board's plain minimax visits 549,946
nodes); those counted pause and are paid as the rest, each timed by its own work.

On the other variants (``variant``: 4x4, misère, Notakto) every search is capped: the
counts stop each kind at ``COUNT_MOST`` nodes ("more than"), plain minimax's size is
estimated by random descents when it is larger (marked as an estimate), and the AI's own
search (alpha-beta, table, symmetry, move ordering and shortcuts) is counted beside them;
a trace is walked up to its first ``TRACE_MOST`` nodes; a node's exact values come from
the AI's engine (solver.py), under a cap of ``ENGINE_MOST`` positions.
docs/protocol.md describes them.
"""

from __future__ import annotations

import functools
import zlib
from typing import Any

from webapp.game import lab
from webapp.game.board import Board, RuleError
from webapp.game.position import Position
from webapp.game.solver import Solver
from webapp.game.variant import CLASSIC, variant_named
from webapp.server.limits.paid_work import Budgets
from webapp.server.protocol.payload import variant_or_classic
from webapp.server.protocol.vocabulary import BadPayload, ErrorCode
from webapp.server.services.lab.counts import shipped_counts
from webapp.server.services.lab.encoding import Pause, children_answer, event_of
from webapp.server.store.bounded import LastUsed

CHEAP_EMPTIES = 6  # plain minimax from 6 empty cells: under 2,000 nodes
CHEAP_DEPTH = 4  # a depth limit of 4 plies: under 3,700 nodes from any position
LENGTHS_KEPT = 4096  # traces' lengths kept, then forgotten all at once
COUNTED_KEPT = 512  # counts counted on demand kept, the least recently asked dropped first
COUNT_MOST = 32 * lab.PAUSE_EVERY  # 8,192 nodes: each kind's cap on the other variants
TRACE_MOST = COUNT_MOST  # nodes of a trace walked there: 24,576 steps at most
ENGINE_MOST = 200_000  # the AI's search for a node's values (the empty 4x4: some 40,000)
TABLE = 100_000  # bounds each variant's engine keeps here, then forgets all at once
ESTIMATED = {"estimated_by": "random descents", "descents": lab.ESTIMATE_DESCENTS}


class LabRefused(RuleError):
    """A lab request that cannot be answered as asked; ``code`` is an ErrorCode."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(code, message)
        self.field = field


def board_of(fields: dict[str, Any]) -> lab.Root:
    """The position a lab event names (``board`` in the variant's notation: nine of X, O
    and . on classic, 16 on 4x4, ``/`` between Notakto's boards), or ``bad_board``."""
    variant = variant_or_classic(fields)
    text = fields.get("board")
    if text is None:
        raise BadPayload('a lab event needs a board: {"board": "X.O......"}')
    try:
        return Board.parse(text) if variant == CLASSIC else Position.parse(variant, text)
    except RuleError as err:
        raise LabRefused(ErrorCode.BAD_BOARD, err.message, field="board") from err


def key_of(board: lab.Root) -> str:
    """A position's key among the lab's kept answers: its variant and its notation."""
    return board.cells if isinstance(board, Board) else f"{board.variant.name} {board}"


def path_of(board: lab.Root, fields: dict[str, Any]) -> tuple[int, ...]:
    """The moves from the board to a node (``path``: cells' indices separated by commas,
    or on classic digits 0-8 side by side), or ``bad_board``."""
    text = fields.get("path", "")
    size = lab.game_of(board)[0].variant.cells
    parts = text.split(",") if "," in text else list(text)
    if len(parts) > size or not all(part.isdigit() and int(part) < size for part in parts):
        raise LabRefused(
            ErrorCode.BAD_BOARD,
            f"a path is up to {size} cells' indices from 0 to {size - 1}, separated by commas",
            field="path",
        )
    cells = tuple(int(part) for part in parts)
    try:
        node = board
        for cell in cells:
            node = node.apply_move(cell)
    except RuleError as err:
        raise LabRefused(ErrorCode.BAD_BOARD, f"the path cannot be played: {err.message}") from err
    return cells


def options_of(fields: dict[str, Any], board: lab.Root | None = None) -> lab.Options:
    """The search a lab event asks for (on ``board``'s variant); ``bad_setting`` names a
    choice out of range."""
    try:
        options = lab.Options(
            fields.get("scoring", "depth"),
            fields.get("prune", False),
            fields.get("table", False),
            fields.get("symmetry", False),
            fields.get("depth"),
        )
        if board is not None:
            lab.check(board, options)
        return options
    except lab.LabError as err:
        field = "scoring" if err.code == "bad_scoring" else "depth"
        raise LabRefused(ErrorCode.BAD_SETTING, err.message, field=field) from err


class Cursors:
    """Each connection's trace, resumable, for the search it is stepping: at most
    ``most`` of them, the least recently used dropped first (its next page runs its
    search again from the start)."""

    def __init__(self, most: int) -> None:
        self.held: LastUsed[str, lab.Trace] = LastUsed(most)

    def at(
        self, connection: str, board: lab.Root, options: lab.Options, start: int, pause: Pause
    ) -> lab.Trace:
        """A trace whose next step is ``start``: the connection's own when it can go
        on to it, else a new one; taken out until ``keep`` puts it back (another page
        of the same connection meanwhile starts a trace of its own)."""
        found = self.held.pop(connection, None)
        same = found is not None and (found.board, found.options) == (board, options)
        if found is None or not same or found.at > start:
            found = lab.Trace(board, options, start, pause=pause)
        else:
            found.skip(start - found.at)
        return found

    def keep(self, connection: str, trace: lab.Trace) -> None:
        """Keep ``trace`` as the connection's own, to go on from."""
        self.held.put(connection, trace)


class Lab:
    """The lab's answers under this server's limits (``LAB_PAGE_SIZE``, ``LAB_CURSORS``),
    each answer's work on its connection's budget (``budgets``: paused in slices and
    refused while in debt, as the odds are)."""

    def __init__(self, page_size: int, cursors: int, budgets: Budgets) -> None:
        self.page_size, self.budgets = page_size, budgets
        self.cursors = Cursors(cursors)
        self.lengths: dict[tuple[str, lab.Options], tuple[int, bool]] = {}
        self.measured, self.stored = shipped_counts()
        self.counted = functools.lru_cache(maxsize=COUNTED_KEPT)(self._count)
        self.counted_other = functools.lru_cache(maxsize=COUNTED_KEPT)(self._count_other)
        self.solvers: dict[str, Solver] = {}  # each variant's engine, its table kept

    def children(
        self, board: lab.Root, path: tuple[int, ...], options: lab.Options
    ) -> dict[str, Any]:
        """A node's moves with their values: on classic, or with a depth limit, by the
        lab's own search; else by the AI's engine (its table kept between asks)."""
        pause = self.budgets.pause
        try:
            if isinstance(board, Board):
                found = lab.children(board, path, options, pause=pause)
            elif options.depth is not None:
                found = lab.children(board, path, options, pause=pause, most=COUNT_MOST)
            else:
                # Taken out while it searches: an ask that comes in meanwhile (in a pause)
                # gets an engine of its own, and the last one back is kept.
                name = board.variant.name
                solver = self.solvers.pop(name, None) or Solver(board.variant, table_limit=TABLE)
                found = lab.engine_children(
                    board, path, options, solver, most=ENGINE_MOST, pause=pause
                )
                self.solvers[name] = solver
        except lab.TooLarge as err:
            raise LabRefused(
                ErrorCode.TOO_COSTLY,
                f"the values of these moves need more than {err.most:,} positions searched:"
                " choose a depth limit",
                field="depth",
            ) from err
        return children_answer(board, path, options, found)

    def page(
        self, connection: str, board: lab.Root, options: lab.Options, start: int, size: int
    ) -> dict[str, Any]:
        """Steps ``start`` .. ``start + size - 1`` of a search, the nodes open at the
        first of them, the trace's number of steps and whether they are all of its
        steps (``whole``; else its first ones, on a search too large to walk whole)."""
        if size > self.page_size or size < 1:
            raise LabRefused(ErrorCode.TOO_COSTLY, f"a page holds 1 to {self.page_size} steps")
        steps, whole = self.walked(board, options)
        if not 0 <= start < steps:
            raise LabRefused(
                ErrorCode.BAD_STEP,
                f"this search's trace has {steps:,} steps: a page starts at step 0 to"
                f" {steps - 1:,}",
            )
        trace = self.cursors.at(connection, board, options, start, self.budgets.pause)
        opened, events = trace.take(size)
        self.cursors.keep(connection, trace)
        game = lab.game_of(board)[0]
        return {
            "events": [event_of(event, options.scoring, game) for event in events],
            "opened": [event_of(event, options.scoring, game) for event in opened],
            "start": start,
            "steps": steps,
            "whole": whole,
        }

    def steps(self, board: lab.Root, options: lab.Options) -> int:
        """The number of steps of a search's trace shown (see ``walked``)."""
        return self.walked(board, options)[0]

    def walked(self, board: lab.Root, options: lab.Options) -> tuple[int, bool]:
        """The number of steps of a search's trace (3 x nodes - 1 + cuts), from its counts
        when they are cheap or stored, else from one search (kept); on the other variants,
        a search past ``TRACE_MOST`` nodes is walked to its first 3 x ``TRACE_MOST`` steps
        only (it has more: each node has an entry, a leaving, and an update above it),
        and ``whole`` is False."""
        key = (key_of(board), options)
        if key not in self.lengths:
            counts = self.counts_of(board, options) if isinstance(board, Board) else None
            most = None if isinstance(board, Board) else TRACE_MOST
            whole = True
            if counts is None:
                try:
                    done = lab.search(board, options, pause=self.budgets.pause, most=most)
                    counts = {"nodes": done.counts.nodes, "cuts": done.counts.cuts}
                except lab.TooLarge:
                    counts, whole = {"nodes": TRACE_MOST, "cuts": 1}, False
            if len(self.lengths) >= LENGTHS_KEPT:
                self.lengths.clear()
            self.lengths[key] = (3 * counts["nodes"] - 1 + counts["cuts"], whole)
        return self.lengths[key]

    def counts(self, board: lab.Root, scoring: lab.Scoring, depth: int | None) -> dict[str, Any]:
        """The eight kinds of search from ``board``: nodes, hits, cuts and milliseconds, and
        the date their times were measured (``null``: just now); on the other variants
        each kind capped, plain minimax estimated when larger, and the AI's own search."""
        if not isinstance(board, Board):
            name, text = board.variant.name, str(board)
            other = list(self.counted_other(name, text, scoring, depth))
            return {"kinds": other, "measured": None, "most": COUNT_MOST, **ESTIMATED}
        key = f"{board.cells} {scoring}"
        if depth is None and key in self.stored:
            rows = self.stored[key]
            return {"kinds": [_row(*row) for row in rows], "measured": self.measured}
        if board.empties > CHEAP_EMPTIES and (depth is None or depth > CHEAP_DEPTH):
            raise LabRefused(
                ErrorCode.TOO_COSTLY,
                f"counting from a position with {board.empties} empty cells needs a depth"
                f" limit of {CHEAP_DEPTH} or less",
            )
        return {"kinds": list(self.counted(board.cells, scoring, depth)), "measured": None}

    def counts_of(self, board: Board, options: lab.Options) -> dict[str, Any] | None:
        """The counts of one kind of search, when they are cheap or stored; else None."""
        try:
            found = self.counts(board, options.scoring, options.depth)
        except LabRefused:
            return None
        rows: list[dict[str, Any]] = found["kinds"]
        return next(row for row in rows if row["kind"] == options.kind)

    def _count(
        self, cells: str, scoring: lab.Scoring, depth: int | None
    ) -> tuple[dict[str, Any], ...]:
        """The eight kinds' rows, each search paused and paid as any lab answer, and timed
        by its own work (not the pauses')."""
        board, pause = Board(cells), self.budgets.pause
        found = [
            lab.measure(board, kind, pause.worked, pause=pause)
            for kind in lab.kinds(scoring, depth)
        ]
        return tuple(
            _row(m.options.kind, m.counts.nodes, m.counts.hits, m.counts.cuts, _ms(m.seconds))
            for m in found
        )

    def _count_other(
        self, name: str, text: str, scoring: lab.Scoring, depth: int | None
    ) -> tuple[dict[str, Any], ...]:
        """The eight kinds' rows on another variant, then the AI's own search's: each
        counted up to ``COUNT_MOST`` nodes (``more``: it visits more), plain minimax
        estimated when larger (``estimate``), each timed by its own work."""
        board = Position.parse(variant_named(name), text)
        rows = [self._kind_row(board, kind) for kind in lab.kinds(scoring, depth)]
        pause = self.budgets.pause
        began = pause.worked()
        try:
            found = lab.engine_counts(board, most=ENGINE_MOST, pause=pause)
            rows.append(_row("engine", found.nodes, None, None, _ms(pause.worked() - began)))
        except lab.TooLarge:
            ms = _ms(pause.worked() - began)
            rows.append({**_row("engine", ENGINE_MOST, None, None, ms), "more": True})
        return tuple(rows)

    def _kind_row(self, board: Position, kind: lab.Options) -> dict[str, Any]:
        """One kind's row on another variant (see ``_count_other``)."""
        pause = self.budgets.pause
        began = pause.worked()
        guess = None
        if not kind.prune and not kind.table:
            seed = zlib.crc32(f"{board.variant.name} {board} {kind.kind}".encode())
            guess = lab.estimate(board, kind, seed=seed, pause=pause)
        if guess is None or guess <= COUNT_MOST:
            try:
                m = lab.measure(board, kind, pause.worked, pause=pause, most=COUNT_MOST)
                ms = _ms(pause.worked() - began)
                return _row(kind.kind, m.counts.nodes, m.counts.hits, m.counts.cuts, ms)
            except lab.TooLarge:
                pass
        ms = _ms(pause.worked() - began)
        if guess is not None:
            return {**_row(kind.kind, guess, None, None, ms), "estimate": True}
        return {**_row(kind.kind, COUNT_MOST, None, None, ms), "more": True}


def _row(kind: str, nodes: int, hits: int | None, cuts: int | None, ms: float) -> dict[str, Any]:
    return {"kind": kind, "nodes": nodes, "hits": hits, "cuts": cuts, "ms": ms}


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 1)
