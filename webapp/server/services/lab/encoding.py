"""The lab's answers as they are sent: a node's moves with their values, and a trace's
events, each a dict ready for JSON (answers.py decides what to search)."""

from __future__ import annotations

from collections.abc import Callable
from math import isfinite
from typing import Any

from webapp.game import lab
from webapp.game.board import Board, cell_name

Pause = Callable[[], object] | None


def score(value: float) -> float | None:
    """A value for JSON: ``null`` stands for an unbounded side of the window."""
    return value if isfinite(value) else None


def children_answer(
    board: Board, path: tuple[int, ...], options: lab.Options, pause: Pause = None
) -> dict[str, Any]:
    """A node's moves with their values, the node's value and the move chosen there."""
    found = lab.children(board, path, options, pause=pause)
    node = Board(found[0].cells).to_move if found else None
    maximiser = node is not None and node != board.to_move  # the child's mover is the other
    values = [child.value for child in found]
    best = (max(values) if maximiser else min(values)) if values else None
    limit = options.depth
    shallow = limit is None or len(path) + 1 < limit

    def opens(child: lab.Child) -> bool:
        return shallow and not Board(child.cells).is_over()

    return {
        "children": [
            {"cell": c.cell, "board": c.cells, "value": c.value, "bound": c.bound, "open": opens(c)}
            for c in found
        ],
        "value": best,
        "best": next((c.cell for c in found if c.value == best), None),
    }


def _window(event: lab.Enter | lab.Update | lab.Cut) -> dict[str, float | None]:
    return {"alpha": score(event.alpha), "beta": score(event.beta)}


def event_of(event: lab.Event, scoring: lab.Scoring) -> dict[str, Any]:
    """One event of a trace as JSON; a cut carries its reason in words."""
    if isinstance(event, lab.Enter):
        return {
            "type": "enter",
            "node": event.node,
            "parent": event.parent,
            "cell": event.cell,
            "board": event.cells,
            "depth": event.depth,
            **_window(event),
        }
    if isinstance(event, lab.Update):
        return {
            "type": "update",
            "node": event.node,
            "cell": event.cell,
            "best": score(event.best),
            **_window(event),
        }
    if isinstance(event, lab.Cut):
        return {
            "type": "cut",
            "node": event.node,
            "board": event.cells,
            "after": event.after,
            "skipped": list(event.skipped),
            **_window(event),
            "reason": lab.cut_reason(event, scoring),
            "skipped_names": [cell_name(cell) for cell in event.skipped],
        }
    return {
        "type": "leave",
        "node": event.node,
        "value": score(event.value),
        "bound": event.bound,
        "how": event.how,
    }
