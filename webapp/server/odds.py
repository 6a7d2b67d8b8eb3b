"""The ``odds`` event's work: a match's exact odds for each scripted player (and a
``skill:S`` player when asked), shared fairly; and the same for the tune behind a
``new_match`` with a target (webapp/server/targets.py).

A new rule set's answers take up to a few milliseconds of work each (bench/odds.py), and
every answer is cached by rule set and player. Three things keep that work from costing other
players more than it costs the connection that asks:

- One walk at a time: the odds of one request at once per process, the others waiting
  their turn (``turn``). Many connections asking at once then put no more work in front
  of another player's event than one does.
- Slices: the walk pauses when it has worked ``SLICE_SECONDS``; under gevent the pause
  sleeps a little, in which the event loop serves every other player. (A thread would
  not do: the walk would hold the interpreter's lock, and every other player's reply
  would wait for it again and again.)
- A budget per connection: the work of its answers, measured, is taken from a bucket of
  milliseconds that refills at ``ODDS_MS_PER_SECOND``; while the bucket is in debt, the
  connection's odds are refused (``rate_limited``) before any work.

Rules are checked (``rules_from``) in the same turn and on the same budget: rules with
too many states are counted, not walked, and refused in about a millisecond; asked again,
in microseconds (the count is cached).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, TypeVar, cast

from ..game.match import Match, MatchError
from ..game.odds import PLAYERS, UnknownPlayer, match_odds, skill_player
from ..game.skill import SkillEstimate
from ..game.tune import Tuned, tune
from .limits import Clock, TokenBucket
from .payload import rules_payload
from .protocol import ErrorCode

Answer = dict[str, Any]
T = TypeVar("T")
Sleep = Callable[[float], object]

# A pause sleeps a little rather than ``sleep(0)``, which may run this greenlet again
# before the loop has polled for I/O: other players' packets would still wait.
PAUSE_SECONDS = 0.0005
# The work between two pauses: what another player's event may wait behind.
SLICE_SECONDS = 0.002
SHARE_BURST_SECONDS = 0.2  # work all walks together may do at once, above their share
PRUNE_AT = 1024  # budgets kept before the full ones are dropped


def _no_sleep(seconds: float) -> None:
    """Sleep for no one: outside gevent, nothing else runs in the walk's pauses."""


def sleep_for(async_mode: str) -> Sleep:
    """What a long walk's pause sleeps in to let others run: under gevent gevent's sleep,
    in which the loop serves everyone else; otherwise nothing."""
    if async_mode == "gevent":
        import gevent

        sleep: Sleep = gevent.sleep
        return sleep
    return _no_sleep


def turn_for(async_mode: str) -> AbstractContextManager[object]:
    """The lock that lets one walk run at a time: gevent's under gevent."""
    if async_mode == "gevent":
        from gevent.lock import Semaphore

        lock: AbstractContextManager[object] = Semaphore()
        return lock
    return threading.Lock()


class Slices:
    """The ``pause`` that walks call now and then. Once a slice of work is done it sleeps:
    a moment, or while the walks of all connections together are over ``share`` of the
    process's time, until they are back within it (``SHARE_BURST_SECONDS`` of work may
    run at once, so one answer in a quiet process is not slowed). It also adds up the
    work of the walk that holds the turn.

    Work is the thread's CPU time (``work_clock``) between two pauses, when no other
    greenlet runs: neither the sleeps nor the machine's other processes count.
    A rules check outside the turn (``new_match``'s) calls it too; the time it adds to
    or takes from the holder's count is at most a slice.
    """

    def __init__(
        self,
        sleep: Sleep,
        *,
        share: float = 1.0,
        seconds: float = SLICE_SECONDS,
        work_clock: Clock = time.thread_time,
        clock: Clock = time.monotonic,
    ) -> None:
        self.sleep, self.seconds, self.work_clock = sleep, seconds, work_clock
        self.shared = TokenBucket(share, SHARE_BURST_SECONDS, clock=clock)
        self.since = work_clock()
        self.worked = 0.0

    def __call__(self) -> None:
        done = self.work_clock() - self.since
        if done < self.seconds:
            return
        self.worked += done
        self.shared.spend(done)
        self.sleep(max(PAUSE_SECONDS, self.shared.debt_seconds()))
        self.since = self.work_clock()

    def start(self) -> None:
        """Count from now."""
        self.since, self.worked = self.work_clock(), 0.0

    def stop(self) -> float:
        """The seconds of work since ``start`` (spent from the share as well)."""
        last = self.work_clock() - self.since
        self.shared.spend(last)
        return self.worked + last


class Budgets:
    """Work done for connections, each on a budget of ``ms_per_second`` milliseconds of
    work a second (bursts of ``burst_ms``): one piece of work at a time (``turn``), paused
    in slices (``pause``, whose share all its users have together). ``what`` names the
    work in a refusal."""

    def __init__(
        self,
        pause: Slices,
        turn: AbstractContextManager[object],
        what: str,
        *,
        ms_per_second: float,
        burst_ms: float,
        clock: Clock = time.monotonic,
    ) -> None:
        self.pause, self.turn, self.what = pause, turn, what
        self.rate, self.burst, self.clock = ms_per_second, burst_ms, clock
        self.buckets: dict[str, TokenBucket] = {}
        self.prune_at = PRUNE_AT

    def run(self, connection: str, work: Callable[[], T]) -> T:
        """``work`` in the turn, refused before it starts while ``connection`` is in
        debt; its measured time is taken from the connection's budget, answered or not."""
        budget = self._budget(connection)
        wait = budget.debt_seconds()
        if wait:
            raise MatchError(
                ErrorCode.RATE_LIMITED,
                f"{self.what} take work to compute, and this connection's share is spent:"
                f" ask again in {max(wait, 0.1):.1f} s",
            )
        with self.turn:
            self.pause.start()
            try:
                return work()
            finally:
                budget.spend(self.pause.stop() * 1000)

    def _budget(self, connection: str) -> TokenBucket:
        found = self.buckets.get(connection)
        if found is None:
            if len(self.buckets) >= self.prune_at:  # gone or idle: as good as new
                self.buckets = {key: b for key, b in self.buckets.items() if not b.full()}
                self.prune_at = max(PRUNE_AT, 2 * len(self.buckets))
            found = self.buckets[connection] = TokenBucket(self.rate, self.burst, clock=self.clock)
        return found


class Odds:
    """Exact odds for the settings dialog and for a match under way, on each connection's
    budget of ``ms_per_second`` milliseconds of work a second (bursts of ``burst_ms``)."""

    def __init__(
        self,
        sleep: Sleep = _no_sleep,
        *,
        ms_per_second: float = 100.0,
        burst_ms: float = 1000.0,
        share: float = 1.0,
        turn: AbstractContextManager[object] | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.pause = Slices(sleep, share=share)
        self.turn = turn or threading.Lock()
        self.budgets = Budgets(
            self.pause,
            self.turn,
            "odds",
            ms_per_second=ms_per_second,
            burst_ms=burst_ms,
            clock=clock,
        )

    def for_rules(self, connection: str, fields: dict[str, Any]) -> Answer:
        """Each scripted player's odds of a whole match under the rules ``fields`` ask for
        (a preset and numbers, as ``new_match`` takes them), and the ``skill`` player's
        under ``"skill"`` if it names one."""
        players = _players(fields.get("skill"))
        rules_fields = {key: value for key, value in fields.items() if key != "skill"}

        def work() -> Answer:
            rules = rules_payload(rules_fields, self.pause)
            return self._each(players, lambda player: match_odds(rules, player, pause=self.pause))

        return self._budgeted(connection, work)

    def for_match(self, connection: str, match: Match, skill: object = None) -> Answer:
        """Each scripted player's odds from ``match``'s current HP and locked difficulty
        (and the ``skill`` player's, if given)."""
        players = _players(skill)
        if not match.adaptive:
            raise MatchError("bad_setting", "only an adaptive match has odds: it has HP")
        if match.over:
            raise MatchError("match_over", "the match is over: start a new match")
        return self._budgeted(
            connection,
            lambda: self._each(
                players,
                lambda player: match_odds(
                    match.rules,
                    player,
                    human_hp=match.human_hp,
                    ai_hp=match.ai_hp,
                    locked=match.locked,
                    pause=self.pause,
                ),
            ),
        )

    def for_target(
        self, connection: str, target: float, estimate: Callable[[], SkillEstimate]
    ) -> tuple[Tuned, SkillEstimate]:
        """The rules that give a player of the skill ``estimate`` finds the chance
        ``target`` of winning a match (``tune``, cached by target and skill), and that
        estimate; the estimate and the tune are both work on this budget."""

        def work() -> tuple[Tuned, SkillEstimate]:
            found = estimate()
            return tune(target, skill_player(found.skill), pause=self.pause), found

        return self._budgeted(connection, work)

    def _budgeted(self, connection: str, work: Callable[[], T]) -> T:
        return self.budgets.run(connection, work)

    def _each(self, players: dict[str, str], odds_of: Callable[[str], Any]) -> Answer:
        return {key: odds_of(player).to_dict() for key, player in players.items()}


def _players(skill: object) -> dict[str, str]:
    """The players to answer for, by the key of each: the scripted ones, and ``skill``
    (a number from 0 to 1, rounded to 0.01) under the key "skill"."""
    players = {player: player for player in PLAYERS}
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
    )
