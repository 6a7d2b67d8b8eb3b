"""Limits on what one client may cost: events per connection, cooldowns, and log lines.

Every incoming packet of a connection is counted here before it is parsed. Within the
rate it passes; over it, it is refused (answered ``rate_limited``), and a connection
that keeps going over its limit is cut off, its player kept out for a short cooldown.
"""

from __future__ import annotations

import enum
import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
        """Spend one token if there is one."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Verdict(enum.Enum):
    """What to do with one incoming packet."""

    PASS = "pass"  # handle it
    REFUSE = "refuse"  # answer rate_limited (or bad_packet), nothing else
    CUT = "cut"  # disconnect the connection now; its player cools down
    DROP = "drop"  # the connection is being cut off: ignore the packet


@dataclass
class _Connection:
    events: TokenBucket
    strikes: TokenBucket  # refused and malformed packets; empty means cut off
    player: str | None = None
    cut: bool = False


@dataclass
class RateLimits:
    """One pair of buckets per connection, and a cooldown per player after a cut.

    A refused or malformed packet spends a strike; strikes come back at half the event
    rate, so a client a little over its rate is cut off after some seconds, and a flood
    within a fraction of one.
    """

    rate: float
    burst: int
    cooldown_seconds: float = 10.0
    clock: Clock = time.monotonic
    connections: dict[str, _Connection] = field(default_factory=dict)
    cooling: dict[str, float] = field(default_factory=dict)  # player -> cooldown's end

    def _of(self, key: str) -> _Connection:
        found = self.connections.get(key)
        if found is None:
            events = TokenBucket(self.rate, self.burst, clock=self.clock)
            strikes = TokenBucket(self.rate / 2, 2 * self.burst, clock=self.clock)
            found = self.connections[key] = _Connection(events, strikes)
        return found

    def check(self, key: str) -> Verdict:
        """The verdict on one more packet from connection ``key``."""
        connection = self._of(key)
        if connection.cut:
            return Verdict.DROP
        if connection.events.take():
            return Verdict.PASS
        return self._strike(connection)

    def malformed(self, key: str) -> Verdict:
        """Count a packet that could not be read: REFUSE, or CUT if it keeps happening."""
        connection = self._of(key)
        return Verdict.DROP if connection.cut else self._strike(connection)

    def _strike(self, connection: _Connection) -> Verdict:
        if connection.strikes.take():
            return Verdict.REFUSE
        connection.cut = True
        if connection.player is not None:
            self.cooling[connection.player] = self.clock() + self.cooldown_seconds
        return Verdict.CUT

    def cut(self, key: str) -> None:
        """Ignore connection ``key`` from now on (it is being disconnected)."""
        self._of(key).cut = True

    def bind(self, key: str, player: str) -> None:
        """Name the player behind connection ``key``, for its cooldown."""
        self._of(key).player = player

    def cooldown_left(self, player: str) -> float:
        """Seconds before ``player`` may connect again after being cut off (0: now)."""
        left = self.cooling.get(player, 0.0) - self.clock()
        if left <= 0:
            self.cooling.pop(player, None)
            return 0.0
        return left

    def forget(self, key: str) -> None:
        """Drop the buckets of a connection that has gone."""
        self.connections.pop(key, None)


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
