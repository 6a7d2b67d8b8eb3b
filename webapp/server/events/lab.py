"""The lab's Socket.IO handlers: a node's children, a page of a trace, the counts.

They read nothing of the player's, and change only one thing: an answer that shows values
(the best moves: ``lab_children``, ``lab_page``) marks the player's coming move in an HP
game under way as made with hints shown, as ``hint`` does. Like every event they pass the
connection's rate limits first, and each answer's cost is bounded
(services/lab/answers.py) and taken from the connection's and its address's budgets of
work (``LAB_MS_PER_SECOND``, ``LAB_MS_PER_ADDRESS``), as the odds' is; an answer whose
socket closes stops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_socketio import SocketIO

from webapp.game import lab as core
from webapp.server.events.dispatch import attach, checked, payer, player_id, socket_id
from webapp.server.protocol.vocabulary import OK, Ack, Event
from webapp.server.services.lab.answers import Lab, board_of, options_of, path_of
from webapp.server.services.matches import MatchService

Answer = Callable[[core.Root, core.Options, tuple[int, ...], dict[str, Any]], dict[str, Any]]


def register_lab(socketio: SocketIO, lab: Lab, max_payload: int, service: MatchService) -> None:
    """Attach the lab's handlers to ``socketio``."""

    def on(event: Event, answer: Answer, *, shows_values: bool = True) -> None:
        def handler(fields: dict[str, Any]) -> Ack:
            board = board_of(fields)
            options = options_of(fields, board)
            path = path_of(board, fields)  # checked before any work, as the rest is
            work = lambda: answer(board, options, path, fields)  # noqa: E731
            found = lab.budgets.run(payer(socketio), work)
            if shows_values:  # a hint, whatever position it is of (a game's, turned)
                service.mark_lab(player_id())
            return {**OK, **found}

        attach(socketio, event, checked(max_payload, event)(handler))

    on(
        Event.LAB_CHILDREN,
        lambda board, options, path, _: lab.children(board, path, options),
    )
    on(
        Event.LAB_PAGE,
        lambda board, options, _, fields: lab.page(
            socket_id(), board, options, fields.get("start", 0), fields.get("size", lab.page_size)
        ),
    )
    on(
        Event.LAB_COUNTS,
        lambda board, options, _, __: lab.counts(board, options.scoring, options.depth),
        shows_values=False,  # how much each kind of search visits, not what a move is worth
    )
