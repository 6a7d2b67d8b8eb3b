"""Practice from a reviewed game: the position just before the player's first mistake,
the player to move, against the AI's perfect play, kept apart from their match. The
game knows the mistake, so its state says what each of the player's moves there does
(``practice`` in the state: docs/protocol.md).

``POST /practice`` (from this site's own page: its ``Origin`` is checked) starts one from
a game of the player's history and sends them to ``GET /practice``, the game page
showing the practice game instead of their match (the page asks for it when it
connects). Practice changes no HP, is not kept in the history, and the match stays as
it was.
"""

from __future__ import annotations

import dataclasses

from flask import Blueprint, Response, current_app, redirect, request, session, url_for
from flask.typing import ResponseReturnValue

from webapp.game.history import first_mistake
from webapp.game.match import Match, practice_match
from webapp.server.pages.routes import game_page
from webapp.server.services.matches import MatchService, practice_key

practice = Blueprint("practice", __name__)


@practice.post("/practice")
def start_practice() -> ResponseReturnValue:
    """A practice game from the first mistake of one of the player's games."""
    if not current_app.extensions["origin_check"](request.headers.get("Origin"), request.environ):
        return Response("This form must be sent from this site's own page.", 403)
    player = session.get("player")
    history = current_app.extensions["history"]
    found = history.game(request.form.get("game", "")) if player else None
    slip = first_mistake(found[1]) if found and found[0] == player else None
    if slip is None:
        return Response("That game has no mistake of yours to practise from.", 404)
    setup, mistake = slip
    service: MatchService = current_app.extensions["tictactoe"]
    rng = service.rng  # the system's randomness, as every server seed's (docs/fairness.md)

    def start(current: Match | None) -> Match:
        if current is None:
            return practice_match(rng, setup, mistake=mistake)
        # The seed committed during the last practice game, shown on that page.
        fresh = practice_match(rng, setup, mistake=mistake, server_seed=current.next_seed)
        return dataclasses.replace(fresh, version=current.version + 1)

    key = practice_key(str(player))
    service.start(key, start)
    return redirect(url_for("practice.practice_page"), 303)


@practice.get("/practice")
def practice_page() -> ResponseReturnValue:
    """The game page, showing the player's practice game."""
    return game_page(practice=True)
