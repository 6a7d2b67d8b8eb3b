"""A game record in its signed envelope, and the checks that a record is a whole game.

The envelope carries the record's JSON bytes exactly as they were signed (``payload``,
base64) beside their Ed25519 signature, so that a verifier checks those bytes and never
a copy serialised again. The signing itself and the keys are the server's
(webapp/server/store/signing.py); this module only builds and opens envelopes, without I/O.

``check_complete`` reads only what every record format holds (``status``, ``moves``,
``first``, ``setup``, ``dice.server_seed``, ``mode``, ``rules``): a finished game, every
move of it, and the server seed revealed only once the game is over.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .board import Board, RuleError
from .game import setup_board
from .rules import MODES, Rules
from .verification import Mismatch

KIND = "tictactoe-hp-signed-game"
FORMAT = 1
KEY_ID_LENGTH = 16  # hex digits of the public key's SHA-256
ENDED = ("human_won", "ai_won", "draw")
Data = dict[str, Any]


def key_id(public_key: bytes) -> str:
    """A public key's short name: the first 16 hex digits of SHA-256 of its raw bytes."""
    return hashlib.sha256(public_key).hexdigest()[:KEY_ID_LENGTH]


def envelope(payload: bytes, key: str, signature: bytes) -> Data:
    """The signed record as it is served and downloaded."""
    return {
        "kind": KIND,
        "format": FORMAT,
        "key": key,
        "payload": base64.b64encode(payload).decode("ascii"),
        "signature": base64.b64encode(signature).decode("ascii"),
    }


def is_signed(document: object) -> bool:
    """True if ``document`` is (or claims to be) a signed envelope rather than a bare record."""
    return isinstance(document, dict) and document.get("kind") == KIND


@dataclass(frozen=True)
class Opened:
    """An envelope taken apart: the key it names, the signed bytes, the signature, and
    the record those bytes hold."""

    key: str
    payload: bytes
    signature: bytes
    record: Data


def opened(document: Any) -> Opened:
    """The parts of a signed envelope; ``Mismatch`` if it is not one that can be checked."""
    if not is_signed(document) or document.get("format") != FORMAT:
        raise Mismatch(f"not a signed record of format {FORMAT} (kind {KIND!r})")
    key = document.get("key")
    if not isinstance(key, str) or not key:
        raise Mismatch("the signed record names no key")
    payload = _base64(document.get("payload"), "payload")
    signature = _base64(document.get("signature"), "signature")
    try:
        record = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise Mismatch(f"the signed payload is not JSON: {err}") from None
    if not isinstance(record, dict):
        raise Mismatch("the signed payload is not a game record")
    return Opened(key, payload, signature, record)


def _base64(text: object, name: str) -> bytes:
    if not isinstance(text, str):
        raise Mismatch(f"the signed record has no {name}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Mismatch(f"the signed record's {name} is not base64") from None


def check_complete(record: Any) -> None:
    """Raise ``Mismatch`` unless ``record`` is a whole finished game (module docstring)."""
    try:
        _check_complete(record)
    except Mismatch:
        raise
    except RuleError as err:
        raise Mismatch(f"the moves are not a game: {err.message}") from err
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise Mismatch(f"the record is not a game record: {err!r}") from err


def _check_complete(record: Any) -> None:
    status, dice = record["status"], record["dice"]
    revealed = dice is not None and dice["server_seed"] is not None
    if status not in ENDED:
        why = ": moves are missing" if revealed else ""
        raise Mismatch(f"the game is not over (status {status!r}){why}")
    if record["mode"] not in MODES:
        raise Mismatch(f"the record's mode {record['mode']!r} is not a mode of this game")
    # A MatchError (a ValueError) names a rule out of range; a RuleError a variant unknown.
    rules = Rules.from_dict(record["rules"])
    played = _status_after(record, rules)
    if played != status:
        raise Mismatch(f"the moves end with the game {played!r}, the record says {status!r}")


def _status_after(record: Any, rules: Rules) -> str:
    """The status the record's moves reach from its setup on the rules' variant, each by
    the side to move."""
    board: Board = setup_board(tuple(record.get("setup") or ()), rules.variant)
    first = record["first"]
    if first not in ("human", "ai"):
        raise Mismatch(f"the record's first player {first!r} is neither side")
    other = "ai" if first == "human" else "human"
    for index, move in enumerate(record["moves"], 1):
        mover = first if board.to_move == "X" else other
        if board.is_over():
            raise Mismatch(f"move {index} comes after the game was over")
        if move["by"] != mover:
            raise Mismatch(f"move {index} is the {move['by']}'s, but it was the {mover}'s turn")
        board = board.apply_move(move["cell"])
    outcome = board.outcome()
    if outcome is None:
        return "playing"
    if outcome.winner is None:
        return "draw"
    return "human_won" if (outcome.winner == "X") == (first == "human") else "ai_won"
