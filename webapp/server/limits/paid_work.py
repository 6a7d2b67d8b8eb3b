"""Work paid for by the connection that asks, shared fairly with everyone else: the odds'
walks and the lab's searches (webapp/server/services/odds.py, services/lab/answers.py).

- Slices: a walk pauses when it has worked ``SLICE_SECONDS``; under gevent the pause
  sleeps a little, in which the event loop serves every other player. Each walk counts
  its own work, and all walks together keep to their ``share`` of the process.
- A turn: one walk works at a time, and hands the turn, while it sleeps, to the next
  waiting, so that a long walk (a jump through the lab's largest trace, some 2 s of
  work) does not hold up another connection's short one until it is done. An answer
  waiting for its first slice goes before the walks coming back for another
  (``FairTurn``): a cached answer waits for one slice, not for one of every walk.
- A budget per connection and one per client address (``Budgets``): the work of an
  answer, measured, is taken from both buckets of milliseconds, each refilling at its
  rate; while either is in debt, the asks are refused (``rate_limited``) before any work.
  A new socket from the same address gets no new budget.
- A line per address: an address has at most a few answers under way at once, the rest
  wait in line and are checked against its budget again when their turn comes (asks
  sent at once would all have found the budget unspent).
- Work that belongs to a socket dies with it: an answer whose socket has closed is
  dropped before it starts, and a walk under way stops at its next slice (``Abandoned``).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from webapp.game.rules import MatchError
from webapp.server.limits.rates import Clock, TokenBucket
from webapp.server.protocol.vocabulary import ErrorCode, tenths_up

T = TypeVar("T")
Sleep = Callable[[float], object]


class ShareSpent(MatchError):
    """An ask refused before any work while its budget is in debt; ``retry_after`` is the
    seconds until the debt is paid (the ack says it, and a page asks again then)."""

    def __init__(self, why: str, wait: float) -> None:
        self.retry_after = tenths_up(wait)
        super().__init__(ErrorCode.RATE_LIMITED, f"{why}: ask again in {self.retry_after:.1f} s")


# A pause sleeps a little rather than ``sleep(0)``, which may run this greenlet again
# before the loop has polled for I/O: other players' packets would still wait.
PAUSE_SECONDS = 0.0005
# The work between two pauses: what another player's event may wait behind.
SLICE_SECONDS = 0.002
SHARE_BURST_SECONDS = 0.2  # work all walks together may do at once, above their share
PRUNE_AT = 1024  # budgets kept before the full ones are dropped


class Lock(Protocol):
    """A lock or a semaphore: ``threading``'s, or gevent's under gevent."""

    def acquire(self) -> object:
        """Wait for the lock and take it."""

    def release(self) -> None:
        """Give the lock back."""


class Waiter(Protocol):
    """An event: ``threading.Event``, or gevent's under gevent."""

    def set(self) -> None:
        """Wake the waiter."""

    def wait(self) -> object:
        """Wait until set."""

    def is_set(self) -> bool:
        """Whether it was set."""


class FairTurn:
    """The turn: one holder at a time, handed on at ``release`` to the next waiting, those
    waiting for an answer's first slice (``first``) before the walks coming back for
    another, each in the order they came. ``event`` makes a waiter's event."""

    def __init__(self, event: Callable[[], Waiter] = threading.Event) -> None:
        self.event, self.held = event, False
        self.firsts: deque[Waiter] = deque()
        self.others: deque[Waiter] = deque()
        self.guard = threading.Lock()  # held only while the queues change, never waited in

    def acquire(self, *, first: bool = False) -> bool:
        """Wait for the turn and take it."""
        with self.guard:
            if not self.held:
                self.held = True
                return True
            waiter = self.event()
            (self.firsts if first else self.others).append(waiter)
        try:
            waiter.wait()
        except BaseException:  # killed while waiting: out of the queue, or the turn on
            with self.guard:
                handed = waiter not in self.firsts and waiter not in self.others
                if not handed:
                    (self.firsts if first else self.others).remove(waiter)
            if handed:
                self.release()
            raise
        return True

    def release(self) -> None:
        """Hand the turn to the next waiting, or leave it free."""
        with self.guard:
            queue = self.firsts or self.others
            if queue:
                queue.popleft().set()  # still held: it is the waiter's now
            else:
                self.held = False


Turn = FairTurn


def always() -> bool:
    """Present: for a caller with no socket that could close."""
    return True


@dataclass(frozen=True)
class Payer:
    """Who pays for an answer: its connection, its client address (as counted, see
    ``limits.address_key``; None: none known, no address budget) and whether the
    connection is still there to be answered."""

    connection: str
    address: str | None = None
    present: Callable[[], bool] = always


def payer_of(who: Payer | str) -> Payer:
    """``who`` as a ``Payer``: a bare connection id has no address and never closes."""
    return who if isinstance(who, Payer) else Payer(who)


class Abandoned(MatchError):
    """The socket that asked for the work has closed: the work stopped (no one hears this
    refusal; it is an error so that the handler answers as with any other)."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.BUSY, "the connection that asked has closed: work stopped")


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
    """The turn that lets one walk work at a time, on gevent's events under gevent."""
    if async_mode == "gevent":
        from gevent.event import Event

        return FairTurn(Event)
    return FairTurn()


def lock_for(async_mode: str, value: int = 1) -> Lock:
    """A semaphore of ``value`` places: gevent's under gevent."""
    if async_mode == "gevent":
        from gevent.lock import Semaphore

        lock: Lock = Semaphore(value)
        return lock
    return threading.Semaphore(value)


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
        walk.since = self.work_clock()  # before any raise: the sleep is not its work
        present: Callable[[], bool] | None = getattr(walk, "present", None)
        if present is not None and not present():
            raise Abandoned  # its socket closed while it worked: no slice more for it

    def take(self, turn: Turn, *, first: bool = False) -> None:
        """Take ``turn`` (ahead of the walks coming back if ``first``: an answer's first
        slice); taken just after another walk gave it back, sleep a moment holding it
        before any work, so that the loop polls for others' packets between two walks'
        slices (woken together, they would run back to back)."""
        turn.acquire(first=first)
        if self.clock() - self.given_back < PAUSE_SECONDS:
            self.sleep(PAUSE_SECONDS)

    def give_back(self, turn: Turn) -> None:
        """Give ``turn`` back, for the next walk waiting for it."""
        self.given_back = self.clock()
        turn.release()

    def start(self, turn: Turn | None = None, present: Callable[[], bool] | None = None) -> None:
        """A walk starts: count its work from now; ``turn``, held by the walk, is handed
        to the walks waiting for it while it sleeps; once ``present`` says the socket
        that asked has gone, the walk's next pause raises ``Abandoned``."""
        self._walk.since, self._walk.worked = self.work_clock(), 0.0
        self._walk.turn, self._walk.present = turn, present

    def stop(self) -> float:
        """The walk is done: the seconds of its work since ``start`` (spent from the share
        as well)."""
        last = self._since_pause()
        self.shared.spend(last)
        self._walk.since = self._walk.turn = self._walk.present = None
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
    work a second (bursts of ``burst_ms``), and all those of one client address together
    on one of ``address_ms_per_second`` (0: none; bursts of ``burst_ms`` too): one slice
    of work at a time (``turn``, handed on at each pause to the next piece of work waiting
    for it), paused in slices (``pause``, whose share all its users have together); at
    most ``at_once`` answers of an address under way, the rest in its line (``line``
    makes each line's lock). ``what`` names the work in a refusal; ``abandoned`` counts
    the answers stopped or dropped because their socket closed."""

    def __init__(
        self,
        pause: Slices,
        turn: Turn,
        what: str,
        *,
        ms_per_second: float,
        burst_ms: float,
        address_ms_per_second: float = 0.0,
        at_once: int = 1,
        line: Callable[[int], Lock] = threading.Semaphore,
        clock: Clock = time.monotonic,
    ) -> None:
        self.pause, self.turn, self.what = pause, turn, what
        self.buckets = Buckets(ms_per_second, burst_ms, clock)
        self.addresses = Buckets(address_ms_per_second, burst_ms, clock)
        self.at_once, self.line = at_once, line
        self.lines: dict[str, tuple[Lock, int]] = {}  # address -> its lock, answers in it
        self.lines_kept = threading.Lock()  # held only while ``lines`` changes, never waited in
        self.abandoned = 0

    def run(self, who: Payer | str, work: Callable[[], T]) -> T:
        """``work`` in the turn, refused before it starts while ``who``'s connection or
        address is in debt, dropped if its socket has closed meanwhile; its measured time
        is taken from both budgets, answered or not."""
        payer = payer_of(who)
        budgets = self._budgets(payer)
        self._refuse_in_debt(budgets)
        with self._in_line(payer.address):
            self._refuse_in_debt(budgets)  # those before it in line may have spent it
            self.pause.take(self.turn, first=True)
            try:
                return self._work(payer, budgets, work)
            except Abandoned:
                self.abandoned += 1
                raise
            finally:
                self.pause.give_back(self.turn)

    def _work(self, payer: Payer, budgets: list[TokenBucket], work: Callable[[], T]) -> T:
        if not payer.present():
            raise Abandoned  # its socket closed while it waited: no work begins
        self.pause.start(self.turn, None if payer.present is always else payer.present)
        try:
            return work()
        finally:
            spent = self.pause.stop() * 1000
            for budget in budgets:
                budget.spend(spent)

    def _refuse_in_debt(self, budgets: list[TokenBucket]) -> None:
        wait = max(budget.debt_seconds() for budget in budgets)
        if wait:
            whose = "this connection's" if budgets[0].debt_seconds() else "your network's"
            raise ShareSpent(f"{self.what} take work to compute, and {whose} share is spent", wait)

    @contextmanager
    def _in_line(self, address: str | None) -> Iterator[None]:
        """Wait for one of the address's ``at_once`` places (none for no address)."""
        if address is None:
            yield
            return
        with self.lines_kept:
            lock, users = self.lines.get(address) or (self.line(self.at_once), 0)
            self.lines[address] = (lock, users + 1)
        try:
            lock.acquire()
            try:
                yield
            finally:
                lock.release()
        finally:
            with self.lines_kept:
                lock, users = self.lines[address]
                if users > 1:
                    self.lines[address] = (lock, users - 1)
                else:
                    del self.lines[address]

    def _budgets(self, payer: Payer) -> list[TokenBucket]:
        """The connection's budget, and its address's if it has one."""
        found = [self.buckets.of(payer.connection)]
        if payer.address is not None and self.addresses.rate:
            found.append(self.addresses.of(payer.address))
        return found


class Buckets:
    """A budget each, by key, of ``rate`` milliseconds a second (bursts of ``burst``);
    the full ones dropped once there are many (as good as new)."""

    def __init__(self, rate: float, burst: float, clock: Clock) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.held: dict[str, TokenBucket] = {}
        self.prune_at = PRUNE_AT

    def of(self, key: str) -> TokenBucket:
        """``key``'s budget, new and full the first time."""
        found = self.held.get(key)
        if found is None:
            if len(self.held) >= self.prune_at:
                self.held = {key: b for key, b in self.held.items() if not b.full()}
                self.prune_at = max(PRUNE_AT, 2 * len(self.held))
            found = self.held[key] = TokenBucket(self.rate, self.burst, clock=self.clock)
        return found
