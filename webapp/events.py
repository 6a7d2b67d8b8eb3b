"""Socket.IO handlers: check the payload, call the core through the store, emit the state.

Every client event is answered through its acknowledgement with ``{"ok": true}``
or ``{"ok": false, "error": {"code", "message"}}``; a refused event changes nothing.
The protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import functools
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from flask import request, session
from flask_socketio import ConnectionRefusedError, SocketIO, join_room

from . import engine
from . import match as matches
from .board import RuleError
from .match import Match, MatchError
from .store import Conflict, Store, update

log = logging.getLogger(__name__)
Ack = dict[str, Any]
OK: Ack = {"ok": True}
NEW_MATCH_FIELDS = frozenset({"mode", "human_hp", "ai_hp"})
EVENTS = ("move", "next_game", "new_match", "hint")
# Every code a refused event can carry (docs/protocol.md), but for "internal", a fault.
ERROR_CODES = frozenset(
    {
        "bad_payload",
        "cell_out_of_range",
        "cell_taken",
        "not_your_turn",
        "game_over",
        "match_over",
        "bad_setting",
        "rate_limited",
        "unknown_event",
        "busy",
    }
)


class BadPayload(RuleError):
    """An event whose payload is not what the protocol allows."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_payload", message)


def error(code: str, message: str) -> Ack:
    """The acknowledgement of a refused event."""
    return {"ok": False, "error": {"code": code, "message": message}}


def payload_object(payload: object, allowed: frozenset[str]) -> dict[str, Any]:
    """The payload as a dict with only ``allowed`` keys; nothing at all means ``{}``."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise BadPayload(f"the payload must be a JSON object, got {type(payload).__name__}")
    unknown = sorted(str(key) for key in payload if key not in allowed)
    if unknown:
        raise BadPayload(f"unknown field(s): {', '.join(unknown)}")
    return payload


def payload_size(payload: object) -> int:
    """The payload's size as compact UTF-8 JSON, as a client would have sent it."""
    try:
        return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):  # not JSON at all: count it as too large
        return 1 << 30


class TokenBucket:
    """Allows ``rate`` events a second on average, with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Games:
    """Runs players' matches: store transitions, emits snapshots, schedules AI replies."""

    def __init__(self, config: Mapping[str, Any], store: Store, socketio: SocketIO) -> None:
        self.store = store
        self.socketio = socketio
        self.rng = random.Random(config["SEED"])
        self.delay = max(0, int(config["AI_DELAY_MS"])) / 1000
        self.rate = (float(config["RATE_PER_SECOND"]), int(config["RATE_BURST"]))
        self.max_payload = int(config["MAX_PAYLOAD_BYTES"])
        self.buckets: dict[str, TokenBucket] = {}
        self.pending: set[tuple[str, int]] = set()  # (player, version) replies on their way

    def change(self, player: str, step: Callable[[Match], Match]) -> Match:
        """Apply one transition to the player's match, store it, emit it, then let the AI move."""
        changed = update(self.store, player, lambda current: step(self._existing(current)))
        self.emit(player, changed)
        self.schedule_ai(player, changed)
        return changed

    def open(self, player: str) -> Match:
        """The player's match, created as a fresh adaptive match if there is none."""
        return update(self.store, player, lambda current: current or matches.new_match(self.rng))

    def _existing(self, current: Match | None) -> Match:
        return current if current is not None else matches.new_match(self.rng)

    def emit(self, player: str, match: Match, *, to: str | None = None) -> None:
        """Send the snapshot to one socket, or to every socket of the player."""
        self.socketio.emit("state", matches.snapshot(match), to=to or player)

    def schedule_ai(self, player: str, match: Match) -> None:
        """Let the AI reply if it is its turn and no reply is already on its way."""
        key = (player, match.version)
        if match.over or match.game.turn != "ai" or key in self.pending:
            return
        if self.delay == 0:
            self._play_ai(player, match.version, known=match)
            return
        self.pending.add(key)
        self.socketio.start_background_task(self._delayed_ai, key)

    def _delayed_ai(self, key: tuple[str, int]) -> None:
        try:
            self.socketio.sleep(self.delay)
            self._play_ai(*key)
        finally:
            self.pending.discard(key)

    def _play_ai(self, player: str, version: int, *, known: Match | None = None) -> None:
        def step(current: Match | None) -> Match:
            # Another process, or a new match, may have moved on since this was scheduled.
            if current is None or current.version != version or current.game.turn != "ai":
                raise _Stale
            return matches.ai_move(current, self.rng)

        try:
            played = update(self.store, player, step, known=known)
        except (_Stale, Conflict):
            return
        self.emit(player, played)

    def allow(self, sid: str) -> bool:
        """Rate limit per connection."""
        bucket = self.buckets.get(sid)
        if bucket is None:
            bucket = self.buckets[sid] = TokenBucket(*self.rate)
        return bucket.take()


class _Stale(Exception):
    """The AI reply was scheduled for a state that no longer exists."""


def _player() -> str:
    return str(session["player"])


RATE_LIMITED = error("rate_limited", "too many events: slow down a little")
UNLIMITED = frozenset({"connect", "disconnect"})


class GatedSocketIO(SocketIO):  # type: ignore[misc]
    """Flask-SocketIO that refuses an event over the rate limit before anything else.

    The check runs before Flask-SocketIO builds the request context for the event,
    which is most of what an event costs: a client flooding at 1,000 events a second
    then takes about half as much CPU from everyone else.
    """

    allow: Callable[[str], bool] = staticmethod(lambda sid: True)

    def _handle_event(
        self, handler: Callable[..., Any], message: str, namespace: str, sid: str, *args: Any
    ) -> Any:
        if message not in UNLIMITED and not self.allow(sid):
            return RATE_LIMITED
        return super()._handle_event(handler, message, namespace, sid, *args)


def acked(games: Games) -> Callable[[Callable[..., Ack]], Callable[..., Ack]]:
    """Wrap a handler: check the payload, then turn domain errors into acknowledgements."""

    def wrap(handler: Callable[..., Ack]) -> Callable[..., Ack]:
        @functools.wraps(handler)
        def run(*args: object) -> Ack:
            if len(args) > 1:
                return error("bad_payload", "send one JSON object")
            payload = args[0] if args else None
            if payload is not None and payload_size(payload) > games.max_payload:
                return error("bad_payload", f"the payload is over {games.max_payload} bytes")
            try:
                return handler(payload)
            except RuleError as err:
                return error(err.code, err.message)
            except Conflict:
                return error("busy", "the match is busy: try again")

        return run

    return wrap


def register(socketio: GatedSocketIO, games: Games) -> None:
    """Attach the protocol's handlers and the rate limit to ``socketio``."""
    checked = acked(games)
    socketio.allow = games.allow

    @socketio.on("connect")
    def on_connect(auth: object = None) -> None:
        if "player" not in session:
            raise ConnectionRefusedError("no session: load the page first")
        player = _player()
        join_room(player)
        match = games.open(player)
        games.emit(player, match, to=request.sid)  # type: ignore[attr-defined]
        games.schedule_ai(player, match)

    @socketio.on("disconnect")
    def on_disconnect(*_: object) -> None:
        games.buckets.pop(request.sid, None)  # type: ignore[attr-defined]

    @socketio.on("move")
    @checked
    def on_move(payload: object) -> Ack:
        fields = payload_object(payload, frozenset({"cell"}))
        if "cell" not in fields:
            raise BadPayload('a move needs a cell: {"cell": 0..8}')
        cell = fields["cell"]
        games.change(_player(), lambda m: matches.human_move(m, cell))
        return OK

    @socketio.on("next_game")
    @checked
    def on_next_game(payload: object) -> Ack:
        payload_object(payload, frozenset())
        games.change(_player(), lambda m: matches.next_game(m, games.rng))
        return OK

    @socketio.on("new_match")
    @checked
    def on_new_match(payload: object) -> Ack:
        settings = payload_object(payload, NEW_MATCH_FIELDS)
        mode = settings.get("mode", "adaptive")
        if not isinstance(mode, str):
            raise MatchError("bad_setting", "mode must be a string")
        games.change(
            _player(),
            lambda m: matches.new_match(
                games.rng,
                mode=mode,
                human_hp=settings.get("human_hp"),
                ai_hp=settings.get("ai_hp"),
                version=m.version,
            ),
        )
        return OK

    @socketio.on("hint")
    @checked
    def on_hint(payload: object) -> Ack:
        payload_object(payload, frozenset())
        match = games.open(_player())
        if match.game.turn != "human" or match.over:
            return {"ok": True, "analysis": {}}
        analysis = engine.analyse(match.game.board)
        return {"ok": True, "analysis": analysis.to_dict()["moves"]}

    @socketio.on("*")
    def on_unknown(event: object, *_: object) -> Ack:
        return error("unknown_event", f"unknown event {event!r}: use {', '.join(EVENTS)}")

    @socketio.on_error_default
    def on_error(err: Exception) -> Ack:
        log.exception("unexpected error in a socket handler", exc_info=err)
        return error("internal", "the server failed to handle this event")
