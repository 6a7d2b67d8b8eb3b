"""Practice from a reviewed game: the position just before the player's first mistake,
the player to move, against the AI's perfect play, kept apart from their match. The
game knows the mistake, so its state says what each of the player's moves there does
(``practice`` in the state: docs/protocol.md).

``POST /practice`` (from this site's own page: its ``Origin`` is checked) starts one from
a game of the player's history and sends them to ``GET /practice``, the game page
showing the practice game instead of their match (the page asks for it when it
connects). Practice changes no HP, counts in no record, is not kept in the history, and
the match stays as it was; once a practice game is over, the next is the same position
again (``match.practice_again``). A game that is not the player's (or no longer: its
page was made for a player since deleted), or has no mistake, gets the styled page of a
missing game saying which.
"""

from __future__ import annotations

import dataclasses

from flask import Blueprint, Response, current_app, redirect, request, session, url_for
from flask.typing import ResponseReturnValue

from webapp.game.history import first_mistake, variant_of
from webapp.game.match import Match, practice_match
from webapp.server.pages.routes import game_missing, game_page
from webapp.server.services.matches import MatchService, practice_key
from webapp.server.services.page_player import page_player

practice = Blueprint("practice", __name__)
NO_MISTAKE = "That game has no mistake of yours to practise from: every move kept its result."
NOT_YOURS = "That game is not in your history."
DELETED = "Your data was deleted, this game with it: “Delete everything” was used in this browser."


@practice.post("/practice")
def start_practice() -> ResponseReturnValue:
    """A practice game from the first mistake of one of the player's games."""
    if not current_app.extensions["origin_check"](request.headers.get("Origin"), request.environ):
        return Response("This form must be sent from this site's own page.", 403)
    player = session.get("player")
    history = current_app.extensions["history"]
    found = history.game(request.form.get("game", "")) if player else None
    if found is None or found[0] != player:
        return game_missing(_not_found(request.form.get("page")))
    slip = first_mistake(found[1])
    if slip is None:
        return game_missing(NO_MISTAKE, status=422)
    setup, mistake = slip
    variant = variant_of(found[1])  # practised on the game's own board
    service: MatchService = current_app.extensions["tictactoe"]
    rng = service.rng  # the system's randomness, as every server seed's (docs/fairness.md)

    def start(current: Match | None) -> Match:
        if current is None:
            return practice_match(rng, setup, mistake=mistake, variant=variant)
        # The seed committed during the last practice game, shown on that page.
        seed = current.next_seed
        fresh = practice_match(rng, setup, mistake=mistake, server_seed=seed, variant=variant)
        return dataclasses.replace(fresh, version=current.version + 1)

    key = practice_key(str(player))
    service.start(key, start)
    return redirect(url_for("practice.practice_page"), 303)


def _not_found(page: str | None) -> str:
    """Why a game is not the player's: the page it was asked from was made for a player
    since deleted ("Delete everything" in this browser), or it is not theirs."""
    made_for = page_player(current_app.config, page)
    deleted = made_for is not None and current_app.extensions["forgotten"].holds(made_for)
    return DELETED if deleted else NOT_YOURS


@practice.get("/practice")
def practice_page() -> ResponseReturnValue:
    """The game page, showing the player's practice game."""
    return game_page(practice=True)
