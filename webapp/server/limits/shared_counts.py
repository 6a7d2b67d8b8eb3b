"""Short-lived counts that every process of a site must agree on: cooldowns, counts per window.

A player cut off by one process must be kept out by all of them, and new players from one
address are counted once, whichever process served them. One process keeps these in
memory; several (``TICTACTOE_REDIS_URL``) keep them in Redis as keys that expire, so
nothing outlives its time when a process or host dies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from webapp.server.store.redis.client import connect

Clock = Callable[[], float]
PREFIX = "tictactoe:tally:"


class Tally(Protocol):
    """Cooldowns by player, and counts by key in fixed windows of time."""

    def cool(self, player: str, seconds: float) -> None:
        """Keep ``player`` out for ``seconds`` from now."""

    def cooldown_left(self, player: str) -> float:
        """Seconds before ``player`` may come back (0: now)."""

    def bump(self, key: str, window: float) -> tuple[int, float]:
        """Count one more under ``key`` in the current window of ``window`` seconds.

        Returns the count so far in this window (this one included) and the seconds
        left until the next window starts.
        """


PRUNE_SECONDS = 1.0  # how often expired entries are swept away


class LocalTally:
    """In this process's memory: right for one process. Expired entries are swept away
    at most once a second, so a visitor's request never walks the whole table."""

    def __init__(self, *, clock: Clock = time.time) -> None:
        self.clock = clock
        self.cooling: dict[str, float] = {}  # player -> cooldown's end
        self.counts: dict[tuple[str, int], int] = {}  # (key, window's index) -> count
        self.windows: dict[tuple[str, int], float] = {}  # the same -> window's end
        self._lock = threading.Lock()
        self._pruned = float("-inf")

    def cool(self, player: str, seconds: float) -> None:
        """Keep ``player`` out for ``seconds`` from now."""
        with self._lock:
            self._prune()
            self.cooling[player] = self.clock() + seconds

    def cooldown_left(self, player: str) -> float:
        """Seconds before ``player`` may come back (0: now)."""
        return max(0.0, self.cooling.get(player, 0.0) - self.clock())

    def bump(self, key: str, window: float) -> tuple[int, float]:
        """Count one more under ``key`` in the current window; (count, seconds left)."""
        now = self.clock()
        index = int(now // window)
        end = (index + 1) * window
        with self._lock:
            self._prune()
            slot = (key, index)
            self.counts[slot] = count = self.counts.get(slot, 0) + 1
            self.windows[slot] = end
        return count, end - now

    def _prune(self) -> None:
        now = self.clock()
        if now - self._pruned < PRUNE_SECONDS:
            return
        self._pruned = now
        for player in [p for p, end in self.cooling.items() if end <= now]:
            del self.cooling[player]
        for slot in [s for s, end in self.windows.items() if end <= now]:
            del self.windows[slot], self.counts[slot]


class RedisTally:
    """In Redis, shared by every process on it; each key expires with its window."""

    def __init__(self, url: str, *, clock: Clock = time.time) -> None:

        self.redis = connect(url)
        self.clock = clock

    def cool(self, player: str, seconds: float) -> None:
        """Keep ``player`` out for ``seconds`` from now."""
        self.redis.set(f"{PREFIX}cool:{player}", 1, px=max(1, int(seconds * 1000)))

    def cooldown_left(self, player: str) -> float:
        """Seconds before ``player`` may come back (0: now)."""
        left = int(self.redis.pttl(f"{PREFIX}cool:{player}"))
        return max(0.0, left / 1000)

    def bump(self, key: str, window: float) -> tuple[int, float]:
        """Count one more under ``key`` in the current window; (count, seconds left)."""
        now = self.clock()
        index = int(now // window)
        name = f"{PREFIX}{key}:{index}"
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(name)
            pipe.expire(name, int(window) + 1)
            count, _ = pipe.execute()
        return int(count), (index + 1) * window - now
