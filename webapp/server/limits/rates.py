"""Limits on what one client may cost: events per connection, cooldowns, and log lines.

Every incoming packet of a connection is counted here before it is parsed, against its
connection's rate and then against the rate of all connections from its client address.
Within both it passes; over either, it is refused (answered ``rate_limited``), and a
connection that keeps going over is cut off, its player kept out for a short cooldown.
"""

from __future__ import annotations

import enum
import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from webapp.server.limits.shared_counts import LocalTally, Tally

Clock = Callable[[], float]


def address_key(address: str | None) -> str:
    """The key an address is counted under: itself, or its /64 network for IPv6."""
    try:
        parsed = ipaddress.ip_address(address or "")
    except ValueError:
        return address or "unknown"
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class TokenBucket:
    """Allows ``rate`` events a second on average, with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float, *, clock: Clock = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> bool:
        """Spend one token if there is one now."""
        return self.reserve(0.0) is not None

    def reserve(self, longest: float) -> float | None:
        """Book one token: the seconds until it is due (0: now), or None if over ``longest``.

        Bookings run ahead of the refill, so that each waiter sleeps once, in turn.
        """
        self._refill()
        wait = max(0.0, (1 - self.tokens) / self.rate)
        if wait > longest:
            return None
        self.tokens -= 1
        return wait

    def spend(self, amount: float) -> None:
        """Take ``amount`` tokens, into debt if need be: for work measured once done."""
        self._refill()
        self.tokens -= amount

    def debt_seconds(self) -> float:
        """Seconds until the bucket is out of debt (0: it is not in debt)."""
        self._refill()
        return max(0.0, -self.tokens / self.rate)

    def full(self) -> bool:
        """Whether the bucket holds its whole burst, as a new one does."""
        self._refill()
        return self.tokens >= self.burst

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now


class Verdict(enum.Enum):
    """What to do with one incoming packet."""

    PASS = "pass"  # handle it
    WAIT = "wait"  # handle it once its address's turn comes (see ``RateLimits.wait``)
    REFUSE = "refuse"  # answer rate_limited (or bad_packet), nothing else
    CUT = "cut"  # disconnect the connection now; its player cools down
    DROP = "drop"  # the connection is being cut off: ignore the packet


@dataclass
class _Connection:
    events: TokenBucket
    strikes: TokenBucket  # refused and malformed packets; empty means cut off
    player: str | None = None
    address: str | None = None
    wait: float = 0.0  # before the packet last given Verdict.WAIT
    cut: bool = False


@dataclass
class _Address:
    events: TokenBucket
    connections: int = 0


@dataclass
class RateLimits:
    """One pair of buckets per connection, and a cooldown per player after a cut.

    Cooldowns are kept in ``tally``, shared by all processes when they run on Redis.

    A refused or malformed packet spends a strike; strikes come back at half the event
    rate, so a client a little over its rate is cut off after some seconds, and a flood
    within a fraction of one.

    ``address_rate`` (0: none) is shared by the connections of one client address, so
    that many sockets, each under its own rate, cannot add up to more than the process
    serves; its bursts are two seconds' worth. Past it, a packet is not refused but
    waits its turn (at most ``longest_wait`` seconds, else it is refused): the sockets of
    a busy address are read more slowly, and a busy NAT's players see a delay, not errors.
    """

    rate: float
    burst: int
    cooldown_seconds: float = 10.0
    address_rate: float = 0.0
    longest_wait: float = 2.0
    clock: Clock = time.monotonic
    tally: Tally | None = None  # where cooldowns are kept (None: in this process)
    connections: dict[str, _Connection] = field(default_factory=dict)
    addresses: dict[str, _Address] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cooldowns: Tally = self.tally or LocalTally(clock=self.clock)

    def _of(self, key: str) -> _Connection:
        found = self.connections.get(key)
        if found is None:
            events = TokenBucket(self.rate, self.burst, clock=self.clock)
            strikes = TokenBucket(self.rate / 2, 2 * self.burst, clock=self.clock)
            found = self.connections[key] = _Connection(events, strikes)
        return found

    def open(self, key: str, address: str | None) -> None:
        """Count connection ``key`` under its client address's shared rate."""
        connection = self._of(key)
        if not self.address_rate or address is None or connection.address is not None:
            return
        name = address_key(address)
        shared = self.addresses.get(name)
        if shared is None:
            bucket = TokenBucket(self.address_rate, 2 * self.address_rate, clock=self.clock)
            shared = self.addresses[name] = _Address(bucket)
        shared.connections += 1
        connection.address = name

    def check(self, key: str) -> Verdict:
        """The verdict on one more packet from connection ``key``."""
        connection = self._of(key)
        if connection.cut:
            return Verdict.DROP
        if not connection.events.take():
            return self._strike(connection)
        shared = self.addresses.get(connection.address) if connection.address else None
        if shared is None:
            return Verdict.PASS
        wait = shared.events.reserve(self.longest_wait)
        if wait is None:
            return self._strike(connection)
        connection.wait = wait
        return Verdict.WAIT if wait else Verdict.PASS

    def wait(self, key: str) -> float:
        """Seconds a packet given ``Verdict.WAIT`` sleeps before it is handled."""
        return self._of(key).wait

    def malformed(self, key: str) -> Verdict:
        """Count a packet that could not be read: REFUSE, or CUT if it keeps happening."""
        connection = self._of(key)
        return Verdict.DROP if connection.cut else self._strike(connection)

    def _strike(self, connection: _Connection) -> Verdict:
        if connection.strikes.take():
            return Verdict.REFUSE
        connection.cut = True
        if connection.player is not None:
            self.cooldowns.cool(connection.player, self.cooldown_seconds)
        return Verdict.CUT

    def cut(self, key: str) -> None:
        """Ignore connection ``key`` from now on (it is being disconnected)."""
        self._of(key).cut = True

    def bind(self, key: str, player: str) -> None:
        """Name the player behind connection ``key``, for its cooldown."""
        self._of(key).player = player

    def cooldown_left(self, player: str) -> float:
        """Seconds before ``player`` may connect again after being cut off (0: now)."""
        return self.cooldowns.cooldown_left(player)

    def forget(self, key: str) -> None:
        """Drop the buckets of a connection that has gone (and its address's, if last)."""
        connection = self.connections.pop(key, None)
        if connection is None or connection.address is None:
            return
        shared = self.addresses[connection.address]
        shared.connections -= 1
        if shared.connections <= 0:
            del self.addresses[connection.address]


class AddressPackets:
    """One bucket of Engine.IO packets per client address, shared by all its transports.

    Every packet an address sends (a websocket frame of any kind, a long-polling
    request's packets, a new connection's handshake) is paid from its bucket, before
    Engine.IO decodes it. A bucket is kept while a transport of its address is open or
    while it is in debt, so that closing a connection and opening another gives no new
    budget; full buckets of addresses with nothing open are dropped.
    """

    def __init__(self, rate: float, *, clock: Clock = time.monotonic) -> None:
        self.rate, self.clock = rate, clock
        self.buckets: dict[str, TokenBucket] = {}
        self.open: dict[str, int] = {}  # address -> its transports open now
        self._prune_at = 64

    def enter(self, address: str | None) -> TokenBucket | None:
        """The bucket of ``address`` (None: no limit), for one more open transport."""
        if not self.rate:
            return None
        name = address_key(address)
        bucket = self.buckets.get(name)
        if bucket is None:
            if len(self.buckets) >= self._prune_at:
                self._prune()
            bucket = self.buckets[name] = TokenBucket(self.rate, 2 * self.rate, clock=self.clock)
        self.open[name] = self.open.get(name, 0) + 1
        return bucket

    def leave(self, address: str | None) -> None:
        """One transport of ``address`` closed."""
        name = address_key(address)
        left = self.open.get(name, 0) - 1
        if left > 0:
            self.open[name] = left
            return
        self.open.pop(name, None)
        bucket = self.buckets.get(name)
        if bucket is not None and bucket.full():
            del self.buckets[name]

    def _prune(self) -> None:
        for name in [n for n, b in self.buckets.items() if n not in self.open and b.full()]:
            del self.buckets[name]
        self._prune_at = max(64, 2 * len(self.buckets))


class QuietLog:
    """Logs the first occurrence of each cause as one line, then only a count per period."""

    def __init__(
        self, logger: logging.Logger, *, period: float = 60.0, clock: Clock = time.monotonic
    ) -> None:
        self.logger, self.period, self.clock = logger, period, clock
        self.since: dict[str, tuple[float, int]] = {}  # cause -> (period start, suppressed)

    def warning(self, cause: str, detail: str) -> None:
        """One line for ``cause`` now and then; the lines in between are counted."""
        now = self.clock()
        started, suppressed = self.since.get(cause, (float("-inf"), 0))
        if now - started < self.period:
            self.since[cause] = (started, suppressed + 1)
            return
        more = f" ({suppressed} more since the last line)" if suppressed else ""
        self.logger.warning("%s: %s%s", cause, detail[:200], more)
        self.since[cause] = (now, 0)
