"""The lab's answers as they are sent: a node's moves with their values, and a trace's
events, each a dict ready for JSON (answers.py decides what to search)."""

from __future__ import annotations

from collections.abc import Callable
from math import isfinite
from typing import Any

from webapp.game import lab
from webapp.game.lab_rules import CLASSIC_GAME, Game

Pause = Callable[[], object] | None


def score(value: float) -> float | None:
    """A value for JSON: ``null`` stands for an unbounded side of the window."""
    return value if isfinite(value) else None


def children_answer(
    board: lab.Root, path: tuple[int, ...], options: lab.Options, found: list[lab.Child]
) -> dict[str, Any]:
    """A node's moves (``found``) with their values, the node's value and the move chosen
    there; each move's position in the variant's notation, and the mark it placed; the
    node's dead boards (Notakto's, by number from 0)."""
    game = lab.game_of(board)[0]
    maximiser = len(path) % 2 == 0  # the node's side to move is the root's
    values = [child.value for child in found]
    best = (max(values) if maximiser else min(values)) if values else None
    limit = options.depth
    shallow = limit is None or len(path) + 1 < limit

    def opens(child: lab.Child) -> bool:
        return shallow and game.ending(child.cells) is None

    node = lab.game_of(board)[1]
    for cell in path:
        node = next(child for move, child in game.children(node) if move == cell)
    dead = {"dead": game.dead_boards(node)} if game.variant.notakto else {}  # Notakto only
    return {
        **dead,
        "children": [
            {
                "cell": c.cell,
                "board": game.text(c.cells),
                "mark": c.cells[c.cell],
                "value": c.value,
                "bound": c.bound,
                "open": opens(c),
            }
            for c in found
        ],
        "value": best,
        "best": next((c.cell for c in found if c.value == best), None),
    }


def _window(event: lab.Enter | lab.Update | lab.Cut) -> dict[str, float | None]:
    return {"alpha": score(event.alpha), "beta": score(event.beta)}


def event_of(event: lab.Event, scoring: lab.Scoring, game: Game = CLASSIC_GAME) -> dict[str, Any]:
    """One event of a trace as JSON (positions in ``game``'s notation); a cut carries its
    reason in words."""
    if isinstance(event, lab.Enter):
        return {
            "type": "enter",
            "node": event.node,
            "parent": event.parent,
            "cell": event.cell,
            "board": game.text(event.cells),
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
            "board": game.text(event.cells),
            "after": event.after,
            "skipped": list(event.skipped),
            **_window(event),
            "reason": lab.cut_reason(event, scoring, game),
            "skipped_names": [game.cell_name(cell) for cell in event.skipped],
        }
    return {
        "type": "leave",
        "node": event.node,
        "value": score(event.value),
        "bound": event.bound,
        "how": event.how,
    }
