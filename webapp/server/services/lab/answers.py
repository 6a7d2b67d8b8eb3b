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
docs/protocol.md describes them.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any

from webapp.game import lab
from webapp.game.board import Board, RuleError
from webapp.server.limits.paid_work import Budgets
from webapp.server.protocol.vocabulary import BadPayload, ErrorCode
from webapp.server.services.lab.counts import shipped_counts
from webapp.server.services.lab.encoding import Pause, event_of

CHEAP_EMPTIES = 6  # plain minimax from 6 empty cells: under 2,000 nodes
CHEAP_DEPTH = 4  # a depth limit of 4 plies: under 3,700 nodes from any position
LENGTHS_KEPT = 4096  # traces' lengths kept, then forgotten all at once
COUNTED_KEPT = 512  # counts counted on demand kept, the least recently asked dropped first


class LabRefused(RuleError):
    """A lab request that cannot be answered as asked; ``code`` is an ErrorCode."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(code, message)
        self.field = field


def board_of(fields: dict[str, Any]) -> Board:
    """The position a lab event names (``board``, nine of X, O and .), or ``bad_board``."""
    text = fields.get("board")
    if text is None:
        raise BadPayload('a lab event needs a board: {"board": "X.O......"}')
    try:
        return Board.parse(text)
    except RuleError as err:
        raise LabRefused(ErrorCode.BAD_BOARD, err.message) from err


def path_of(board: Board, fields: dict[str, Any]) -> tuple[int, ...]:
    """The moves from the board to a node (``path``, digits 0-8), or ``bad_board``."""
    text = fields.get("path", "")
    if len(text) > 9 or not all(ch in "012345678" for ch in text):
        raise LabRefused(ErrorCode.BAD_BOARD, "a path is up to 9 cells as digits 0-8")
    cells = tuple(int(ch) for ch in text)
    try:
        node = board
        for cell in cells:
            node = node.apply_move(cell)
    except RuleError as err:
        raise LabRefused(ErrorCode.BAD_BOARD, f"the path cannot be played: {err.message}") from err
    return cells


def options_of(fields: dict[str, Any]) -> lab.Options:
    """The search a lab event asks for; ``bad_setting`` names a choice out of range."""
    try:
        return lab.Options(
            fields.get("scoring", "depth"),
            fields.get("prune", False),
            fields.get("table", False),
            fields.get("symmetry", False),
            fields.get("depth"),
        )
    except lab.LabError as err:
        field = "scoring" if err.code == "bad_scoring" else "depth"
        raise LabRefused(ErrorCode.BAD_SETTING, err.message, field=field) from err


class Cursors:
    """Each connection's trace, resumable, for the search it is stepping: at most
    ``most`` of them, the least recently used dropped first (its next page runs its
    search again from the start)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.held: OrderedDict[str, lab.Trace] = OrderedDict()

    def at(
        self, connection: str, board: Board, options: lab.Options, start: int, pause: Pause
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
        self.held[connection] = trace
        while len(self.held) > self.most:
            self.held.popitem(last=False)


class Lab:
    """The lab's answers under this server's limits (``LAB_PAGE_SIZE``, ``LAB_CURSORS``),
    each answer's work on its connection's budget (``budgets``: paused in slices and
    refused while in debt, as the odds are)."""

    def __init__(self, page_size: int, cursors: int, budgets: Budgets) -> None:
        self.page_size, self.budgets = page_size, budgets
        self.cursors = Cursors(cursors)
        self.lengths: dict[tuple[str, lab.Options], int] = {}
        self.measured, self.stored = shipped_counts()
        self.counted = functools.lru_cache(maxsize=COUNTED_KEPT)(self._count)

    def page(
        self, connection: str, board: Board, options: lab.Options, start: int, size: int
    ) -> dict[str, Any]:
        """Steps ``start`` .. ``start + size - 1`` of a search, the nodes open at the
        first of them, and the trace's number of steps."""
        if size > self.page_size or size < 1:
            raise LabRefused(ErrorCode.TOO_COSTLY, f"a page holds 1 to {self.page_size} steps")
        steps = self.steps(board, options)
        if not 0 <= start < steps:
            raise LabRefused(
                ErrorCode.BAD_STEP,
                f"this search's trace has {steps:,} steps: a page starts at step 0 to"
                f" {steps - 1:,}",
            )
        trace = self.cursors.at(connection, board, options, start, self.budgets.pause)
        opened, events = trace.take(size)
        self.cursors.keep(connection, trace)
        return {
            "events": [event_of(event, options.scoring) for event in events],
            "opened": [event_of(event, options.scoring) for event in opened],
            "start": start,
            "steps": steps,
        }

    def steps(self, board: Board, options: lab.Options) -> int:
        """The number of steps of a search's trace (3 x nodes - 1 + cuts), from its counts
        when they are cheap or stored, else from one search (kept)."""
        key = (board.cells, options)
        if key not in self.lengths:
            counts = self.counts_of(board, options)
            if counts is None:
                found = lab.search(board, options, pause=self.budgets.pause).counts
                counts = {"nodes": found.nodes, "cuts": found.cuts}
            if len(self.lengths) >= LENGTHS_KEPT:
                self.lengths.clear()
            self.lengths[key] = 3 * counts["nodes"] - 1 + counts["cuts"]
        return self.lengths[key]

    def counts(self, board: Board, scoring: lab.Scoring, depth: int | None) -> dict[str, Any]:
        """The eight kinds of search from ``board``: nodes, hits, cuts and milliseconds, and
        the date their times were measured (``null``: just now)."""
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


def _row(kind: str, nodes: int, hits: int, cuts: int, ms: float) -> dict[str, Any]:
    return {"kind": kind, "nodes": nodes, "hits": hits, "cuts": cuts, "ms": ms}


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 1)
