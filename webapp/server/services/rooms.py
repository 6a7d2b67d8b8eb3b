"""The room service: rooms with a friend (or two players on one device), stored and pushed.

Like the match service, every change is a pure transition (webapp/game/room.py) run
through the store's compare-and-set loop, then pushed as one ``room`` snapshot to every
socket in the room (both players' tabs and the spectators), through the message queue
when there are several processes. Who is in the room and what the snapshot holds is
webapp/server/services/room_view.py's.

New rooms (with a friend, or on one device) are limited per client address as new
players are (an IPv6 address by its /64): ``TICTACTOE_NEW_ROOMS_PER_HOUR`` in a clock
hour, all processes together, so that one address holds at most that many times
``TICTACTOE_ROOM_IDLE_HOURS`` + 1 rooms at once (750 at the defaults), not the whole
``TICTACTOE_MAX_ROOMS`` that every player shares.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from collections.abc import Mapping
from functools import partial
from typing import Any

from flask_socketio import SocketIO

from webapp.game.history import friend_game
from webapp.game.room import (
    SEATS,
    Room,
    RoomError,
    Seat,
    change_variant,
    ended_game,
    expired,
    leave,
    open_room,
    take_free_seat,
    take_seat,
)
from webapp.game.variant import CLASSIC, Variant
from webapp.server.limits.presence import Presence
from webapp.server.limits.rates import address_key
from webapp.server.limits.shared_counts import LocalTally, Tally
from webapp.server.protocol.vocabulary import ErrorCode, ServerEvent
from webapp.server.services.room_view import LOCAL, Visit, Visits, seat_token, snapshot
from webapp.server.services.room_writes import SeatsUncounted, Step, capped, live, too_many_rooms
from webapp.server.store.history import HistoryStore
from webapp.server.store.matches import Written, write
from webapp.server.store.rooms import RoomStore

ONLINE_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")  # 16 random bytes, base64url
HOUR = 3600.0


class TooManyNewRooms(RoomError):
    """An address has opened its hour's share of new rooms; ``retry_after`` in seconds."""

    def __init__(self, per_hour: int, retry_after: float) -> None:
        minutes = max(1, math.ceil(retry_after / 60))
        super().__init__(
            ErrorCode.TOO_MANY_NEW_ROOMS,
            f"{per_hour} new rooms were opened from your network this hour:"
            f" try again in {minutes} minute{'s' if minutes > 1 else ''}",
        )
        self.retry_after = retry_after


def _whose(seat: Seat | None, viewer: Seat) -> str | None:
    """Who, from ``viewer``'s side, the seat that did something is: "human" (they did),
    "friend", or None (no one)."""
    return None if seat is None else "human" if seat == viewer else "friend"


class RoomService:
    """Opens, joins and changes rooms; pushes each change to everyone in the room."""

    def __init__(
        self,
        config: Mapping[str, Any],
        store: RoomStore,
        socketio: SocketIO,
        presence: Presence,
        history: HistoryStore | None = None,
        tally: Tally | None = None,
    ) -> None:
        self.store, self.socketio, self.presence = store, socketio, presence
        self.history = history
        self.tally = tally or LocalTally()  # new rooms by address, shared on Redis
        self.new_per_hour = int(config["NEW_ROOMS_PER_HOUR"])
        self.key = str(config["SECRET_KEY"] or "").encode()
        self.idle_seconds = float(config["ROOM_IDLE_HOURS"]) * 3600
        self.max_rooms = int(config["MAX_ROOMS_PER_PLAYER"])
        self.visits = Visits(presence, int(config["MAX_SPECTATORS"]))
        self.coin = secrets.SystemRandom()

    # --- ids and tokens ---------------------------------------------------------

    def room_id(self, asked: object, player: str) -> str:
        """The stored id of the room a client names: an invite's id, or ``local``."""
        if asked == LOCAL:
            return "local." + player
        if not isinstance(asked, str) or not ONLINE_ID.fullmatch(asked):
            raise RoomError(ErrorCode.ROOM_NOT_FOUND, "no such room: check the invite link")
        return asked

    def token(self, room_id: str, player: str | None) -> str | None:
        """A seat's public name: the same for its holder's every tab, and nothing else."""
        return seat_token(self.key, room_id, player)

    # --- loading and changing ---------------------------------------------------

    def load(self, room_id: str) -> Room | None:
        """The live room, or None when there is none or it has expired."""
        room = self.store.load(room_id)
        if room is None or expired(room, now=time.time(), idle_seconds=self.idle_seconds):
            return None
        return room

    def _seats_left(self, player: str) -> None:
        """Refuse one more seat to a player who holds one in ``max_rooms`` rooms already."""
        if len(self.store.online_rooms_of(player)) >= self.max_rooms:
            raise too_many_rooms(self.max_rooms)

    def _new_room_from(self, address: str | None) -> None:
        """Count one more new room from ``address``; refuse it past the hour's share."""
        if not self.new_per_hour:
            return
        count, left = self.tally.bump(f"new-rooms:{address_key(address)}", HOUR)
        if count > self.new_per_hour:
            raise TooManyNewRooms(self.new_per_hour, left)

    def create(self, player: str, address: str | None, variant: Variant = CLASSIC) -> str:
        """A new online room on ``variant`` with ``player`` in its first seat, opened
        from client ``address``; returns its id."""
        self._seats_left(player)
        self._new_room_from(address)
        room_id = secrets.token_urlsafe(16)
        room = open_room(room_id, player, kind="online", now=time.time(), variant=variant)
        self.store.save(room_id, room, expected=None)
        return room_id

    def change(self, room_id: str, step: Step, *, deleted: str | None = None) -> Room:
        """Apply one transition to a live room, store it, keep a game it ended in both
        players' history (not in that of ``deleted``, whose data is being deleted), and
        push it to the room."""
        written = self._write(room_id, step)
        if written.before is not None:  # the room the stored change was made on
            self.keep_if_ended(written.before, written.value, deleted=deleted)
        for room in written.pushes:
            self.push(room)
        return written.value

    def keep_if_ended(self, before: Room, after: Room, *, deleted: str | None = None) -> None:
        """Store the game that this change ended (played out, resigned, or cut short by a
        player who left it) in each of its players' history, as a game with a friend (a
        room on one device keeps none)."""
        game = ended_game(before, after) if self.history is not None else None
        if game is None or self.history is None:
            return
        ended = time.time()
        for seat in SEATS:
            player = game.players[seat]
            if player is None or player == deleted:
                continue
            result = "draw" if game.winner is None else "win" if game.winner == seat else "loss"
            entry = friend_game(
                game.moves,
                mine="X" if seat == game.x_seat else "O",
                result=result,
                resigned=_whose(game.resigned, seat),
                forfeit=_whose(game.forfeit, seat),
                game=game.number,
                game_id=secrets.token_urlsafe(16),
                ended=ended,
                variant=after.variant,
            )
            self.history.add(player, f"room:{after.id}:{after.version}", entry)

    def _write(self, room_id: str, step: Step, *, known: Room | None = None) -> Written[Room]:
        """One compare-and-set write of ``step`` on the live room (pure: ``live``)."""
        transition = partial(live, step, time.time(), self.idle_seconds)
        return write(self.store, room_id, transition, known=known)

    def _seat(self, room_id: str, player: str, step: Step) -> Written[Room]:
        """``step``, which may seat ``player``, written; their rooms are counted (and one
        more seat refused past ``max_rooms``) only if it does, so once a seat taken."""
        try:
            return self._write(room_id, partial(capped, step, player, None, self.max_rooms))
        except SeatsUncounted as uncounted:
            held, read = len(self.store.online_rooms_of(player)), uncounted.room
        return self._write(room_id, partial(capped, step, player, held, self.max_rooms), known=read)

    def join(
        self,
        sid: str,
        player: str,
        asked: object,
        address: str | None,
        variant: Variant | None = None,
    ) -> dict[str, Any]:
        """Put a socket (from client ``address``) in a room: the free seat of a room that
        never lost a player is taken, else it watches; the player's room on this device
        is opened if need be, on ``variant`` if given (a new series if it was on
        another). Returns the ack's fields: the room's id and the token of the viewer's
        seat (None for a spectator)."""
        room_id = self.room_id(asked, player)
        if room_id.startswith("local."):
            self._open_local(room_id, player, address, variant)
        coin = self._toss()
        # Capped on joining as on creating.
        written = self._seat(
            room_id, player, lambda room: take_seat(room, player, coin=coin, now=time.time())
        )
        room = written.value
        watching = not room.seats_of(player)
        counted = self.visits.count(sid, Visit(room_id, player, watching))
        self.socketio.server.enter_room(sid, f"room:{room_id}", namespace="/")
        # A seat taken, or one more connected or watching: everyone sees it. A socket
        # that asks again changes nothing, so only it is answered.
        self.push(room, to=None if room is not written.before or counted else sid)
        return {
            "room": room.id if room.kind == "online" else LOCAL,
            "you": None if watching else self.token(room_id, player),
        }

    def _open_local(
        self, room_id: str, player: str, address: str | None, variant: Variant | None
    ) -> None:
        """The player's room on this device, opened on ``variant`` or changed to it."""
        stored = self.store.load(room_id)
        if stored is None:
            self._new_room_from(address)
            now = time.time()
            room = open_room(room_id, player, kind="local", now=now, variant=variant or CLASSIC)
            self.store.save(room_id, room, expected=None)
        elif variant is not None and stored.variant != variant:
            self._write(room_id, lambda room: change_variant(room, variant, now=time.time()))

    def local_variant(self, player: str) -> Variant:
        """The rule set of the player's room on this device (classic when there is none)."""
        room = self.load("local." + player)
        return CLASSIC if room is None else room.variant

    def sit(self, sid: str, player: str, asked: object) -> dict[str, Any]:
        """A spectator's socket takes the free seat, as they asked; answers as ``join``."""
        room_id = self.room_id(asked, player)
        coin = self._toss()
        room = self._seat(
            room_id, player, lambda room: take_free_seat(room, player, coin=coin, now=time.time())
        ).value
        self.visits.stop_watching(sid, room_id, player)
        self.visits.count(sid, Visit(room_id, player, watching=False))
        self.socketio.server.enter_room(sid, f"room:{room_id}", namespace="/")
        self.push(room)
        return {"room": room.id, "you": self.token(room_id, player)}

    def _toss(self) -> Seat:
        return 0 if self.coin.random() < 0.5 else 1

    def gone(self, sid: str) -> None:
        """A socket closed: stop counting it, and tell the rooms it was in."""
        for room_id in self.visits.gone(sid):
            room = self.load(room_id)
            if room is not None:
                self.push(room)

    def leave_all(self, player: str) -> None:
        """Free every seat the player holds, and delete their room on this device."""
        for room_id in self.store.online_rooms_of(player):
            try:
                left = self.change(
                    room_id,
                    lambda r: leave(r, player, now=time.time(), erased=True),
                    deleted=player,
                )
                self.forget(room_id, left)
            except RoomError:
                continue  # gone or left meanwhile
        self.store.delete("local." + player)

    def forget(self, room_id: str, room: Room) -> None:
        """Delete a room no one holds a seat in any more."""
        if room.empty:
            self.store.delete(room_id)

    # --- the snapshot -------------------------------------------------------------

    def push(self, room: Room, *, to: str | None = None) -> None:
        """Send the room's snapshot to one socket, or to everyone in the room."""
        self.socketio.emit(ServerEvent.ROOM, self.snapshot(room), to=to or f"room:{room.id}")

    def snapshot(self, room: Room) -> dict[str, Any]:
        """The ``room`` event: everything a player or a spectator renders."""
        return snapshot(room, self.presence, self.token)
