"""The ``odds`` event's work: a match's exact odds for each scripted player (and a
``skill:S`` player when asked), and from a match under way the player's own chance at
their estimated skill (webapp/game/own_chance.py), shared fairly; and the same for the
tune behind a ``new_match`` with a target (webapp/server/services/targets.py).

A new rule set's answers take up to a few milliseconds of work each (bench/odds.py), and
every answer is cached by rule set and player. Three things keep that work from costing other
players more than it costs the connection that asks:

- One slice of work at a time: the walks of one process take turns (``turn``), each
  handing it to the next waiting one when it pauses, so that a long walk does not hold
  up a short one. Many connections asking at once then put no more work in front
  of another player's event than one does.
- Slices (webapp/server/limits/paid_work.py, shared with the lab): the walk pauses when it has
  worked ``SLICE_SECONDS``; under gevent the pause
  sleeps a little, in which the event loop serves every other player. (A thread would
  not do: the walk would hold the interpreter's lock, and every other player's reply
  would wait for it again and again.)
- A budget per connection, and one per client address: the work of its answers,
  measured, is taken from buckets of milliseconds that refill at ``ODDS_MS_PER_SECOND``
  (and ``ODDS_MS_PER_ADDRESS``); while either is in debt, the odds are refused
  (``rate_limited``) before any work. An address has ``PAID_AT_ONCE_PER_ADDRESS``
  answers under way at most, and an answer whose socket closes stops at its next slice.

Rules are checked (``rules_from``) in the same turn and on the same budget: rules with
too many states are counted, not walked, and refused in about a millisecond; asked again,
in microseconds (the count is cached).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from webapp.game.history import Entry
from webapp.game.match import Match
from webapp.game.odds import UnknownPlayer, match_odds, players_for, skill_player
from webapp.game.own_chance import own_chance
from webapp.game.rules import MatchError, Rules
from webapp.game.skill import SkillEstimate, skill_from
from webapp.game.tune import Tuned, tune
from webapp.game.variant import CLASSIC, Variant
from webapp.server.limits.paid_work import (
    Budgets,
    FairTurn,
    Lock,
    Payer,
    Sleep,
    Slices,
    Turn,
    lock_for,
    no_sleep,
    sleep_for,
    turn_for,
)
from webapp.server.limits.rates import Clock
from webapp.server.protocol.payload import rules_payload, variant_or_classic
from webapp.server.protocol.vocabulary import ErrorCode

Answer = dict[str, Any]
T = TypeVar("T")


class Odds:
    """Exact odds for the settings dialog and for a match under way, on each connection's
    budget of ``ms_per_second`` milliseconds of work a second (bursts of ``burst_ms``)
    and each client address's of ``address_ms_per_second`` (0: none), ``at_once``
    answers of an address under way at most (``line`` makes an address's lock)."""

    def __init__(
        self,
        sleep: Sleep = no_sleep,
        *,
        ms_per_second: float = 100.0,
        burst_ms: float = 1000.0,
        share: float = 1.0,
        turn: Turn | None = None,
        address_ms_per_second: float = 0.0,
        at_once: int = 1,
        line: Callable[[int], Lock] = threading.Semaphore,
        clock: Clock = time.monotonic,
    ) -> None:
        self.pause = Slices(sleep, share=share)
        self.turn = turn or FairTurn()
        self.budgets = Budgets(
            self.pause,
            self.turn,
            "odds",
            ms_per_second=ms_per_second,
            burst_ms=burst_ms,
            address_ms_per_second=address_ms_per_second,
            at_once=at_once,
            line=line,
            clock=clock,
        )

    def rules_of(self, fields: dict[str, Any]) -> Rules:
        """The rules a ``new_match`` payload asks for, checked in slices outside the turn
        (a check is short, and cached by rule set), its work on the share."""
        return self.pause.walk(lambda: rules_payload(fields, self.pause))

    def for_rules(self, connection: Payer | str, fields: dict[str, Any]) -> Answer:
        """Each scripted player's odds of a whole match under the rules ``fields`` ask for
        (a preset and numbers, as ``new_match`` takes them) on the ``variant`` named
        (classic if none), and the ``skill`` player's under ``"skill"`` if it names one."""
        variant = variant_or_classic(fields)
        players = _players(fields.get("skill"), variant)
        rules_fields = {k: v for k, v in fields.items() if k not in ("skill", "variant")}

        def work() -> Answer:
            rules = dataclasses.replace(rules_payload(rules_fields, self.pause), variant=variant)
            return self._each(players, lambda player: match_odds(rules, player, pause=self.pause))

        return self._budgeted(connection, work)

    def for_match(
        self,
        connection: Payer | str,
        match: Match,
        skill: object = None,
        *,
        entries: Iterable[Entry] = (),
    ) -> Answer:
        """From ``match``'s current HP and locked difficulty: each scripted player's odds
        (and the ``skill`` player's, if given) under "odds", and under "you" the player's
        own chance at the skill their history ``entries`` show (``own_chance``); the
        estimate and the walks are all work on this budget."""
        players = _players(skill, match.rules.variant)
        if not match.adaptive:
            raise MatchError("bad_setting", "only an adaptive match has odds: it has HP")
        if match.over:
            raise MatchError("match_over", "the match is over: start a new match")
        position: dict[str, Any] = {
            "human_hp": match.human_hp,
            "ai_hp": match.ai_hp,
            "locked": match.locked,
            "pause": self.pause,
        }

        def work() -> Answer:
            each = self._each(players, lambda player: match_odds(match.rules, player, **position))
            you = own_chance(match.rules, skill_from(entries), **position)
            return {"odds": each, "you": you.to_dict()}

        return self._budgeted(connection, work)

    def for_target(
        self,
        connection: Payer | str,
        target: float,
        estimate: Callable[[], SkillEstimate],
        variant: Variant = CLASSIC,
    ) -> tuple[Tuned, SkillEstimate]:
        """The rules on ``variant`` that give a player of the skill ``estimate`` finds
        the chance ``target`` of winning a match (``tune``, cached by target, skill and
        variant), and that estimate; the estimate and the tune are both work on this
        budget."""

        def work() -> tuple[Tuned, SkillEstimate]:
            found = estimate()
            player = skill_player(found.skill)
            return tune(target, player, pause=self.pause, variant=variant), found

        return self._budgeted(connection, work)

    def _budgeted(self, connection: Payer | str, work: Callable[[], T]) -> T:
        return self.budgets.run(connection, work)

    def _each(self, players: dict[str, str], odds_of: Callable[[str], Any]) -> Answer:
        return {key: odds_of(player).to_dict() for key, player in players.items()}


def _players(skill: object, variant: Variant) -> dict[str, str]:
    """The players to answer for, by the key of each: the scripted ones the variant has,
    and ``skill`` (a number from 0 to 1, rounded to 0.01) under the key "skill"."""
    players = {player: player for player in players_for(variant)}
    if skill is None:
        return players
    try:
        return {**players, "skill": skill_player(cast(float, skill))}
    except UnknownPlayer as err:
        raise MatchError(ErrorCode.BAD_SETTING, err.message, field="skill") from None


def odds_for(async_mode: str, config: Mapping[str, Any]) -> Odds:
    """The app's ``Odds``, paused and locked for ``async_mode``, on the configured budget."""
    return Odds(
        sleep_for(async_mode),
        ms_per_second=float(config["ODDS_MS_PER_SECOND"]),
        burst_ms=float(config["ODDS_BURST_MS"]),
        share=float(config["ODDS_SHARE"]),
        turn=turn_for(async_mode),
        address_ms_per_second=float(config["ODDS_MS_PER_ADDRESS"]),
        at_once=int(config["PAID_AT_ONCE_PER_ADDRESS"]),
        line=lambda value: lock_for(async_mode, value),
    )
