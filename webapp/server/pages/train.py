"""The Train page: the player's cards due and puzzles, answered over plain HTTP.

``GET /train`` is the page; ``GET /train/state.json`` what it shows (the cards due, the
streak, the chart of passed and failed cards by day, the puzzle rating and a puzzle, of
the variant ``?variant=`` names: classic by default);
``POST /train/answer`` (``{"card": key, "cell": "b2"}``) answers a card and ``POST
/train/solve`` (``{"puzzle": key, "cell": "b2", "first_try": true}``) a puzzle. The
POSTs come from this site's own page only (their ``Origin`` is checked). Bad input is
answered 400 with the error's code and words, and changes nothing. The three JSON
requests are counted per player and per client address as whole histories are
(limits/costly_pages.py, under ``TRAIN_PER_PLAYER_MINUTE`` and
``TRAIN_PER_ADDRESS_MINUTE``): past either, ``429`` with ``Retry-After`` before any work.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue

from webapp.game.variant import CLASSIC, MEANINGS, VARIANTS
from webapp.server.limits.costly_pages import refused
from webapp.server.pages.routes import player_page
from webapp.server.services.training import Training, TrainingError
from webapp.server.store.interface import StorageFull

train = Blueprint("train", __name__)
NAMES = tuple(variant.name for variant in VARIANTS)


def _training() -> Training:
    return current_app.extensions["training"]  # type: ignore[no-any-return]


def _refused(code: str, message: str, status: int = 400) -> Response:
    answer = jsonify({"error": code, "message": message})
    answer.status_code = status
    return answer


@train.get("/train")
def train_page() -> ResponseReturnValue:
    """The Train page (a new browser gets its player id here, as on every page)."""
    return player_page("train.html", variants=VARIANTS, meanings=MEANINGS)


def _player() -> str | Response:
    """The player asking, or the refusal: none yet (``403``), or past the player's or the
    address's count (``429``, before any work)."""
    player = session.get("player")
    if player is None:
        return _refused("no_player", "open the Train page first", 403)
    wait = current_app.extensions["train_costly"].retry_after(str(player), request.remote_addr)
    return refused(request, "Training", wait) if wait else str(player)


@train.get("/train/state.json")
def train_state() -> ResponseReturnValue:
    """The cards due, the streak, the chart, the puzzle rating and a puzzle."""
    player = _player()
    if isinstance(player, Response):
        return player
    variant = request.args.get("variant", CLASSIC.name)
    if variant not in NAMES:
        return _refused("bad_payload", f"variant: one of {', '.join(NAMES)}")
    training = _training()
    try:
        state = training.state(player, training.clock())
    except StorageFull as err:
        return _refused(err.code, err.message, 503)
    done = request.args.getlist("done")[:64]
    return jsonify({**state, "puzzle": training.puzzle(player, done, variant)})


def _posted() -> tuple[str, dict[str, Any]] | Response:
    """The player and the JSON object posted, or the refusal."""
    if not current_app.extensions["origin_check"](request.headers.get("Origin"), request.environ):
        return Response("This form must be sent from this site's own page.", 403)
    player = _player()
    if isinstance(player, Response):
        return player
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return _refused("bad_payload", "send a JSON object")
    return player, body


@train.post("/train/answer")
def train_answer() -> ResponseReturnValue:
    """One card answered: passed or not, its best cells, and its next time."""
    posted = _posted()
    if isinstance(posted, Response):
        return posted
    player, body = posted
    training = _training()
    try:
        return jsonify(
            training.answer(player, body.get("card"), body.get("cell"), training.clock())
        )
    except TrainingError as err:
        return _refused(err.code, err.message)
    except StorageFull as err:
        return _refused(err.code, err.message, 503)


@train.post("/train/solve")
def train_solve() -> ResponseReturnValue:
    """One puzzle answered: solved or not, its answer once solved, both ratings."""
    posted = _posted()
    if isinstance(posted, Response):
        return posted
    player, body = posted
    first = body.get("first_try", True)
    if not isinstance(first, bool):
        return _refused("bad_payload", "first_try is true or false")
    try:
        return jsonify(
            _training().solve(player, body.get("puzzle"), body.get("cell"), first_try=first)
        )
    except TrainingError as err:
        return _refused(err.code, err.message)
    except StorageFull as err:
        return _refused(err.code, err.message, 503)
