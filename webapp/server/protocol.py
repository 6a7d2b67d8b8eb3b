"""The Socket.IO protocol's vocabulary and shapes: events, error codes, acks, snapshots.

docs/protocol.md describes these; static/js/protocol.js holds the page's copy of the
names, and a test checks that all three agree.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from math import isfinite
from typing import Any, cast

import orjson

from ..game.board import RuleError, cell_name
from ..game.fairness import commitment
from ..game.match import (
    MODES,
    PRESETS,
    RULE_FIELDS,
    Game,
    Match,
    MatchError,
    Pause,
    Rules,
    no_pause,
    rules_from,
)
from ..game.review import lesson
from ..game.verification import game_record

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
    NO_FREE_SEAT = "no_free_seat"
    BAD_NAME = "bad_name"
    STORAGE_FULL = "storage_full"
    GAME_NOT_FOUND = "game_not_found"
    BAD_BOARD = "bad_board"
    TOO_COSTLY = "too_costly"
    BAD_STEP = "bad_step"
    INTERNAL = "internal"


class RefusalCode(StrEnum):
    """Why a connection was refused (the ``data.code`` of Socket.IO's connect_error)."""

    NO_SESSION = "no_session"
    RELOAD = "reload"
    COOLDOWN = "cooldown"
    TOO_MANY_SOCKETS = "too_many_sockets"


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
    },
    Event.LOCK_DIFFICULTY: {},
    Event.ODDS: {"preset": STRING, "rules": RULES, "current": BOOLEAN, "skill": NUMBER},
    Event.HINT: {},
    Event.ROOM_JOIN: ROOM,
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
    Event.LAB_CHILDREN: {"board": STRING, "path": STRING, "scoring": STRING, "depth": INTEGER},
    Event.LAB_PAGE: {
        "board": STRING,
        "scoring": STRING,
        "prune": BOOLEAN,
        "table": BOOLEAN,
        "symmetry": BOOLEAN,
        "depth": INTEGER,
        "start": INTEGER,
        "size": INTEGER,
    },
    Event.LAB_COUNTS: {"board": STRING, "scoring": STRING, "depth": INTEGER},
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


def error(code: str, message: str, *, field: str | None = None) -> Ack:
    """The acknowledgement of a refused event; ``field`` names a refused rule."""
    found = {"code": str(code), "message": message}
    return {"ok": False, "error": found if field is None else {**found, "field": field}}


def problem(code: ErrorCode, message: str) -> dict[str, str]:
    """The payload of a ``problem`` event: what went wrong outside any ack."""
    return {"code": str(code), "message": message}


def notice(code: NoticeCode, message: str) -> dict[str, str]:
    """The payload of a ``notice`` event: something the player should know."""
    return {"code": str(code), "message": message}


def payload_object(payload: object, event: Event) -> dict[str, Any]:
    """The payload as a dict of ``event``'s fields, each of its one type; nothing at all
    means ``{}``, and a ``null`` that means absent is left out."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise BadPayload(f"the payload must be a JSON object, got {type(payload).__name__}")
    fields = FIELDS[event]
    unknown = sorted(str(key) for key in payload if key not in fields)
    if unknown:
        raise BadPayload(f"unknown field(s): {', '.join(unknown)}")
    given = {k: v for k, v in payload.items() if v is not None or not fields[k].null_is_absent}
    for name, value in given.items():
        check_field(name, value, fields[name].kind)
    return given


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_TYPE_OF: dict[Kind, Callable[[object], bool]] = {
    Kind.INTEGER: _is_integer,
    Kind.STRING: lambda value: isinstance(value, str),
    Kind.BOOLEAN: lambda value: isinstance(value, bool),
    Kind.RULES: lambda value: isinstance(value, dict),
    Kind.NUMBER: lambda value: _is_integer(value) or (isinstance(value, float) and isfinite(value)),
}
_WORDS = {
    Kind.INTEGER: "an integer",
    Kind.STRING: "a string",
    Kind.BOOLEAN: "true or false",
    Kind.RULES: "an object of rule names and integers",
    Kind.NUMBER: "a number",
}
_RULE_LABELS = {rule.name: rule.label for rule in RULE_FIELDS}


def check_field(name: str, value: object, kind: Kind) -> None:
    """Refuse (``bad_payload``) a field that is not of its kind; a rule names itself."""
    if not _TYPE_OF[kind](value):
        raise BadPayload(f"{name} must be {_WORDS[kind]}, got {_shown(value)}")
    if kind is Kind.RULES:
        for rule, number in cast(dict[str, object], value).items():
            if not _is_integer(number):
                label = _RULE_LABELS.get(rule, f"rule {rule!r}")
                raise BadPayload(f"{label} must be an integer, got {_shown(number)}", field=rule)


def _shown(value: object) -> str:
    """A refused value in an error message: JSON's words, and never very long."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def payload_size(payload: object) -> int:
    """The payload's size as compact UTF-8 JSON, as a client would have sent it."""
    try:
        return len(orjson.dumps(payload))
    except TypeError:  # an integer over 64 bits, a lone surrogate: the slower way
        pass
    try:
        return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):  # not JSON at all: count it as too large
        return 1 << 30


@functools.lru_cache(maxsize=1024)  # every snapshot names it; rules are frozen values
def preset_of(rules: Rules) -> str:
    """The name of the preset ``rules`` are, or ``custom``."""
    return next((name for name, preset in PRESETS.items() if preset == rules), "custom")


def rules_payload(fields: dict[str, Any], pause: Pause = no_pause) -> Rules:
    """The rules a ``new_match`` or ``odds`` payload asks for: a preset, some numbers
    changed (``human_hp`` and ``ai_hp`` are the starting HP's short names); ``pause``
    lets others run during the check."""
    preset = fields.get("preset", "classic")  # the types were checked with the payload
    short = {"start_human_hp": "human_hp", "start_ai_hp": "ai_hp"}
    changes = {**fields.get("rules", {}), **{k: fields[v] for k, v in short.items() if v in fields}}
    if "pause" in changes:  # a keyword of rules_from, not a rule
        raise MatchError("bad_setting", "unknown rule 'pause'")
    return rules_from(preset, pause=pause, **changes)


Sign = Callable[[dict[str, Any]], dict[str, Any]]


def practice_state(game: Game) -> dict[str, Any] | None:
    """A practice game's mistake and the feedback on the player's latest move, or None
    outside a practice game from a mistake."""
    if game.mistake is None:
        return None
    moves = [(side == "human", cell) for side, cell in game.history]
    return lesson(game.setup, game.mistake, moves)


def snapshot(match: Match, sign: Sign | None = None) -> dict[str, Any]:
    """The ``state`` event: everything a client renders; ``sign`` puts a finished game's
    record in its signed envelope too (``signed_record``)."""
    game = match.game
    record = game_record(match)
    outcome = game.board.outcome()
    last = game.ai_moves[-1] if game.ai_moves else None
    change = match.last_hp_change
    return {
        "version": match.version,
        "mode": match.mode,
        "board": game.board.cells,
        "human": game.mark_of("human"),
        "ai": game.mark_of("ai"),
        "first": game.first,
        "turn": game.turn,
        "status": game.status,
        "winning_line": list(outcome.line) if outcome and outcome.line else None,
        "history": [{"by": side, "cell": cell} for side, cell in game.history],
        "last_ai_move": last.to_dict() if last else None,
        "rules": match.rules.to_dict(),
        "preset": preset_of(match.rules),
        "record": record,
        "signed_record": sign(record) if sign and game.turn is None else None,
        "next_commitment": commitment(match.next_seed) if match.next_seed else None,
        "practice": practice_state(game),
        "match": {
            "human_hp": match.human_hp,
            "ai_hp": match.ai_hp,
            "difficulty": match.difficulty,
            "start_human_hp": match.rules.start_human_hp,
            "start_ai_hp": match.rules.start_ai_hp,
            "over": match.over,
            "winner": match.winner,
            "game": match.game_number,
            "games": match.games_finished,
            "record": match.record.to_dict(),
            "last_hp_change": {"human": change[0], "ai": change[1]} if change else None,
            "locked": match.locked,
        },
    }
