"""Who is connected: sockets per player and per client address, with caps.

One process keeps the count in memory. Several processes (Redis) share it in Redis as
one sorted set per key, each socket a member whose score is when it expires; every
process renews its own sockets' entries while they stay open, so the entries of a
process or host that dies fall away within ``TTL_SECONDS``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from webapp.server.store.redis.client import connect

TTL_SECONDS = 60.0
PREFIX = "tictactoe:presence:"


class Presence(Protocol):
    """Counts of open sockets by key (a player, an address)."""

    def join(self, key: str, sid: str, cap: int) -> bool:
        """Count ``sid`` under ``key`` unless ``cap`` sockets are there already (0: no cap)."""

    def leave(self, key: str, sid: str) -> None:
        """Stop counting ``sid`` under ``key``."""

    def count(self, key: str) -> int:
        """Sockets counted under ``key`` now."""

    def members(self, key: str) -> list[str]:
        """The ids of the sockets counted under ``key`` now, in every process."""


class LocalPresence:
    """Counts in this process's memory: right for one process."""

    def __init__(self) -> None:
        self.sockets: dict[str, set[str]] = {}

    def join(self, key: str, sid: str, cap: int) -> bool:
        """Count ``sid`` under ``key`` unless ``cap`` sockets are there already (0: no cap)."""
        members = self.sockets.setdefault(key, set())
        if cap and len(members) >= cap and sid not in members:
            return False
        members.add(sid)
        return True

    def leave(self, key: str, sid: str) -> None:
        """Stop counting ``sid`` under ``key``."""
        members = self.sockets.get(key)
        if members is not None:
            members.discard(sid)
            if not members:
                del self.sockets[key]

    def count(self, key: str) -> int:
        """Sockets counted under ``key`` now."""
        return len(self.sockets.get(key, ()))

    def members(self, key: str) -> list[str]:
        """The ids of the sockets counted under ``key`` now."""
        return sorted(self.sockets.get(key, ()))


# Drop expired members, then add this one unless the cap is reached; renew the key.
_JOIN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local cap = tonumber(ARGV[4])
if cap > 0 and redis.call('ZSCORE', KEYS[1], ARGV[3]) == false
   and redis.call('ZCARD', KEYS[1]) >= cap then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


class RedisPresence:
    """Counts shared by every process on one Redis, forgotten when a process dies."""

    def __init__(
        self, url: str, *, ttl: float = TTL_SECONDS, clock: Callable[[], float] = time.time
    ) -> None:

        self.redis = connect(url)
        self.script = self.redis.register_script(_JOIN)
        self.ttl, self.clock = ttl, clock
        self.mine: dict[str, set[str]] = {}  # this process's sockets, renewed while open

    def join(self, key: str, sid: str, cap: int) -> bool:
        """Count ``sid`` under ``key`` unless ``cap`` sockets are there already (0: no cap)."""
        now = self.clock()
        args: list[Any] = [now, now + self.ttl, sid, cap, int(self.ttl) + 1]
        if not self.script(keys=[PREFIX + key], args=args):
            return False
        self.mine.setdefault(key, set()).add(sid)
        return True

    def leave(self, key: str, sid: str) -> None:
        """Stop counting ``sid`` under ``key``."""
        self.redis.zrem(PREFIX + key, sid)
        members = self.mine.get(key)
        if members is not None:
            members.discard(sid)
            if not members:
                del self.mine[key]

    def count(self, key: str) -> int:
        """Sockets counted under ``key`` now."""
        return int(self.redis.zcount(PREFIX + key, self.clock(), "+inf"))

    def members(self, key: str) -> list[str]:
        """The ids of the sockets counted under ``key`` now, in every process."""
        found = self.redis.zrangebyscore(PREFIX + key, self.clock(), "+inf")
        return [member.decode() if isinstance(member, bytes) else str(member) for member in found]

    def renew(self) -> None:
        """Push the expiry of this process's open sockets forward."""
        until = self.clock() + self.ttl
        with self.redis.pipeline(transaction=False) as pipe:
            for key, sids in self.mine.items():
                pipe.zadd(PREFIX + key, dict.fromkeys(sids, until))
                pipe.expire(PREFIX + key, int(self.ttl) + 1)
            pipe.execute()
