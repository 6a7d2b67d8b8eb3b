"""A player's own data: every stored game to download, and everything deleted on request.

Both go by the session cookie. Deleting takes a POST from this site's own page (its
``Origin`` is checked, as for a new room), and removes the player's history and
lifetime figures, their match and their practice game, their room on this device and
their seats in rooms with friends, from the store every process reads, and from this
process's copies; the cookie is cleared, so the browser starts afresh as a new player.
The player's id shows nothing of it again: a match is never derived from an id, so one
kept cookie is given a new match, on new seeds.
"""

from __future__ import annotations

import orjson
from flask import Blueprint, Response, current_app, request, session
from flask.typing import ResponseReturnValue

from .costly import refused
from .matches import practice_key
from .signed_history import signed_games

your_data = Blueprint("your_data", __name__)


def _player() -> str | None:
    player = session.get("player")
    return None if player is None else str(player)


@your_data.get("/history/games.json")
def download() -> ResponseReturnValue:
    """All the player's stored games, newest first, as one JSON file, each with its
    signed record as stored; limited per player and per address (costly.py)."""
    player = _player()
    wait = current_app.extensions["costly"].retry_after(player, request.remote_addr)
    if wait:
        return refused(request, "All your games", wait)
    history, signer = current_app.extensions["history"], current_app.extensions["signing"]
    games = signed_games(history, signer, player) if player else []
    body = orjson.dumps({"kind": "tictactoe-hp-history", "format": 1, "games": games})
    headers = {
        "Content-Disposition": 'attachment; filename="tictactoe-games.json"',
        "Cache-Control": "no-store",
    }
    return Response(body, 200, headers, mimetype="application/json")


@your_data.post("/history/forget")
def forget() -> ResponseReturnValue:
    """Delete everything stored about the player, then forget their cookie."""
    if not current_app.extensions["origin_check"](request.headers.get("Origin"), request.environ):
        return Response("This form must be sent from this site's own page.", 403)
    player = _player()
    if player is not None:
        current_app.extensions["history"].forget(player)
        service = current_app.extensions["tictactoe"]
        service.store.delete(player)
        service.store.delete(practice_key(player))
        current_app.extensions["rooms"].leave_all(player)
    session.clear()
    return Response(status=204)
