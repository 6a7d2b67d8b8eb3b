"""Who may open a socket, and what it shows: caps per player and per address, the page's
release, and the match it views (the player's own, or their practice game); and the
sockets of a deleted player refused or detached."""

from __future__ import annotations

from flask import current_app
from flask_socketio import ConnectionRefusedError, SocketIO

from webapp import __version__
from webapp.server.events.dispatch import was_deleted
from webapp.server.limits.presence import Presence
from webapp.server.limits.rates import address_key
from webapp.server.protocol.vocabulary import RefusalCode, ServerEvent
from webapp.server.services.matches import practice_key
from webapp.server.services.page_player import page_player, page_token


class SocketCaps:
    """Caps on open sockets per player (tabs) and per client address (0: no cap)."""

    def __init__(self, presence: Presence, *, per_player: int, per_address: int) -> None:
        self.presence, self.per_player, self.per_address = presence, per_player, per_address

    def join(self, player: str, address: str, sid: str) -> None:
        """Count a new socket, or refuse it with a message the page shows.

        An address counts as new players do (an IPv6 address by its /64), so a host
        holding a whole /64 cannot step around the cap.
        """
        if not self.presence.join(f"player:{player}", sid, self.per_player):
            raise refused(
                RefusalCode.TOO_MANY_SOCKETS,
                f"this game is open in too many tabs ({self.per_player} at most): close one",
            )
        if not self.presence.join(f"address:{address_key(address)}", sid, self.per_address):
            self.presence.leave(f"player:{player}", sid)
            raise refused(
                RefusalCode.TOO_MANY_SOCKETS,
                f"too many connections from your network ({self.per_address} at most)",
            )

    def leave(self, player: str, address: str, sid: str) -> None:
        """Stop counting a socket that has gone."""
        self.presence.leave(f"player:{player}", sid)
        self.presence.leave(f"address:{address_key(address)}", sid)


def refused(code: RefusalCode, message: str, **extra: object) -> ConnectionRefusedError:
    """A refusal whose connect_error carries ``message`` and ``data.code``."""
    return ConnectionRefusedError(message, {"code": str(code), **extra})


def match_key_for(player: str, auth: object) -> str:
    """The match a new socket shows: the player's own, or their practice game when the
    page says so (``auth.view`` is ``practice``)."""
    view = auth.get("view") if isinstance(auth, dict) else None
    return practice_key(player) if view == "practice" else player


def check_release(auth: object) -> None:
    """Refuse a page from another release, so that it reloads and gets this one."""
    release = auth.get("release") if isinstance(auth, dict) else None
    if release != __version__:
        raise refused(RefusalCode.RELOAD, "the server was updated: reload", release=__version__)


def tell_player(socketio: SocketIO, player: str, sid: str) -> None:
    """Tell a new socket whose it is: a token its page names in ``auth.page`` when it
    connects again, and sends with its forms (services/page_player.py)."""
    token = page_token(current_app.config, player)
    socketio.emit(ServerEvent.PLAYER, {"token": token}, to=sid)


def check_player(socketio: SocketIO, player: str | None, auth: object) -> None:
    """Refuse a socket whose cookie's ``player``, or whose page's (``auth.page``: a page
    first connected before "Delete everything", its cookie changed since), was deleted."""
    page = auth.get("page") if isinstance(auth, dict) else None
    for deleted in (player, page_player(current_app.config, page)):
        if deleted is not None and was_deleted(socketio, deleted):
            raise refused(RefusalCode.PLAYER_DELETED, "this player's data was deleted")


def detach(socketio: SocketIO, presence: Presence, player: str) -> None:
    """Tell every socket of a deleted ``player``, in every process, then disconnect it.

    Every socket of a player is in the room of the match it shows (the player's own, or
    their practice game), so one push reaches each; the disconnects follow it through
    the same message queue, in order, so each socket is told before it is closed.
    """
    told = {"message": "this player's data was deleted: the page starts afresh"}
    for room in (player, practice_key(player)):
        socketio.emit(ServerEvent.PLAYER_DELETED, told, to=room)
    for sid in presence.members(f"player:{player}"):
        socketio.server.disconnect(sid)
