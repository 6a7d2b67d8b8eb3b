"""The match service: load a player's match, change it (compare-and-set), save, emit, and
schedule the AI's reply.

Every change goes through ``update``: the transition is a pure function of the stored
match, so a write that loses a race is simply computed again from the winner's match.

A player without a stored match is given a fresh one, stored at once (compare-and-set,
so two tabs or processes racing store one): every process, tab and reload then shows
the same one, and its seeds are drawn from the system's randomness, never from the
player's id, so that a player whose data was deleted is never shown a seed again.
A match loaded from an older release that has no seed committed for its next game is
given one, and stored, before it is shown.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from flask_socketio import SocketIO

from webapp.game.history import finished_game, game_key
from webapp.game.match import Match, ai_move, hint_shown, new_match, practice_match, with_next_seed
from webapp.server.protocol.snapshot import snapshot
from webapp.server.protocol.vocabulary import NoticeCode, ServerEvent, notice
from webapp.server.store.history import HistoryStore
from webapp.server.store.interface import StorageFull
from webapp.server.store.matches import Conflict, Damaged, Store, update
from webapp.server.store.signing import Signer

Transition = Callable[[Match], Match]


PRACTICE = "practice."


def practice_key(player: str) -> str:
    """Where a player's practice game is kept: apart from their match."""
    return PRACTICE + player


class _Stale(Exception):
    """The AI reply was scheduled for a state that no longer exists."""


class MatchService:
    """Runs players' matches: store transitions, emit snapshots, schedule AI replies."""

    def __init__(
        self,
        config: Mapping[str, Any],
        store: Store,
        socketio: SocketIO,
        history: HistoryStore | None = None,
        signer: Signer | None = None,
    ) -> None:
        self.store = store
        self.history = history
        self.signer = signer
        self.sign = signer.sign if signer else None
        self.socketio = socketio
        # Each game's secret server seed: from the system's randomness, unless a test
        # seeds it (TICTACTOE_SEED) to replay the same games.
        seed = config["SEED"]
        self.rng = random.SystemRandom() if seed is None else random.Random(seed)
        self.ai_delay = max(0, int(config["AI_DELAY_MS"])) / 1000
        self.pending: set[tuple[str, int]] = set()  # (player, version) replies on their way
        self.revealing: set[tuple[str, int]] = set()  # (player, version) replies not yet shown

    def fresh(self, player: str) -> Match:
        """A new match for a player without a stored one (adaptive; practice: from the
        empty board), its first game not seeded by the player, who has not sent a seed."""
        rng = self.rng
        match = practice_match(rng, ()) if player.startswith(PRACTICE) else new_match(rng)
        if match.game.turn == "ai":
            # Its opening is part of the match shown, not a reply; untimed (think_us 0),
            # so that one version is one snapshot wherever and whenever it is drawn.
            match = ai_move(match)
        return match

    def load(self, player: str) -> Match | None:
        """The stored match, or None; a damaged one is moved aside, the player told, and
        a fresh match stored and shown in its place."""
        try:
            return self.store.load(player)
        except Damaged:
            # Every tab is told, then shown the fresh match: the event at hand may fail
            # (a move made on the lost match's board) and emit nothing itself.
            message = "your saved match could not be read, so a new one was started"
            self.socketio.emit(
                ServerEvent.NOTICE, notice(NoticeCode.MATCH_UNREADABLE, message), to=player
            )
            replacement = update(self.store, player, lambda m: self.ready(player, m))
            self.emit(player, replacement)
            return replacement

    def ready(self, player: str, current: Match | None) -> Match:
        """``current`` ready to be shown: a fresh match if there is none, and a seed
        committed for the next game if it has none (a match from an older release)."""
        if current is None:
            return self.fresh(player)
        return current if current.next_seed else with_next_seed(current, self.rng)

    def open(self, player: str) -> Match:
        """The player's match: the stored one, else a fresh one, stored now.

        With the storage full it is shown unstored: its seeds are new on every call, and
        none of its games can reach a reveal while no move can be stored.
        """
        try:
            return update(self.store, player, lambda m: self.ready(player, m), load=self.load)
        except StorageFull:
            return self.load(player) or self.fresh(player)

    def change(self, player: str, step: Transition) -> Match:
        """Apply one transition to the player's match, and the AI's reply if it is then the
        AI's move, in one write; emit the match after the transition, then the reply.

        The reply is decided and stored with the move (one durable write a round trip)
        and shown after the AI's delay. Until then this process refuses moves on it
        (``unrevealed``); a tab that (re)loads meanwhile is shown it at once.
        """
        shown: list[Match] = []  # the match before and after the transition, as stored

        def run(current: Match | None) -> Match:
            before = self.ready(player, current)
            moved = step(before)
            shown[:] = [before, moved]
            if moved is before or moved.over or moved.game.turn != "ai":
                return moved
            return ai_move(moved, clock=time.perf_counter_ns)

        changed = update(self.store, player, run, known=self.store.recent(player), load=self.load)
        before, moved = shown
        self.keep_if_ended(player, before, changed)
        self.emit(player, moved)
        if changed is not moved:
            self.reveal(player, changed)
        else:
            self.schedule_ai(player, changed)
        return changed

    def mark_hint(self, player: str, shown: Match) -> Match:
        """Mark the player's coming move as made with hints shown (``hint_shown``), in
        one write and unseen: the position does not change, and a move made on the state
        before the mark is still taken (``saw_position``)."""
        if hint_shown(shown) is shown:
            return shown
        try:
            return update(
                self.store,
                player,
                lambda current: hint_shown(self.ready(player, current)),
                known=shown,
                load=self.load,
            )
        except StorageFull:  # no move can be stored either, so none goes unmarked
            return shown

    def mark_lab(self, player: str) -> None:
        """The lab showed a position's values (the best moves): the player's coming move
        in an HP game under way is marked as made with hints shown, as after ``hint``.
        A player without a match gets none."""
        shown = self.load(player)
        if shown is not None:
            self.mark_hint(player, shown)

    def reveal(self, player: str, replied: Match) -> None:
        """Show the AI's stored reply: now, or once the AI's delay has passed."""
        if self.ai_delay == 0:
            self.emit(player, replied)
            return
        key = (player, replied.version)
        self.revealing.add(key)
        self.socketio.start_background_task(self._reveal_later, key, replied)

    def _reveal_later(self, key: tuple[str, int], replied: Match) -> None:
        try:
            self.socketio.sleep(self.ai_delay)
        finally:
            self.revealing.discard(key)
        self.emit(key[0], replied)

    def unrevealed(self, player: str, match: Match) -> bool:
        """True while this process has not yet shown the AI's reply that ``match`` ends with."""
        return (player, match.version) in self.revealing

    def emit(self, player: str, match: Match, *, to: str | None = None) -> None:
        """Send the snapshot to one socket, or to every socket of the player."""
        self.socketio.emit(ServerEvent.STATE, snapshot(match, self.sign), to=to or player)

    def schedule_ai(self, player: str, match: Match) -> None:
        """Let the AI reply if it is its turn and no reply is already on its way."""
        key = (player, match.version)
        if match.over or match.game.turn != "ai" or key in self.pending:
            return
        if self.ai_delay == 0:
            self._play_ai(player, match.version, known=match)
            return
        self.pending.add(key)
        self.socketio.start_background_task(self._delayed_ai, key)

    def _delayed_ai(self, key: tuple[str, int]) -> None:
        try:
            self.socketio.sleep(self.ai_delay)
            self._play_ai(*key)
        finally:
            self.pending.discard(key)

    def _play_ai(self, player: str, version: int, *, known: Match | None = None) -> None:
        def step(current: Match | None) -> Match:
            # Another process, or a new match, may have moved on since this was scheduled.
            if current is None or current.version != version or current.game.turn != "ai":
                raise _Stale
            return ai_move(current, clock=time.perf_counter_ns)

        try:
            played = update(self.store, player, step, known=known, load=self.load)
        except (_Stale, Conflict):
            return
        self.keep_if_ended(player, None, played)  # the AI's move, if it ended the game
        self.emit(player, played)

    def keep_if_ended(self, player: str, before: Match | None, after: Match) -> None:
        """Store the game in the player's history if this change (stored by this process,
        compare-and-set) is the move that ended it; the store keeps each game once (its key
        is the game's own, not the change's).

        ``before`` is the match the change was made on (None: a move, known to be one).
        """
        if self.history is None or after.game.turn is not None or player.startswith(PRACTICE):
            return  # practice games are not kept
        if before is not None and (before.game.turn is None or before is after):
            return
        entry = finished_game(after, game_id=secrets.token_urlsafe(16), ended=time.time())
        # Signed once, here, and stored with it: every answer serves the stored bytes.
        signed = self.sign(entry["record"]) if self.sign else None
        self.history.add(player, game_key(after), entry, signed)
