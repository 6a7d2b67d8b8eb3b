"""The Socket.IO protocol's vocabulary and shapes: events, error codes, acks, snapshots.

docs/protocol.md describes these; static/js/protocol.js holds the page's copy of the
names, and a test checks that all three agree.
"""

from __future__ import annotations

import dataclasses
import json
from enum import StrEnum
from typing import Any

from ..game.board import RuleError, cell_name
from ..game.match import MODES, Match

Ack = dict[str, Any]
OK: Ack = {"ok": True}


class Event(StrEnum):
    """What a client may send."""

    MOVE = "move"
    NEXT_GAME = "next_game"
    NEW_MATCH = "new_match"
    HINT = "hint"


class ServerEvent(StrEnum):
    """What the server pushes."""

    STATE = "state"
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
    Event.NEXT_GAME: frozenset(),
    Event.NEW_MATCH: frozenset({"mode", "human_hp", "ai_hp"}),
    Event.HINT: frozenset(),
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


class BadPayload(RuleError):
    """An event whose payload is not what the protocol allows."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.BAD_PAYLOAD, message)


def error(code: str, message: str) -> Ack:
    """The acknowledgement of a refused event."""
    return {"ok": False, "error": {"code": str(code), "message": message}}


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
        return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):  # not JSON at all: count it as too large
        return 1 << 30


def snapshot(match: Match) -> dict[str, Any]:
    """The ``state`` event: everything a client renders."""
    game = match.game
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
        "last_ai_move": dataclasses.asdict(last) if last else None,
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
            "record": dataclasses.asdict(match.record),
            "last_hp_change": {"human": change[0], "ai": change[1]} if change else None,
        },
    }
