"""The lab's Socket.IO handlers: a node's children, a page of a trace, the counts.

They read nothing of the player's and change nothing; like every event they pass the
connection's rate limits first, and each answer's cost is bounded (lab.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_socketio import SocketIO

from .events import Handler, attach, checked
from .lab import Lab, board_of, children_answer, options_of, path_of
from .protocol import OK, Ack, Event


def register_lab(socketio: SocketIO, lab: Lab, max_payload: int) -> None:
    """Attach the lab's handlers to ``socketio``."""

    def on(event: Event) -> Callable[[Handler], Any]:
        return lambda handler: attach(socketio, event, checked(max_payload, event)(handler))

    @on(Event.LAB_CHILDREN)
    def on_children(fields: dict[str, Any]) -> Ack:
        board = board_of(fields)
        path = path_of(board, fields)
        return {**OK, **children_answer(board, path, options_of(fields))}

    @on(Event.LAB_PAGE)
    def on_page(fields: dict[str, Any]) -> Ack:
        board, options = board_of(fields), options_of(fields)
        start, size = fields.get("start", 0), fields.get("size", lab.page_size)
        return {**OK, **lab.page(board, options, start, size)}

    @on(Event.LAB_COUNTS)
    def on_counts(fields: dict[str, Any]) -> Ack:
        board, options = board_of(fields), options_of(fields)
        return {**OK, **lab.counts(board, options.scoring, options.depth)}
