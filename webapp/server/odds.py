"""The ``odds`` event's work: a match's exact odds for each scripted player, shared fairly.

``game.odds`` answers any rule set a player may choose in well under 100 ms once its
tables are built (the preflight builds them before the workers start), and caches
answers by rule set. Under gevent that is still time in which the event loop would serve
no one else, so the walks (checking the rules, then the odds) pause now and then: each
pause lets every other player's events run. A thread would not do: the walk would hold
the interpreter's lock, and every other player's reply would wait for it again and
again. So one client that asks for odds again and again slows only itself (its
connection's events are handled one after another).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game.match import Match, MatchError, Pause, Rules, no_pause
from ..game.odds import PLAYERS, match_odds

Answer = dict[str, Any]


# A pause sleeps a little rather than ``sleep(0)``, which may run this greenlet again
# before the loop has polled for I/O: other players' packets would still wait.
PAUSE_SECONDS = 0.0005


def _yield_to_others() -> None:
    import gevent

    gevent.sleep(PAUSE_SECONDS)


def pause_for(async_mode: str) -> Pause:
    """What a long walk calls to let others run: under gevent a short sleep, in which
    the loop serves everyone else; otherwise nothing."""
    return _yield_to_others if async_mode == "gevent" else no_pause


class Odds:
    """Exact odds for the settings dialog and for a match under way."""

    def __init__(self, pause: Pause) -> None:
        self.pause = pause

    def for_rules(self, rules: Rules) -> Answer:
        """Each scripted player's odds of a whole match under ``rules``."""
        return self._each(lambda player: match_odds(rules, player, pause=self.pause).to_dict())

    def for_match(self, match: Match) -> Answer:
        """Each scripted player's odds from ``match``'s current HP and locked difficulty."""
        if not match.adaptive:
            raise MatchError("bad_setting", "only an adaptive match has odds: it has HP")
        if match.over:
            raise MatchError("match_over", "the match is over: start a new match")
        return self._each(
            lambda player: match_odds(
                match.rules,
                player,
                human_hp=match.human_hp,
                ai_hp=match.ai_hp,
                locked=match.locked,
                pause=self.pause,
            ).to_dict()
        )

    def _each(self, odds_of: Callable[[str], Answer]) -> Answer:
        answer = {}
        for player in PLAYERS:
            answer[player] = odds_of(player)
            self.pause()
        return answer
