"""Per-connection limits: a token bucket for events."""

from __future__ import annotations

import time


class TokenBucket:
    """Allows ``rate`` events a second on average, with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class RateLimits:
    """One bucket per connection, forgotten when it disconnects."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.buckets: dict[str, TokenBucket] = {}

    def allow(self, sid: str) -> bool:
        """Whether connection ``sid`` may send one more event now."""
        bucket = self.buckets.get(sid)
        if bucket is None:
            bucket = self.buckets[sid] = TokenBucket(self.rate, self.burst)
        return bucket.take()

    def forget(self, sid: str) -> None:
        """Drop the bucket of a connection that has gone."""
        self.buckets.pop(sid, None)
