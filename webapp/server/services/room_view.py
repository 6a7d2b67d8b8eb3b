"""What everyone in a room sees: who is there, and the ``room`` snapshot they render.

Who is connected, and how many watch, is presence (webapp/server/limits/presence.py), not
stored: each socket is counted under the room while it is open (``Visits``), a seated
player's under their seat, a spectator's under the room's cap of watchers. The snapshot
is the same for everyone: each seat is named by its token (``seat_token``), which only
its holder's own ``room_join`` answer reveals as theirs.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from webapp.game.room import SEATS, Room, RoomError
from webapp.server.limits.presence import Presence
from webapp.server.protocol.vocabulary import ErrorCode

LOCAL = "local"  # a player's room on one device is asked for by this name
Token = Callable[[str, str | None], str | None]


@dataclass(frozen=True)
class Visit:
    """One socket in one room: who it is and whether it holds a seat there."""

    room_id: str
    player: str
    watching: bool


class Visits:
    """The rooms each open socket is in, each counted in presence."""

    def __init__(self, presence: Presence, max_watchers: int) -> None:
        self.presence, self.max_watchers = presence, max_watchers
        self.of: dict[str, set[Visit]] = {}  # sid -> the rooms that socket is in

    def count(self, sid: str, visit: Visit) -> bool:
        """Count a socket in a room; False if it was counted there already."""
        if visit in self.of.get(sid, set()):
            return False
        key, cap = f"room:{visit.room_id}:" + ("watch" if visit.watching else visit.player), 0
        if visit.watching:
            cap = self.max_watchers
            if cap == 0 or not self.presence.join(key, sid, cap):
                raise RoomError(
                    ErrorCode.TOO_MANY_WATCHERS, "this room has as many watchers as it can take"
                )
        else:
            self.presence.join(key, sid, cap)
        self.of.setdefault(sid, set()).add(visit)
        return True

    def stop_watching(self, sid: str, room_id: str, player: str) -> None:
        """The socket no longer counts as watching the room (it took a seat)."""
        visit = Visit(room_id, player, watching=True)
        if visit in self.of.get(sid, set()):
            self.of[sid].discard(visit)
            self.presence.leave(f"room:{room_id}:watch", sid)

    def gone(self, sid: str) -> Iterator[str]:
        """A socket closed: stop counting it in each room it was in, and yield the room."""
        for visit in self.of.pop(sid, set()):
            suffix = "watch" if visit.watching else visit.player
            self.presence.leave(f"room:{visit.room_id}:{suffix}", sid)
            yield visit.room_id


def seat_token(key: bytes, room_id: str, player: str | None) -> str | None:
    """A seat's public name: the same for its holder's every tab, and nothing else."""
    if player is None:
        return None
    message = f"{room_id}:{player}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:16]


def snapshot(room: Room, presence: Presence, token: Token) -> dict[str, Any]:
    """The ``room`` event: everything a player or a spectator renders."""
    line = room.line
    score = room.score
    return {
        "id": room.id if room.kind == "online" else LOCAL,
        "kind": room.kind,
        "version": room.version,
        "status": room.status,
        "game": room.game_number,
        "variant": room.variant.name,
        "board": str(room.position).replace("/", ""),
        "dead": list(room.dead_boards),
        "moves": list(room.moves),
        "x_seat": room.x_seat,
        "turn": room.turn,
        "winner": room.winner,
        "resigned": room.resigned,
        "winning_line": list(line) if line else None,
        "rematch": sorted(room.rematch),
        "score": {
            "seat_wins": list(score.seat_wins),
            "x_wins": score.x_wins,
            "o_wins": score.o_wins,
            "draws": score.draws,
        },
        "seats": [_seat(room, seat, presence, token) for seat in SEATS],
        "left": room.left,
        "former": room.former,
        "taken": room.taken,
        "watching": presence.count(f"room:{room.id}:watch"),
    }


def _seat(room: Room, seat: int, presence: Presence, token: Token) -> dict[str, Any]:
    holder = room.seats[seat]
    connected = holder is not None and presence.count(f"room:{room.id}:{holder}") > 0
    return {
        "token": token(room.id, holder),
        "connected": connected,
        "name": room.names[seat],
    }
