"""Work paid for by the connection that asks, shared fairly with everyone else: the odds'
walks and the lab's searches (webapp/server/odds.py, lab.py).

- Slices: a walk pauses when it has worked ``SLICE_SECONDS``; under gevent the pause
  sleeps a little, in which the event loop serves every other player. Each walk counts
  its own work, and all walks together keep to their ``share`` of the process.
- A turn: one walk works at a time, and hands the turn, while it sleeps, to the next
  waiting, so that a long walk (a jump through the lab's largest trace, some 2 s of
  work) does not hold up another connection's short one until it is done.
- A budget per connection (``Budgets``): the work of its answers, measured, is taken
  from a bucket of milliseconds that refills at its rate; while the bucket is in debt,
  the connection's asks are refused (``rate_limited``) before any work.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from ..game.match import MatchError
from .limits import Clock, TokenBucket
from .protocol import ErrorCode

T = TypeVar("T")
Sleep = Callable[[float], object]

# A pause sleeps a little rather than ``sleep(0)``, which may run this greenlet again
# before the loop has polled for I/O: other players' packets would still wait.
PAUSE_SECONDS = 0.0005
# The work between two pauses: what another player's event may wait behind.
SLICE_SECONDS = 0.002
SHARE_BURST_SECONDS = 0.2  # work all walks together may do at once, above their share
PRUNE_AT = 1024  # budgets kept before the full ones are dropped


class Turn(Protocol):
    """A lock: ``threading.Lock``, or gevent's ``Semaphore`` under gevent."""

    def acquire(self) -> object:
        """Wait for the lock and take it."""

    def release(self) -> None:
        """Give the lock back."""


def no_sleep(seconds: float) -> None:
    """Sleep for no one: outside gevent, nothing else runs in the walk's pauses."""


def sleep_for(async_mode: str) -> Sleep:
    """What a long walk's pause sleeps in to let others run: under gevent gevent's sleep,
    in which the loop serves everyone else; otherwise nothing."""
    if async_mode == "gevent":
        import gevent

        sleep: Sleep = gevent.sleep
        return sleep
    return no_sleep


def turn_for(async_mode: str) -> Turn:
    """The lock that lets one walk work at a time: gevent's under gevent."""
    if async_mode == "gevent":
        from gevent.lock import Semaphore

        lock: Turn = Semaphore()
        return lock
    return threading.Lock()


class Slices:
    """The ``pause`` that walks call now and then. Once a slice of work is done it sleeps:
    a moment, or while the walks of all connections together are over ``share`` of the
    process's time, until they are back within it (``SHARE_BURST_SECONDS`` of work may
    run at once, so one answer in a quiet process is not slowed). It also adds up the
    work of each walk, from its ``start`` (or ``walk``) to its ``stop``.

    Work is the thread's CPU time (``work_clock``) between two pauses of the same walk,
    when no other greenlet runs: neither the sleeps nor the others' events count. So each
    walk keeps its own clock (a greenlet's own, as ``threading.local`` is under gevent):
    walks outside the turn (``new_match``'s rules check) run beside the turn's, and with
    one clock for all, each pause would have counted every other walk's and every other
    player's work since the last pause of anyone, and a busy process's walks would have
    slept longer and longer (bench/peer.py: 200 players starting matches at once).
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
        self.clock, self.given_back = clock, -math.inf
        self.shared = TokenBucket(share, SHARE_BURST_SECONDS, clock=clock)
        self._walk = threading.local()  # since: the walk's last count; worked: its sum

    def __call__(self) -> None:
        walk, now = self._walk, self.work_clock()
        since = getattr(walk, "since", None)
        if since is None:  # a walk not started: counted from its first pause
            self.start()
            return
        done = now - since
        if done < self.seconds:
            return
        walk.worked += done
        self.shared.spend(done)
        turn: Turn | None = getattr(walk, "turn", None)
        if turn is not None:  # the others waiting work while this walk sleeps
            self.give_back(turn)
        try:
            self.sleep(max(PAUSE_SECONDS, self.shared.debt_seconds()))
        finally:
            if turn is not None:
                self.take(turn)
        walk.since = self.work_clock()

    def take(self, turn: Turn) -> None:
        """Take ``turn``; taken just after another walk gave it back, sleep a moment
        holding it before any work, so that the loop polls for others' packets between
        two walks' slices (woken together, they would run back to back)."""
        turn.acquire()
        if self.clock() - self.given_back < PAUSE_SECONDS:
            self.sleep(PAUSE_SECONDS)

    def give_back(self, turn: Turn) -> None:
        """Give ``turn`` back, for the next walk waiting for it."""
        self.given_back = self.clock()
        turn.release()

    def start(self, turn: Turn | None = None) -> None:
        """A walk starts: count its work from now; ``turn``, held by the walk, is handed
        to the walks waiting for it while it sleeps."""
        self._walk.since, self._walk.worked = self.work_clock(), 0.0
        self._walk.turn = turn

    def stop(self) -> float:
        """The walk is done: the seconds of its work since ``start`` (spent from the share
        as well)."""
        last = self._since_pause()
        self.shared.spend(last)
        self._walk.since = self._walk.turn = None
        return float(getattr(self._walk, "worked", 0.0)) + last

    def worked(self) -> float:
        """The seconds of work of the walk under way so far: its own, none of its sleeps'
        nor other greenlets' (a clock for timing work that pauses)."""
        return float(getattr(self._walk, "worked", 0.0)) + self._since_pause()

    def _since_pause(self) -> float:
        since = getattr(self._walk, "since", None)
        return 0.0 if since is None else self.work_clock() - since

    def walk(self, work: Callable[[], T]) -> T:
        """``work`` as a walk of its own, outside the turn."""
        self.start()
        try:
            return work()
        finally:
            self.stop()


class Budgets:
    """Work done for connections, each on a budget of ``ms_per_second`` milliseconds of
    work a second (bursts of ``burst_ms``): one slice of work at a time (``turn``, handed
    on at each pause to the next piece of work waiting for it), paused in slices
    (``pause``, whose share all its users have together). ``what`` names the work in a
    refusal."""

    def __init__(
        self,
        pause: Slices,
        turn: Turn,
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
        self.pause.take(self.turn)
        try:
            self.pause.start(self.turn)
            try:
                return work()
            finally:
                budget.spend(self.pause.stop() * 1000)
        finally:
            self.pause.give_back(self.turn)

    def _budget(self, connection: str) -> TokenBucket:
        found = self.buckets.get(connection)
        if found is None:
            if len(self.buckets) >= self.prune_at:  # gone or idle: as good as new
                self.buckets = {key: b for key, b in self.buckets.items() if not b.full()}
                self.prune_at = max(PRUNE_AT, 2 * len(self.buckets))
            found = self.buckets[connection] = TokenBucket(self.rate, self.burst, clock=self.clock)
        return found
