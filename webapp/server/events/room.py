"""Socket.IO handlers for rooms: check the payload, call the room service, answer.

Every room event names its room (an invite's id, or ``local`` for the player's room on
this device) and is checked, rate-limited and answered like every other event
(events/dispatch.py); a refused one changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from flask_socketio import SocketIO

from webapp.game.board import Board
from webapp.game.room import (
    Room,
    RoomError,
    leave,
    rematch,
    resign,
    room_move,
    set_name,
    take_back,
)
from webapp.game.strategies import move_values
from webapp.server.events.dispatch import Handler, attach, checked, player_id, socket_id
from webapp.server.protocol.payload import variant_payload
from webapp.server.protocol.vocabulary import OK, Ack, BadPayload, ErrorCode, Event
from webapp.server.services.rooms import RoomService

Action = Callable[[Room, str], Room]


class TimedAction(Protocol):
    """A step of the room's rules taken by a player at a time: take back, resign, rematch."""

    def __call__(self, room: Room, player: str, /, *, now: float) -> Room: ...


def _room(fields: dict[str, Any]) -> object:
    if "room" not in fields:
        raise BadPayload('name the room: {"room": "<id from the invite link>"} or "local"')
    return fields["room"]


def register_rooms(
    socketio: SocketIO, rooms: RoomService, max_payload: int, name_chars: int
) -> None:
    """Attach the room events' handlers to ``socketio``."""

    def on(event: Event) -> Callable[[Handler], Any]:
        return lambda handler: attach(socketio, event, checked(max_payload, event)(handler))

    def address() -> str | None:
        """The client address of the socket at hand (the proxy's word, if trusted)."""
        environ = socketio.server.get_environ(socket_id(), namespace="/") or {}
        return environ.get("REMOTE_ADDR")

    def act(fields: dict[str, Any], action: Action) -> Room:
        player = player_id()
        room_id = rooms.room_id(_room(fields), player)
        return rooms.change(room_id, lambda room: action(room, player))

    @on(Event.ROOM_JOIN)
    def on_room_join(fields: dict[str, Any]) -> Ack:
        variant = variant_payload(fields)
        joined = rooms.join(socket_id(), player_id(), _room(fields), address(), variant)
        return {**OK, **joined}

    @on(Event.ROOM_MOVE)
    def on_room_move(fields: dict[str, Any]) -> Ack:
        if "cell" not in fields:
            raise BadPayload('a move needs a cell: {"room": ..., "cell": 0..8}')
        seen = fields.get("version")  # each field's type is checked with the payload

        def move(room: Room, player: str) -> Room:
            if seen is not None and seen != room.version:
                raise RoomError(ErrorCode.STALE_VERSION, "the room moved on since that state")
            return room_move(room, player, fields["cell"], now=time.time())

        return {**OK, "version": act(fields, move).version}

    def acting(step: TimedAction) -> Handler:
        """A handler that takes one timed step of the game's rules in the room."""

        def handler(fields: dict[str, Any]) -> Ack:
            act(fields, lambda room, player: step(room, player, now=time.time()))
            return OK

        return handler

    for event, step in (
        (Event.ROOM_UNDO, take_back),
        (Event.ROOM_RESIGN, resign),
        (Event.ROOM_REMATCH, rematch),
    ):
        on(event)(acting(step))

    @on(Event.ROOM_LEAVE)
    def on_room_leave(fields: dict[str, Any]) -> Ack:
        left = act(fields, lambda room, player: leave(room, player, now=time.time()))
        rooms.forget(left.id, left)
        return OK

    @on(Event.ROOM_SIT)
    def on_room_sit(fields: dict[str, Any]) -> Ack:
        return {**OK, **rooms.sit(socket_id(), player_id(), _room(fields))}

    @on(Event.ROOM_NAME)
    def on_room_name(fields: dict[str, Any]) -> Ack:
        if "name" not in fields:
            raise BadPayload('a name is needed: {"room": ..., "name": "Ann"} ("" for none)')
        name = fields["name"]
        act(
            fields,
            lambda room, player: set_name(
                room, player, name, now=time.time(), max_chars=name_chars
            ),
        )
        return OK

    @on(Event.ROOM_HINT)
    def on_room_hint(fields: dict[str, Any]) -> Ack:
        player = player_id()
        room = rooms.load(rooms.room_id(_room(fields), player))
        if room is None:
            raise RoomError(ErrorCode.ROOM_NOT_FOUND, "this room has ended or expired")
        turn = room.turn
        if turn is None or room.seats[turn] != player:
            return {**OK, "analysis": {}}
        board = Board(str(room.position), room.variant)
        return {**OK, "analysis": move_values(board)}
