"""A player's own data: every stored game to download, and everything deleted on request.

Both go by the session cookie. Deleting takes a POST from this site's own page (its
``Origin`` is checked, as for a new room), and removes the player's history and
lifetime figures, their match and their practice game, their room on this device,
their seats in rooms with friends and their training (cards, answers, puzzle rating),
from the store every process reads, and from this process's copies; the cookie is
cleared, so the browser starts afresh as a new player, and the page it lands on next
says once what was deleted.

The id is kept as deleted first (store/forgotten.py), so that nothing acts as it again: every
socket of the player, in every process, is told ``player_deleted`` and disconnected, an
event from one that raced the push is refused, and a kept cookie gets a new player. An
event already under way when the id was kept may still write once: the player's data is
deleted again a few seconds later, to take that away too.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request, session
from flask.typing import ResponseReturnValue

from webapp.server.events.connect import detach
from webapp.server.limits.costly_pages import refused
from webapp.server.services.matches import practice_key
from webapp.server.services.signed_history import signed_games
from webapp.server.store.interface import Damaged

your_data = Blueprint("your_data", __name__)
log = logging.getLogger("webapp.server.your_data")
# What the page after a deletion is told was deleted: how many games (their lifetime
# figures and skill estimate with them), then 0 or 1 for a match, a practice game and a
# room on this device, the seats held in rooms with friends, and the training cards
# (their answers and the puzzle rating with them).
ERASED = ("games", "match", "practice", "local", "seats", "cards")
SWEEP_SECONDS = 5.0  # after this, an event under way at the deletion has written, if at all


def _player() -> str | None:
    player = session.get("player")
    return None if player is None else str(player)


@your_data.get("/history/games.json")
def download() -> ResponseReturnValue:
    """All the player's stored games, newest first, as one JSON file, each with its
    signed record as stored; limited per player and per address (limits/costly_pages.py)."""
    player = _player()
    wait = current_app.extensions["costly"].retry_after(player, request.remote_addr)
    if wait:
        return refused(request, "All your games", wait)
    history, signer = current_app.extensions["history"], current_app.extensions["signing"]
    games = signed_games(history, signer, player) if player else []
    training = current_app.extensions["training"].export(player) if player else None
    body = orjson.dumps(
        {"kind": "tictactoe-hp-history", "format": 1, "games": games, "training": training}
    )
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
    player, erased = _player(), dict.fromkeys(ERASED, 0)
    if player is not None:
        extensions = current_app.extensions
        extensions["forgotten"].add(player)
        erased = _found(extensions, player)
        _erase(extensions, player)
        socketio = extensions["tictactoe"].socketio
        detach(socketio, extensions["presence"], player)
        socketio.start_background_task(_erase_later, dict(extensions), player)
    session.clear()
    session["deleted"] = erased  # said once, by the page the browser lands on next
    return Response(status=204)


def _found(extensions: dict[str, Any], player: str) -> dict[str, int]:
    """What is stored about the player, as the page after the deletion tells it."""
    store, rooms = extensions["tictactoe"].store, extensions["rooms"]

    def kept(key: str) -> int:
        try:
            return int(store.load(key) is not None)
        except Damaged:  # unreadable, but there: deleted all the same
            return 1

    return {
        "games": len(extensions["history"].games(player)),
        "match": kept(player),
        "practice": kept(practice_key(player)),
        "local": int(rooms.load("local." + player) is not None),
        "seats": len(rooms.store.online_rooms_of(player)),
        "cards": len(extensions["training"].store.cards(player)),
    }


def _erase(extensions: dict[str, Any], player: str) -> None:
    """Delete the player's history, match, practice game, room, seats and training."""
    extensions["history"].forget(player)
    extensions["training"].store.forget(player)
    service = extensions["tictactoe"]
    service.store.delete(player)
    service.store.delete(practice_key(player))
    extensions["rooms"].leave_all(player)


def _erase_later(extensions: dict[str, Any], player: str) -> None:
    """Erase again once what was under way at the deletion has ended."""
    extensions["tictactoe"].socketio.sleep(SWEEP_SECONDS)
    try:
        _erase(extensions, player)
    except Exception as err:  # the store went away meanwhile (a stopping process)
        log.warning("a deleted player's data could not be erased again: %s", type(err).__name__)
