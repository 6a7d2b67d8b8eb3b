"""The room service's writes: pure transitions of a stored room, each returning what to
store and what to push (``Written``), as the match service's are
(webapp/server/services/match_writes.py).

The store's compare-and-set ``write`` may apply one more than once; each is a function
of the room it is handed and of the values passed to it (the time, how many rooms a
player holds), so it reads no store and calls nothing of the service.
"""

from __future__ import annotations

from collections.abc import Callable

from webapp.game.room import Room, RoomError, expired
from webapp.server.protocol.vocabulary import ErrorCode
from webapp.server.store.matches import Written

Step = Callable[[Room], Room]


class SeatsUncounted(Exception):
    """A change would seat a player in one more online room, and how many they hold
    already was not counted: count them, then write again (on ``room``, as read)."""

    def __init__(self, room: Room) -> None:
        super().__init__("count the player's rooms")
        self.room = room


def too_many_rooms(max_rooms: int) -> RoomError:
    """The refusal of one more seat to a player who holds ``max_rooms`` already."""
    return RoomError(
        ErrorCode.TOO_MANY_ROOMS, f"you have {max_rooms} rooms open already: leave one first"
    )


def live(step: Step, now: float, idle_seconds: float, current: Room | None) -> Written[Room]:
    """``step`` applied to a live room, pushed to everyone in it; ``room_not_found`` if
    there is none or it has expired."""
    if current is None or expired(current, now=now, idle_seconds=idle_seconds):
        raise RoomError(ErrorCode.ROOM_NOT_FOUND, "this room has ended or expired")
    after = step(current)
    return Written(after, current, (after,))


def capped(step: Step, player: str, held: int | None, max_rooms: int, room: Room) -> Room:
    """``step``, refused if it seats ``player`` in one more online room while they hold
    ``max_rooms`` already; ``held``: how many they hold (None: not counted yet, and
    ``SeatsUncounted`` is raised if the step seats them)."""
    after = step(room)
    if after.kind != "online" or after.seats_of(player) == room.seats_of(player):
        return after
    if held is None:
        raise SeatsUncounted(room)
    if held >= max_rooms:
        raise too_many_rooms(max_rooms)
    return after
