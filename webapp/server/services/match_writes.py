"""The match service's writes: pure transitions of a player's stored match, each
returning what to store and what to push (``Written``).

Each is given to the store's compare-and-set ``write`` (webapp/server/store/matches.py),
which may apply it more than once: to the match this process knows, then to the row read
back when that was stale or another writer won. So each is a function of the match it is
handed (None: none stored) and of the randomness and clock passed to it: it reads no
store, sends nothing and calls nothing of the service, which pushes what the write
returns, once, after it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from webapp.game.match import Match, ai_move, hint_shown, new_match, practice_match, with_next_seed
from webapp.server.store.matches import Written

Step = Callable[[Match], Match]


class Stale(Exception):
    """The AI reply was scheduled for a state that no longer exists."""


@dataclass(frozen=True)
class Unrevealed:
    """The versions of a player's match whose AI reply this process stored but has not
    shown yet: a live view of the service's set, read in memory on each attempt."""

    player: str
    keys: AbstractSet[tuple[str, int]]

    def __contains__(self, version: object) -> bool:
        return (self.player, version) in self.keys


def fresh(rng: random.Random, *, practice: bool) -> Match:
    """A new match for a player without a stored one (adaptive; practice: from the empty
    board), its first game not seeded by the player, who has not sent a seed."""
    match = practice_match(rng, ()) if practice else new_match(rng)
    if match.game.turn == "ai":
        # Its opening is part of the match shown, not a reply; untimed (think_us 0),
        # so that one version is one snapshot wherever and whenever it is drawn.
        match = ai_move(match)
    return match


def ready(rng: random.Random, practice: bool, current: Match | None) -> Match:
    """``current`` ready to be shown: a fresh match if there is none, and a seed
    committed for the next game if it has none (a match from an older release)."""
    if current is None:
        return fresh(rng, practice=practice)
    return current if current.next_seed else with_next_seed(current, rng)


def opened(rng: random.Random, practice: bool, current: Match | None) -> Written[Match]:
    """The match ``ready``, nothing pushed: the caller shows it to the socket asking."""
    return Written(ready(rng, practice, current), current)


def replaced(rng: random.Random, practice: bool, current: Match | None) -> Written[Match]:
    """The match that takes a damaged one's place, pushed to every tab."""
    match = ready(rng, practice, current)
    return Written(match, current, (match,))


def made(make: Callable[[Match | None], Match], current: Match | None) -> Written[Match]:
    """The match ``make`` makes of the stored one, pushed to every tab."""
    match = make(current)
    return Written(match, current, (match,))


def changed(
    rng: random.Random, practice: bool, step: Step, current: Match | None
) -> Written[Match]:
    """``step`` applied to the match and pushed at once; then, if it is the AI's move, the
    AI's reply, stored in the same write and pushed later (``Written.later``)."""
    before = ready(rng, practice, current)
    moved = step(before)
    if moved is before or moved.over or moved.game.turn != "ai":
        return Written(moved, before, (moved,))
    replied = ai_move(moved, clock=time.perf_counter_ns)
    return Written(replied, before, (moved,), later=replied)


def hinted(rng: random.Random, practice: bool, current: Match | None) -> Written[Match]:
    """The player's coming move marked as made with hints shown; nothing pushed."""
    return Written(hint_shown(ready(rng, practice, current)), current)


def played(version: int, current: Match | None) -> Written[Match]:
    """The AI's move on the match at ``version``, pushed; ``Stale`` if it moved on."""
    # Another process, or a new match, may have moved on since this was scheduled.
    if current is None or current.version != version or current.game.turn != "ai":
        raise Stale
    match = ai_move(current, clock=time.perf_counter_ns)
    return Written(match, current, (match,))
