"""The ``odds`` event's work: a match's exact odds for each scripted player, off the loop.

``game.odds`` answers any rule set in well under 100 ms once its tables are built (the
preflight builds them before the workers start) and caches answers by rule set. Under
gevent that is still time the event loop would not serve anyone else, so the work runs
in one native thread of its own: requests queue there, each player's moves go on, and a
client that asks for odds again and again waits only for itself (its connection's
events are handled one after another) and for the queue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game.match import Match, MatchError, Rules
from ..game.odds import PLAYERS, match_odds

Answer = dict[str, Any]
Work = Callable[[], Answer]
Run = Callable[[Work], Answer]


def _inline(work: Work) -> Answer:
    return work()


def runner(async_mode: str) -> Run:
    """How work runs: in a one-thread pool under gevent, else in the caller."""
    if async_mode != "gevent":
        return _inline
    from gevent.threadpool import ThreadPool

    pool = ThreadPool(1)

    def run(work: Work) -> Answer:
        answer: Answer = pool.spawn(work).get()
        return answer

    return run


class Odds:
    """Exact odds for the settings dialog and for a match under way."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def for_rules(self, rules: Rules) -> Answer:
        """Each scripted player's odds of a whole match under ``rules``."""
        return self.run(lambda: {p: match_odds(rules, p).to_dict() for p in PLAYERS})

    def for_match(self, match: Match) -> Answer:
        """Each scripted player's odds from ``match``'s current HP and locked difficulty."""
        if not match.adaptive:
            raise MatchError("bad_setting", "only an adaptive match has odds: it has HP")
        if match.over:
            raise MatchError("match_over", "the match is over: start a new match")

        def work() -> Answer:
            return {
                player: match_odds(
                    match.rules,
                    player,
                    human_hp=match.human_hp,
                    ai_hp=match.ai_hp,
                    locked=match.locked,
                ).to_dict()
                for player in PLAYERS
            }

        return self.run(work)
