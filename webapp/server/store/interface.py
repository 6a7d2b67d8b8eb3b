"""What the two stores share: the interface, their errors, reading a stored match, the cap.

store/matches.py puts them to use (compare-and-set updates, choosing a store);
store/sqlite/matches.py and store/redis/matches.py implement the interface. The SQLite and
Redis halves of the history and of the rooms share their few pieces here too:
``not_kept``, the one log line for finished games not kept while the data is full;
``read_room`` and ``rooms_full``.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import logging
import threading
from typing import Protocol

import orjson

from webapp.game.board import RuleError
from webapp.game.history import Entry
from webapp.game.match import Match
from webapp.game.records import from_record
from webapp.game.room import Room, RoomError
from webapp.game.room import from_record as room_from_record
from webapp.game.signed import Data
from webapp.server.protocol.vocabulary import ErrorCode
from webapp.server.store.bounded import LastUsed

log = logging.getLogger("webapp.server.store")
# What rebuilding a match from stored bytes may raise when the bytes are not a match
# (MatchError and orjson's JSONDecodeError are ValueErrors).
UNREADABLE = (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError)
DAMAGED_DAYS = 30  # how long a match moved aside is kept for inspection
RECENT_ROWS = 2048  # parsed matches a store keeps in memory (Recent)


class Store(Protocol):
    """Storage for one match per player."""

    def load(self, player: str) -> Match | None:
        """The player's match, or None if there is none; raises Damaged (once) if unreadable."""

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        """Write ``match`` if the stored version is still ``expected`` (None: no row yet)."""

    def recent(self, player: str) -> Match | None:
        """The match as this process last saved or read it, without reading the store,
        or None if it no longer remembers one. It may be stale: a change made on it is
        checked by compare-and-set (``write``, store/matches.py)."""

    def delete(self, player: str) -> None:
        """Forget the player's match."""

    def prune(self, idle_seconds: float) -> int:
        """Delete matches untouched for ``idle_seconds``; return how many."""

    def check(self) -> str | None:
        """None if the store can be read and written now, else what is wrong."""

    def count(self) -> int:
        """How many matches are stored."""

    def size(self) -> tuple[int, int]:
        """The data's bytes in use, and its ceiling's (0: none)."""

    def close(self) -> None:
        """Release the store's resources."""


class Conflict(RuntimeError):
    """A write kept losing races; the request should be retried later."""


class Damaged(RuntimeError):
    """The player's stored match could not be read; it has been moved aside."""

    def __init__(self, player: str, reason: str) -> None:
        super().__init__(f"the stored match of {player} could not be read: {reason}")
        self.player, self.reason = player, reason


class StorageFull(RuleError):
    """A write that would grow the data past its ceiling (TICTACTOE_MAX_DATA_MB, or Redis's
    maxmemory); nothing was written."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.STORAGE_FULL, "the server's storage is full: try again later")


class Unreadable(ValueError):
    """Stored bytes that are not a match; the message says why."""


def parse(data: bytes) -> Match:
    """The match in stored bytes; raises Unreadable with the reason if it cannot be rebuilt."""
    try:
        return from_record(orjson.loads(data))
    except UNREADABLE as err:
        raise Unreadable(str(err)[:200] or type(err).__name__) from None


def moved_aside(player: str, reason: str) -> None:
    """The one log line for a damaged match moved aside."""
    log.warning("player %s: their stored match could not be read, moved aside: %s", player, reason)


@functools.cache  # once a process: the log line, not the games, is cached
def not_kept() -> None:
    """The one log line for finished games not kept because the data is full."""
    log.warning("the data is at its ceiling: finished games are not kept (logged once)")


def rooms_full(cap: int) -> RoomError:
    """The refusal of a new room past the global cap."""
    return RoomError(
        ErrorCode.ROOMS_FULL,
        f"the server holds as many open rooms as it can ({cap}): try again later",
    )


def read_room(room_id: str, data: bytes) -> Room | None:
    """The stored room, or None (logged) when its bytes are not a room."""
    try:
        return room_from_record(orjson.loads(data))
    except (RoomError, ValueError, TypeError, KeyError, IndexError) as err:
        log.warning("room %s could not be read and is deleted: %s", room_id, str(err)[:200])
        return None


class Recent:
    """The matches this process saved or read last, each with the digest of the stored
    bytes it was parsed from or written as: ``size`` players at most, the least recent
    dropped first.

    A match is reused while the stored bytes are exactly these (which saves rebuilding it
    on every event), and handed out unread as the process's latest (``Store.recent``).
    The bytes' SHA-256 is kept rather than the bytes: 32 bytes a player instead of about
    4 KB, for about 2.5 us of hashing a save or a read.
    """

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._rows: LastUsed[str, tuple[bytes, Match]] = LastUsed(size)

    def __len__(self) -> int:
        return len(self._rows)

    def match(self, player: str) -> Match | None:
        """The match remembered for ``player``, or None."""
        row = self._rows.get(player)
        return row[1] if row else None

    def parsed(self, player: str, data: bytes) -> Match | None:
        """The match remembered for ``player`` if it was read or written as ``data``."""
        row = self._rows.get(player)
        if row is None or row[0] != hashlib.sha256(data).digest():
            return None
        with self._lock:
            self._rows.touch(player)
        return row[1]

    def put(self, player: str, data: bytes, match: Match) -> None:
        """Remember ``match``, stored as ``data``, as ``player``'s latest."""
        digest = hashlib.sha256(data).digest()
        with self._lock:
            self._rows.put(player, (digest, match))

    def drop(self, player: str | None = None) -> None:
        """Forget ``player``'s match (None: everyone's)."""
        with self._lock:
            if player is None:
                self._rows.clear()
            else:
                self._rows.pop(player, None)


class Cap:
    """A store's size cap (0: none), and the one log line the first time it prunes."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.told = False

    def pruned(self, count: int) -> None:
        """Note ``count`` matches deleted to make room; the first time, say so in the log."""
        if count > 0 and not self.told:
            self.told = True
            log.warning(
                "the store is full (TICTACTOE_MAX_MATCHES=%d): the longest idle matches are"
                " deleted to make room for new ones (logged once)",
                self.limit,
            )


Signed = tuple[Entry, Data | None]  # a stored game and its signed record, if it has one


class SignedGames(abc.ABC):
    """A history backend's reads: each reads the signed games, the plain ones follow."""

    @abc.abstractmethod
    def signed_games(self, player: str) -> list[Signed]:
        """The player's stored games, newest first, each with its stored signed record."""

    @abc.abstractmethod
    def signed_game(self, game_id: str) -> tuple[str, Signed] | None:
        """A game by its share id, with its player and signed record; None if unknown."""

    def games(self, player: str) -> list[Entry]:
        """The player's stored games, newest first."""
        return [entry for entry, _ in self.signed_games(player)]

    def game(self, game_id: str) -> tuple[str, Entry] | None:
        """A game by its share id, with its player; None if unknown."""
        found = self.signed_game(game_id)
        return None if found is None else (found[0], found[1][0])
