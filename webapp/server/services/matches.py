"""The match service: load a player's match, change it (compare-and-set), save, emit, and
schedule the AI's reply.

Every change is one ``write`` (webapp/server/store/matches.py) of a pure transition
below: a function of the stored match that returns what to store and what to push
(``Written``), calling nothing back here. A write that loses a race is simply computed
again from the winner's match; then the service pushes what the write returned, once.

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
from functools import partial
from typing import Any

from flask_socketio import SocketIO

from webapp.game.errors import RuleError
from webapp.game.history import finished_game, game_key
from webapp.game.match import Match, hint_shown
from webapp.server.protocol.snapshot import snapshot
from webapp.server.protocol.vocabulary import NoticeCode, ServerEvent, notice
from webapp.server.services.match_writes import (
    Stale,
    Step,
    Unrevealed,
    changed,
    fresh,
    hinted,
    made,
    opened,
    played,
    replaced,
)
from webapp.server.store.history import HistoryStore
from webapp.server.store.interface import StorageFull
from webapp.server.store.matches import Conflict, Damaged, Store, Transition, Written, write
from webapp.server.store.signing import Signer

PRACTICE = "practice."


def practice_key(player: str) -> str:
    """Where a player's practice game is kept: apart from their match."""
    return PRACTICE + player


def is_practice(key: str) -> bool:
    """Whether a stored match's key is a practice game's (``practice_key``)."""
    return key.startswith(PRACTICE)


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
        """A new match for a player without a stored one, from this service's randomness."""
        return fresh(self.rng, practice=is_practice(player))

    def _write(
        self, player: str, transition: Transition[Match], *, known: Match | None = None
    ) -> Written[Match]:
        """One compare-and-set write of a pure transition. A damaged row (moved aside by
        the store) is replaced first, as ``load`` does, and the transition made on that."""
        try:
            return write(self.store, player, transition, known=known)
        except Damaged:
            replacement = self._replace(player)
        return write(self.store, player, transition, known=replacement)

    def _show(self, player: str, written: Written[Match]) -> None:
        """Push what a write has to show: its pushes now, then its ``later`` match after
        the AI's delay."""
        for match in written.pushes:
            self.emit(player, match)
        if written.later is not None:
            self.reveal(player, written.later)

    def load(self, player: str) -> Match | None:
        """The stored match, or None; a damaged one is moved aside, the player told, and
        a fresh match stored and shown in its place."""
        try:
            return self.store.load(player)
        except Damaged:
            return self._replace(player)

    def _replace(self, player: str) -> Match:
        """A fresh match stored and shown in a damaged one's place, every tab told first:
        the event at hand may fail (a move made on the lost match's board) and emit
        nothing itself."""
        message = "your saved match could not be read, so a new one was started"
        self.socketio.emit(
            ServerEvent.NOTICE, notice(NoticeCode.MATCH_UNREADABLE, message), to=player
        )
        written = write(self.store, player, partial(replaced, self.rng, is_practice(player)))
        self._show(player, written)
        return written.value

    def open(self, player: str) -> Match:
        """The player's match: the stored one, else a fresh one, stored now.

        With the storage full it is shown unstored: its seeds are new on every call, and
        none of its games can reach a reveal while no move can be stored.
        """
        try:
            return self._write(player, partial(opened, self.rng, is_practice(player))).value
        except StorageFull:
            return self.load(player) or self.fresh(player)

    def start(self, player: str, make: Callable[[Match | None], Match]) -> Match:
        """Store the match ``make`` makes of the stored one (None: none), and show it."""
        written = self._write(player, partial(made, make))
        self._show(player, written)
        return written.value

    def change(self, player: str, step: Step) -> Match:
        """Apply one transition to the player's match, and the AI's reply if it is then the
        AI's move, in one write; emit the match after the transition, then the reply.

        The reply is decided and stored with the move (one durable write a round trip)
        and shown after the AI's delay. Until then this process refuses moves on it
        (``unrevealed``); a tab that (re)loads meanwhile is shown it at once.
        """
        transition = partial(changed, self.rng, is_practice(player), step)
        known = self.store.recent(player)  # remembered: stored, so none is made at the move
        try:
            written = self._write(player, transition, known=known)
        except RuleError as refused:
            if known is None and not isinstance(refused, StorageFull) and self._unstorable(player):
                raise StorageFull() from refused
            raise
        self.keep_if_ended(player, written.before, written.value)
        self._show(player, written)
        if written.later is None:
            self.schedule_ai(player, written.value)
        return written.value

    def _unstorable(self, player: str) -> bool:
        """Whether ``player`` has no stored match and none can be stored (the storage
        full): the match they were shown was unstored, its seeds new on every call, so a
        move refused on the one made now says why nothing can be played, not that move's
        fault on another board."""
        if self.load(player) is not None:
            return False
        try:
            self._write(player, partial(opened, self.rng, is_practice(player)))
        except StorageFull:
            return True
        return False

    def mark_hint(self, player: str, shown: Match) -> Match:
        """Mark the player's coming move as made with hints shown (``hint_shown``), in
        one write and unseen: the position does not change, and a move made on the state
        before the mark is still taken (``saw_position``)."""
        if hint_shown(shown) is shown:
            return shown
        try:
            return self._write(
                player, partial(hinted, self.rng, is_practice(player)), known=shown
            ).value
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

    def unrevealed(self, player: str) -> Unrevealed:
        """The versions of the player's match whose AI reply this process has not yet
        shown (``version in service.unrevealed(player)``)."""
        return Unrevealed(player, self.revealing)

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
        try:
            written = self._write(player, partial(played, version), known=known)
        except (Stale, Conflict):
            return
        self.keep_if_ended(player, None, written.value)  # the AI's move, if it ended the game
        self._show(player, written)

    def keep_if_ended(self, player: str, before: Match | None, after: Match) -> None:
        """Store the game in the player's history if this change (stored by this process,
        compare-and-set) is the move that ended it; the store keeps each game once (its key
        is the game's own, not the change's).

        ``before`` is the match the change was made on (None: a move, known to be one).
        """
        if self.history is None or after.game.turn is not None or is_practice(player):
            return  # practice games are not kept
        if before is not None and (before.game.turn is None or before is after):
            return
        entry = finished_game(after, game_id=secrets.token_urlsafe(16), ended=time.time())
        # Signed once, here, and stored with it: every answer serves the stored bytes.
        signed = self.sign(entry["record"]) if self.sign else None
        self.history.add(player, game_key(after), entry, signed)
