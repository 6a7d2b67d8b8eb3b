"""The Socket.IO protocol's vocabulary: events, error codes, each event's fields, acks.

docs/protocol.md describes these; static/js/protocol.js holds the page's copy of the
names, and a test checks that all three agree. protocol/payload.py checks a payload against
``FIELDS``; protocol/snapshot.py draws the ``state`` event.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from webapp.game.board import RuleError, cell_name
from webapp.game.rules import MODES, PRESETS, RULE_FIELDS

Ack = dict[str, Any]
OK: Ack = {"ok": True}


class Event(StrEnum):
    """What a client may send."""

    MOVE = "move"
    NEXT_GAME = "next_game"
    NEW_MATCH = "new_match"
    LOCK_DIFFICULTY = "lock_difficulty"
    ODDS = "odds"
    HINT = "hint"
    TAKE_BACK = "take_back"
    ROOM_JOIN = "room_join"
    ROOM_MOVE = "room_move"
    ROOM_UNDO = "room_undo"
    ROOM_RESIGN = "room_resign"
    ROOM_REMATCH = "room_rematch"
    ROOM_LEAVE = "room_leave"
    ROOM_HINT = "room_hint"
    ROOM_SIT = "room_sit"
    ROOM_NAME = "room_name"
    HISTORY = "history"
    HISTORY_GAME = "history_game"
    LAB_CHILDREN = "lab_children"
    LAB_PAGE = "lab_page"
    LAB_COUNTS = "lab_counts"


class ServerEvent(StrEnum):
    """What the server pushes."""

    STATE = "state"
    ROOM = "room"
    PROBLEM = "problem"
    NOTICE = "notice"
    PLAYER_DELETED = "player_deleted"
    PLAYER = "player"


class ErrorCode(StrEnum):
    """Why an event was refused; stable, for clients to act on."""

    BAD_PAYLOAD = "bad_payload"
    CELL_OUT_OF_RANGE = "cell_out_of_range"
    CELL_TAKEN = "cell_taken"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_VERSION = "stale_version"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"
    BAD_SETTING = "bad_setting"
    RATE_LIMITED = "rate_limited"
    UNKNOWN_EVENT = "unknown_event"
    BUSY = "busy"
    BAD_PACKET = "bad_packet"
    ROOM_NOT_FOUND = "room_not_found"
    NOT_SEATED = "not_seated"
    NOT_ALLOWED = "not_allowed"
    GAME_NOT_OVER = "game_not_over"
    TOO_MANY_ROOMS = "too_many_rooms"
    TOO_MANY_WATCHERS = "too_many_watchers"
    ROOMS_FULL = "rooms_full"
    TOO_MANY_NEW_ROOMS = "too_many_new_rooms"
    NO_FREE_SEAT = "no_free_seat"
    BAD_NAME = "bad_name"
    STORAGE_FULL = "storage_full"
    GAME_NOT_FOUND = "game_not_found"
    BAD_BOARD = "bad_board"
    TOO_COSTLY = "too_costly"
    BAD_STEP = "bad_step"
    PLAYER_DELETED = "player_deleted"
    INTERNAL = "internal"
    DEAD_BOARD = "dead_board"
    CLASSIC_ONLY = "classic_only"


class RefusalCode(StrEnum):
    """Why a connection was refused (the ``data.code`` of Socket.IO's connect_error)."""

    NO_SESSION = "no_session"
    RELOAD = "reload"
    COOLDOWN = "cooldown"
    TOO_MANY_SOCKETS = "too_many_sockets"
    PLAYER_DELETED = "player_deleted"


class NoticeCode(StrEnum):
    """What a ``notice`` tells the player (the ``code`` of its payload)."""

    MATCH_UNREADABLE = "match_unreadable"


class Kind(StrEnum):
    """The one type a payload's field may have."""

    INTEGER = "integer"
    STRING = "string"
    BOOLEAN = "boolean"
    RULES = "rules"  # an object of rule names and integers
    NUMBER = "number"  # an integer or a finite decimal


@dataclass(frozen=True)
class Field:
    """A payload field's type; ``null_is_absent``: ``null`` is taken as the field left out."""

    kind: Kind
    null_is_absent: bool = False


INTEGER, STRING, BOOLEAN, RULES, NUMBER = (Field(kind) for kind in Kind)
VERSION = Field(Kind.INTEGER, null_is_absent=True)
ROOM = {"room": STRING}
# The fields each event's payload may carry, each with its one type (docs/protocol.md).
FIELDS: dict[Event, dict[str, Field]] = {
    Event.MOVE: {"cell": INTEGER, "version": VERSION},
    Event.NEXT_GAME: {"client_seed": Field(Kind.STRING, null_is_absent=True)},
    Event.NEW_MATCH: {
        "mode": STRING,
        "preset": STRING,
        "rules": RULES,
        "human_hp": INTEGER,
        "ai_hp": INTEGER,
        "client_seed": STRING,
        "first": STRING,
        "check": BOOLEAN,
        "target": NUMBER,
        "variant": STRING,
    },
    Event.LOCK_DIFFICULTY: {},
    Event.ODDS: {
        "preset": STRING,
        "rules": RULES,
        "current": BOOLEAN,
        "skill": NUMBER,
        "variant": STRING,
    },
    Event.HINT: {},
    Event.ROOM_JOIN: {**ROOM, "variant": STRING},
    Event.ROOM_MOVE: {**ROOM, "cell": INTEGER, "version": VERSION},
    Event.ROOM_UNDO: ROOM,
    Event.ROOM_RESIGN: ROOM,
    Event.ROOM_REMATCH: ROOM,
    Event.ROOM_LEAVE: ROOM,
    Event.ROOM_HINT: ROOM,
    Event.ROOM_SIT: ROOM,
    Event.ROOM_NAME: {**ROOM, "name": STRING},
    Event.TAKE_BACK: {},
    Event.HISTORY: {},
    Event.HISTORY_GAME: {"id": STRING},
    Event.LAB_CHILDREN: {
        "board": STRING,
        "path": STRING,
        "scoring": STRING,
        "depth": INTEGER,
        "variant": STRING,
    },
    Event.LAB_PAGE: {
        "board": STRING,
        "variant": STRING,
        "scoring": STRING,
        "prune": BOOLEAN,
        "table": BOOLEAN,
        "symmetry": BOOLEAN,
        "depth": INTEGER,
        "start": INTEGER,
        "size": INTEGER,
    },
    Event.LAB_COUNTS: {"board": STRING, "scoring": STRING, "depth": INTEGER, "variant": STRING},
}
CELL_NAMES = tuple(cell_name(cell) for cell in range(9))
# Each mode's name and one line about it, as the new-match form shows them.
MODE_CHOICES: dict[str, tuple[str, str]] = {
    "adaptive": ("Adaptive", "Hit points decide how often it plays perfectly"),
    "easy": ("Easy", "Plays at random"),
    "medium": ("Medium", "Picks the move with the best odds"),
    "hard": ("Hard", "Looks two moves ahead"),
    "impossible": ("Impossible", "Perfect play: it never loses"),
}
assert tuple(MODE_CHOICES) == MODES, "every mode needs a name and a description"
# Each preset's name, one line about it and its numbers, as the settings show them.
PRESET_CHOICES: dict[str, tuple[str, str, dict[str, int]]] = {
    name: (
        name.capitalize(),
        description,
        {rule.name: getattr(PRESETS[name], rule.name) for rule in RULE_FIELDS},
    )
    for name, description in (
        ("classic", "The original rules"),
        ("gentle", "Even a player who moves at random wins a match now and then"),
        ("fair", "A perfect player wins at least 99% of matches, a random one under 1%"),
        ("brutal", "Even a perfect player loses at least 40% of matches"),
    )
}
assert tuple(PRESET_CHOICES) == tuple(PRESETS), "every preset needs a name and a description"


class BadPayload(RuleError):
    """An event whose payload is not what the protocol allows; ``field`` names a rule."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(ErrorCode.BAD_PAYLOAD, message)
        self.field = field


def error(
    code: str,
    message: str,
    *,
    field: str | None = None,
    fields: Sequence[str] = (),
    retry_after: float | None = None,
) -> Ack:
    """The acknowledgement of a refused event; ``field`` names a refused rule, ``fields``
    the rules refused together, ``retry_after`` the seconds until the same ask would be
    taken (``tenths_up``)."""
    found: dict[str, Any] = {"code": str(code), "message": message}
    if field is not None:
        found["field"] = field
    if fields:
        found["fields"] = list(fields)
    if retry_after is not None:
        found["retry_after"] = tenths_up(retry_after)
    return {"ok": False, "error": found}


def tenths_up(seconds: float) -> float:
    """A wait as an ack says it: rounded up to a tenth of a second, a tenth at least."""
    return max(1, math.ceil(seconds * 10)) / 10


def problem(code: ErrorCode, message: str) -> dict[str, str]:
    """The payload of a ``problem`` event: what went wrong outside any ack."""
    return {"code": str(code), "message": message}


def notice(code: NoticeCode, message: str) -> dict[str, str]:
    """The payload of a ``notice`` event: something the player should know."""
    return {"code": str(code), "message": message}
