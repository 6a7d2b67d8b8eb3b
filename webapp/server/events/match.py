"""Socket.IO handlers of the match against the AI and of History: check the payload,
call the match service, answer through the ack.

Each is attached through events/dispatch.py (``attach``, ``checked``); a refused event changes
nothing. The protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import request, session
from flask_socketio import SocketIO, join_room

from webapp.game.fairness import check_client_seed
from webapp.game.match import (
    Match,
    check_start,
    human_move,
    lock_difficulty,
    new_match,
    next_game,
    saw_position,
    take_back,
)
from webapp.game.rules import MatchError
from webapp.game.strategies import move_values
from webapp.server.events.connect import (
    SocketCaps,
    check_player,
    check_release,
    match_key_for,
    refused,
    tell_player,
)
from webapp.server.events.dispatch import (
    Handler,
    attach,
    checked,
    clients_of,
    joined,
    payer,
    player_id,
    players_of,
    socket_id,
)
from webapp.server.limits.costly_pages import CostlyAnswers, message
from webapp.server.limits.rates import RateLimits
from webapp.server.protocol.payload import variant_or_classic
from webapp.server.protocol.vocabulary import (
    OK,
    Ack,
    BadPayload,
    ErrorCode,
    Event,
    RefusalCode,
    error,
)
from webapp.server.services.history import history_game, history_of
from webapp.server.services.matches import MatchService
from webapp.server.services.odds import Odds
from webapp.server.services.rooms import RoomService
from webapp.server.services.targets import promise_of, target_of, tuned_answer, tuned_for

log = logging.getLogger("webapp.server.match_events")


def _client_seed(fields: dict[str, Any]) -> str | None:
    seed = fields.get("client_seed")
    return None if seed is None else check_client_seed(seed)


def register(
    socketio: SocketIO,
    service: MatchService,
    limits: RateLimits,
    caps: SocketCaps,
    max_payload: int,
    odds: Odds,
    rooms: RoomService,
    *,
    costly: CostlyAnswers,
) -> None:
    """Attach the protocol's handlers to ``socketio``."""

    def on(event: Event) -> Callable[[Handler], Any]:
        return lambda handler: attach(socketio, event, checked(max_payload, event)(handler))

    views: dict[str, str] = {}  # socket -> the match it shows: the player's, or practice

    def match_key() -> str:
        return views.get(socket_id()) or player_id()

    @socketio.on("connect")
    def on_connect(auth: object = None) -> None:
        # A cookie kept from before "Delete everything", or a page made before it.
        check_player(socketio, session.get("player"), auth)
        if "player" not in session:
            raise refused(RefusalCode.NO_SESSION, "no session: load the page first")
        check_release(auth)
        player = player_id()
        eio_sid = socketio.server.manager.eio_sid_from_sid(socket_id(), "/")
        wait = limits.cooldown_left(player)
        if wait:
            # Nothing more is read from this connection: it closes once told why.
            limits.cut(eio_sid)
            socketio.start_background_task(socketio.server.eio.disconnect, eio_sid)
            raise refused(RefusalCode.COOLDOWN, f"too many events: wait {wait:.0f} s", seconds=wait)
        limits.bind(eio_sid, player)
        players_of(socketio)[socket_id()] = player
        caps.join(player, str(request.remote_addr), socket_id())
        joined(socketio, request.environ)
        key = views[socket_id()] = match_key_for(player, auth)
        join_room(key)
        match = service.open(key)
        service.emit(key, match, to=socket_id())
        tell_player(socketio, player, socket_id())
        service.schedule_ai(key, match)

    @socketio.on("disconnect")
    def on_disconnect(reason: object = None, *_: object) -> None:
        eio_sid = socketio.server.manager.eio_sid_from_sid(socket_id(), "/")
        if reason == socketio.server.reason.SERVER_DISCONNECT and eio_sid:
            # Sent away (a deleted player): its Engine.IO connection goes too, so that
            # nothing is left open to join again on. (Without an id, Engine.IO's
            # disconnect would close every connection.)
            socketio.start_background_task(socketio.server.eio.disconnect, eio_sid)
        caps.leave(player_id(), str(request.remote_addr), socket_id())
        views.pop(socket_id(), None)
        players_of(socketio).pop(socket_id(), None)
        clients_of(socketio).pop(socket_id(), None)
        rooms.gone(socket_id())

    @on(Event.MOVE)
    def on_move(fields: dict[str, Any]) -> Ack:
        if "cell" not in fields:
            raise BadPayload('a move needs a cell: {"cell": 0..8}')
        seen = fields.get("version")  # each field's type is checked with the payload
        key = match_key()
        unrevealed = service.unrevealed(key)

        def move(match: Match) -> Match:
            if seen is not None and not saw_position(match, seen):
                raise MatchError(
                    ErrorCode.STALE_VERSION, "the game moved on since that state: look again"
                )
            if match.version in unrevealed:
                raise MatchError(ErrorCode.NOT_YOUR_TURN, "wait for the AI's move")
            return human_move(match, fields["cell"])

        service.change(key, move)
        return OK

    @on(Event.NEXT_GAME)
    def on_next_game(fields: dict[str, Any]) -> Ack:
        seed = _client_seed(fields)
        service.change(match_key(), lambda match: next_game(match, service.rng, client_seed=seed))
        return OK

    @on(Event.NEW_MATCH)
    def on_new_match(fields: dict[str, Any]) -> Ack:
        mode = fields.get("mode", "adaptive")
        if not isinstance(mode, str):
            raise MatchError(ErrorCode.BAD_SETTING, "mode must be a string")
        target = target_of(fields)
        answer, promise = OK, None
        if target is None:
            rules = odds.rules_of(fields)
        else:
            entries = service.history.games(player_id()) if service.history else []
            variant = variant_or_classic(fields)
            tuned, estimate = tuned_for(odds, payer(socketio), target, entries, variant)
            rules, promise = tuned.rules, promise_of(tuned, estimate)
            answer = {**OK, "tuned": tuned_answer(tuned, estimate)}
        seed = _client_seed(fields)
        first = fields.get("first", "toss")
        check_start(mode, first)
        if fields.get("check", False):
            return answer  # checked, and tuned, as a new match would be; nothing changed
        service.change(
            match_key(),
            lambda match: new_match(
                service.rng,
                mode=mode,
                rules=rules,
                client_seed=seed,
                version=match.version,
                first=first,
                server_seed=match.next_seed,
                promise=promise,
            ),
        )
        return answer

    @on(Event.LOCK_DIFFICULTY)
    def on_lock_difficulty(fields: dict[str, Any]) -> Ack:
        service.change(match_key(), lock_difficulty)
        return OK

    @on(Event.ODDS)
    def on_odds(fields: dict[str, Any]) -> Ack:
        current = fields.get("current", False)
        if current:
            if set(fields) - {"current", "skill"}:
                raise BadPayload("current odds take no rules: they are the match's own")
            match = service.open(match_key())
            entries = service.history.games(player_id()) if service.history else []
            found = odds.for_match(payer(socketio), match, fields.get("skill"), entries=entries)
            return {**OK, **found}
        return {**OK, "odds": odds.for_rules(payer(socketio), fields)}

    @on(Event.HINT)
    def on_hint(fields: dict[str, Any]) -> Ack:
        match = service.open(match_key())
        if match.game.turn != "human" or match.over:
            return {**OK, "analysis": {}}
        match = service.mark_hint(match_key(), match)
        return {**OK, "analysis": move_values(match.game.board)}

    @on(Event.TAKE_BACK)
    def on_take_back(fields: dict[str, Any]) -> Ack:
        service.change(match_key(), take_back)
        return OK

    @on(Event.HISTORY)
    def on_history(fields: dict[str, Any]) -> Ack:
        environ = socketio.server.get_environ(socket_id()) or {}
        wait = costly.retry_after(player_id(), environ.get("REMOTE_ADDR"))
        if wait:
            raise MatchError(ErrorCode.RATE_LIMITED, message("Your history", wait))
        return {**OK, **history_of(service.history, player_id(), service.open(match_key()))}

    @on(Event.HISTORY_GAME)
    def on_history_game(fields: dict[str, Any]) -> Ack:
        found = history_game(service.history, service.signer, player_id(), fields.get("id"))
        return {**OK, **found}

    @socketio.on("*")
    def on_unknown(event: object, *_: object) -> Ack:
        names = ", ".join(Event)
        return error(ErrorCode.UNKNOWN_EVENT, f"unknown event {event!r}: use {names}")

    @socketio.on_error_default
    def on_error(err: Exception) -> Ack:
        log.exception("unexpected error in a socket handler", exc_info=err)
        return error(ErrorCode.INTERNAL, "the server failed to handle this event")
