"""The Socket.IO protocol's vocabulary and shapes: events, error codes, acks, snapshots.

docs/protocol.md describes these; static/js/protocol.js holds the page's copy of the
names, and a test checks that all three agree.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import orjson

from ..game.board import RuleError, cell_name
from ..game.fairness import commitment
from ..game.match import (
    MODES,
    PRESETS,
    RULE_FIELDS,
    Match,
    MatchError,
    Pause,
    Rules,
    no_pause,
    rules_from,
)
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
    HISTORY = "history"
    HISTORY_GAME = "history_game"


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
    STORAGE_FULL = "storage_full"
    GAME_NOT_FOUND = "game_not_found"
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


# The fields each event's payload may carry.
FIELDS: dict[Event, frozenset[str]] = {
    Event.MOVE: frozenset({"cell", "version"}),
    Event.NEXT_GAME: frozenset({"client_seed"}),
    Event.NEW_MATCH: frozenset(
        {"mode", "preset", "rules", "human_hp", "ai_hp", "client_seed", "first"}
    ),
    Event.LOCK_DIFFICULTY: frozenset(),
    Event.ODDS: frozenset({"preset", "rules", "current"}),
    Event.HINT: frozenset(),
    Event.ROOM_JOIN: frozenset({"room"}),
    Event.ROOM_MOVE: frozenset({"room", "cell", "version"}),
    Event.ROOM_UNDO: frozenset({"room"}),
    Event.ROOM_RESIGN: frozenset({"room"}),
    Event.ROOM_REMATCH: frozenset({"room"}),
    Event.ROOM_LEAVE: frozenset({"room"}),
    Event.ROOM_HINT: frozenset({"room"}),
    Event.TAKE_BACK: frozenset(),
    Event.HISTORY: frozenset(),
    Event.HISTORY_GAME: frozenset({"id"}),
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
    """An event whose payload is not what the protocol allows."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.BAD_PAYLOAD, message)


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
    """The payload as a dict with only ``event``'s fields; nothing at all means ``{}``."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise BadPayload(f"the payload must be a JSON object, got {type(payload).__name__}")
    unknown = sorted(str(key) for key in payload if key not in FIELDS[event])
    if unknown:
        raise BadPayload(f"unknown field(s): {', '.join(unknown)}")
    return payload


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
    preset = fields.get("preset", "classic")
    numbers = fields.get("rules") or {}
    if not isinstance(preset, str):
        raise BadPayload("preset must be a string")
    if not isinstance(numbers, dict):
        raise BadPayload("rules must be an object of rule names and numbers")
    short = {"start_human_hp": fields.get("human_hp"), "start_ai_hp": fields.get("ai_hp")}
    changes = {**numbers, **{k: v for k, v in short.items() if v is not None}}
    if "pause" in changes:  # a keyword of rules_from, not a rule
        raise MatchError("bad_setting", "unknown rule 'pause'")
    return rules_from(preset, pause=pause, **changes)


Sign = Callable[[dict[str, Any]], dict[str, Any]]


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
