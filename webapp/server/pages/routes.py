"""The pages: the game, rooms with a friend, and the health check for supervisors and proxies.

A browser without a session gets a new player id in its cookie, and nothing is stored
for it until it acts. New players are limited per client address (``request.remote_addr``,
which is the proxy's X-Forwarded-For when TICTACTOE_TRUST_PROXY is on; an IPv6 address
counts by its /64): counted in clock minutes, by all processes together when they share
Redis.
"""

from __future__ import annotations

import functools
import math
import secrets

import segno
from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue

from webapp import __version__
from webapp.game.board import RuleError
from webapp.game.history import kind_of, reviewed
from webapp.game.odds import tunable
from webapp.game.position import Position
from webapp.game.rules import RULE_FIELDS
from webapp.game.variant import CLASSIC, MEANINGS, VARIANTS, Variant, variant_named
from webapp.server.limits.rates import address_key
from webapp.server.limits.shared_counts import Tally
from webapp.server.pages.health import OK
from webapp.server.protocol.vocabulary import MODE_CHOICES, PRESET_CHOICES, ErrorCode
from webapp.server.services.rooms import ONLINE_ID, RoomService, TooManyNewRooms
from webapp.server.services.signed_history import signed_game
from webapp.server.services.targets import PAGE_TARGET_PERCENT
from webapp.server.store.signing import KEYS_PATH

pages = Blueprint("pages", __name__)
MINUTE = 60.0
QR_CODES_KEPT = 1024  # invite links whose QR code is kept drawn
TOO_MANY_NEW_PLAYERS = """<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Too many new players</title>
<h1>Too many new players</h1>
<p>Too many new players were started from your address in the last minute.
Please wait a minute, then reload this page.</p>
</html>
"""


class NewPlayers:
    """New players started by each client address in the current clock minute."""

    def __init__(self, per_minute: int, tally: Tally) -> None:
        self.per_minute, self.tally = per_minute, tally

    def retry_after(self, address: str | None) -> float:
        """0 if ``address`` may start one more player (counted), else seconds until it may."""
        if not self.per_minute:
            return 0.0
        count, left = self.tally.bump(f"new-players:{address_key(address)}", MINUTE)
        return left if count > self.per_minute else 0.0


def _new_players() -> NewPlayers:
    found = current_app.extensions.get("new_players")
    if found is None:
        per_minute = int(current_app.config["NEW_PLAYERS_PER_MINUTE"])
        tally = current_app.extensions["tally"]
        found = current_app.extensions["new_players"] = NewPlayers(per_minute, tally)
    return found


def _player() -> Response | None:
    """Give a new browser its player id, or one whose player was deleted a new one; a 429
    page if its address started too many."""
    player = session.get("player")
    if player is not None and current_app.extensions["forgotten"].holds(str(player)):
        session.clear()  # a cookie kept from before "Delete everything": a new player
    if "player" not in session:
        wait = _new_players().retry_after(request.remote_addr)
        if wait:
            headers = {"Retry-After": str(max(1, math.ceil(wait)))}
            return Response(TOO_MANY_NEW_PLAYERS, 429, headers, mimetype="text/html")
        session["player"] = secrets.token_urlsafe(18)
    session.permanent = True
    return None


def _render(template: str, **context: object) -> str:
    transports = "websocket,polling" if current_app.config["POLLING"] else "websocket"
    return render_template(template, release=__version__, transports=transports, **context)


def game_missing(reason: str | None = None, *, status: int = 404) -> ResponseReturnValue:
    """The page of a game that is not there, saying why (by default: an unknown link, or
    a game deleted or no longer kept), with the way to the AI and to History."""
    return _render("game_missing.html", reason=reason), status


def player_page(template: str, **context: object) -> ResponseReturnValue:
    """A page of the player's own (``template``, with ``context``), giving a new browser
    its player id."""
    return _player() or _render(template, **context)


@pages.get("/")
def index() -> ResponseReturnValue:
    """The game against the AI; gives a new browser its player id in the session cookie."""
    return game_page()


def game_page(*, practice: bool = False) -> ResponseReturnValue:
    """The game page, showing the player's match, or their practice game."""
    return _player() or _render(
        "index.html",
        modes=MODE_CHOICES,
        rule_fields=RULE_FIELDS,
        presets=PRESET_CHOICES,
        target_bounds=PAGE_TARGET_PERCENT,
        variants=VARIANTS,
        meanings=MEANINGS,
        tunable={variant.name for variant in VARIANTS if tunable(variant)},
        practice=practice,
        deleted=session.pop("deleted", None),  # once, on the page "Delete everything" lands on
    )


@pages.get("/history")
def history_page() -> ResponseReturnValue:
    """The player's finished games, their lifetime figures, and each game's replay."""
    return _player() or _render("history.html")


@pages.get("/history/<game_id>")
def history_replay(game_id: str) -> ResponseReturnValue:
    """The History page with one of the player's games replayed: the replay's own
    address, to bookmark or reload; the page asks for the game (``history_game``)."""
    if not ONLINE_ID.fullmatch(game_id):
        return game_missing()
    return _player() or _render("history.html")


@pages.get("/g/<game_id>")
def shared_game(game_id: str) -> ResponseReturnValue:
    """A finished game's read-only replay by its share link: for anyone, no cookie needed."""
    history, signer = current_app.extensions["history"], current_app.extensions["signing"]
    found = signed_game(history, signer, game_id) if ONLINE_ID.fullmatch(game_id) else None
    if found is None or kind_of(found[1]) != "ai":  # a game with a friend is not shared
        return game_missing()
    entry, signed = found[1], found[2]
    data = {"game": entry, "signed_record": signed, "review": reviewed(entry)}
    # Its own player is told "you"; anyone else reads of "the player".
    mine = session.get("player") == found[0]
    return _render("shared.html", shared=True, data={**data, "mine": mine})


@pages.get("/lab")
def lab_page() -> ResponseReturnValue:
    """The lab: the AI's search on any position (``?board=XO..X....``, on any variant:
    ``&variant=4x4k4``), made visible; a board that cannot arise in a game of it is shown
    as the empty board, with the reason (an unknown variant as classic's)."""
    problem = None
    try:
        variant = variant_named(request.args.get("variant", CLASSIC.name))
    except RuleError as err:
        problem, variant = f"{err.message}: here is classic.", CLASSIC
    empty = str(Position.empty(variant))
    try:
        board = str(Position.parse(variant, request.args.get("board") or empty))
    except RuleError as err:
        problem = problem or f"That board cannot be shown ({err.message}): here is the empty one."
        board = empty
    context = {"variants": VARIANTS, "meanings": MEANINGS, "variant": variant}
    return _player() or _render("lab.html", board=board, problem=problem, **context)


@pages.get("/people")
def people_page() -> ResponseReturnValue:
    """ "Play a person": the rules chosen (``?variant=``, else classic), then a room with a
    friend or a game on this device."""
    chosen = request.args.get("variant", CLASSIC.name)
    context = {"variants": VARIANTS, "meanings": MEANINGS, "chosen": chosen}
    return _player() or _render("people.html", **context)


def _asked_variant(values: dict[str, str]) -> Variant | None:
    """The rule set a form asks for (None if it names none); RuleError if unknown."""
    name = values.get("variant")
    return None if name is None else variant_named(name)


def _room_page(room: str, kind: str, variant: Variant, **context: object) -> str:
    """A room's page, its board drawn for ``variant`` and its rule said."""
    return _render(
        "room.html",
        room=room,
        kind=kind,
        variant=variant,
        meaning=MEANINGS[variant.name],
        **context,
    )


@pages.get("/local")
def local_room() -> ResponseReturnValue:
    """Two players on this device: the player's own room, apart from their match, on the
    rule set asked for (``?variant=``), else the one it was played on."""
    refused = _player()
    if refused:
        return refused
    rooms: RoomService = current_app.extensions["rooms"]
    try:
        variant = _asked_variant(request.args) or rooms.local_variant(str(session["player"]))
    except RuleError as err:
        return _render("room_missing.html", reason=err.message, code=err.code), 400
    return _room_page("local", "local", variant, asked=variant.name)


@pages.post("/r")
def new_room() -> ResponseReturnValue:
    """ "Play a friend": a new room with this player in its first seat, then its page."""
    if not current_app.extensions["origin_check"](request.headers.get("Origin"), request.environ):
        return Response("This form must be sent from this site's own page.", 403)
    refused = _player()
    if refused:
        return refused
    rooms: RoomService = current_app.extensions["rooms"]
    try:
        variant = _asked_variant(request.form)
    except RuleError as err:
        return _render("room_missing.html", reason=err.message, code=err.code), 400
    try:
        room_id = rooms.create(str(session["player"]), request.remote_addr, variant or CLASSIC)
    except TooManyNewRooms as err:  # this address's new rooms this hour
        wait = {"Retry-After": str(max(1, math.ceil(err.retry_after)))}
        return _render("room_missing.html", reason=err.message, code=err.code), 429, wait
    except RuleError as err:  # this player's rooms, all rooms, or the data at its ceiling
        status = 429 if err.code == ErrorCode.TOO_MANY_ROOMS else 503
        return _render("room_missing.html", reason=err.message, code=err.code), status
    return redirect(url_for("pages.room_page", room_id=room_id), 303)


@pages.get("/r/<room_id>")
def room_page(room_id: str) -> ResponseReturnValue:
    """A room by its invite link; an unknown or expired one says so, and offers a new one."""
    refused = _player()
    if refused:
        return refused
    rooms: RoomService = current_app.extensions["rooms"]
    room = rooms.load(room_id) if ONLINE_ID.fullmatch(room_id) else None
    if room is None:
        reason = "This invite link is unknown, or its room has expired."
        return _render("room_missing.html", reason=reason), 404
    invite = url_for("pages.room_page", room_id=room_id, _external=True)
    return _room_page(room_id, "online", room.variant, invite=invite, qr=invite_qr(invite))


@functools.lru_cache(maxsize=QR_CODES_KEPT)
def invite_qr(invite: str) -> dict[str, object]:
    """An invite link's QR code, drawn once: a room's page is opened and reloaded often,
    and drawing the code costs more than the rest of the page."""
    return qr_path(segno.make(invite, error="m"))


def qr_path(qr: segno.QRCode) -> dict[str, object]:
    """The QR code as one SVG path of unit squares, and its size with the quiet zone."""
    size = qr.symbol_size(scale=1, border=4)[0]
    steps = [
        f"M{x + 4} {y + 4}h1v1h-1z"
        for y, row in enumerate(qr.matrix)
        for x, dark in enumerate(row)
        if dark
    ]
    return {"size": size, "path": "".join(steps)}


@pages.get("/healthz")
def healthz() -> ResponseReturnValue:
    """200 if the store, the secret key and the disk are fine, else 503 naming what is not;
    with how close the data is to each cap, and warnings that leave it healthy."""
    store, health = current_app.extensions["tictactoe"].store, current_app.extensions["health"]
    checks = health.checks(store)
    ok = all(state == OK for state in checks.values())
    usage = None
    if checks["store"] == OK:  # counted only in a store that answers
        usage = health.usage(
            store, current_app.extensions["rooms"].store, current_app.extensions["history"]
        )
    status = "ok" if ok else "failing"
    found = {"status": status, "version": __version__, "checks": checks, "usage": usage}
    warnings = health.warnings() if checks["store"] == OK else []  # Redis answers
    if warnings:  # what is wrong without making the server unhealthy
        found["warnings"] = warnings
    reply = jsonify(found)
    reply.headers["Cache-Control"] = "no-store"
    return reply, 200 if ok else 503


@pages.get(KEYS_PATH)
def signing_keys() -> ResponseReturnValue:
    """Every public key that signs (or signed) this server's game records, by id."""
    reply = jsonify(current_app.extensions["signing"].published())
    reply.headers["Cache-Control"] = "public, max-age=300"
    reply.headers["Access-Control-Allow-Origin"] = "*"  # public: any verifier may read it
    return reply
