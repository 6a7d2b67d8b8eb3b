"""One way to reach Redis: a pool that waits for a free connection instead of failing.

redis-py's default pool refuses a connection past its limit (``MaxConnectionsError``),
and under gevent one process can have hundreds of players waiting on Redis at once:
200 busy players made some of their events fail ``internal``. This pool holds up to
``POOL_SIZE`` connections, and past that an event waits (at most ``WAIT_SECONDS``).
"""

from __future__ import annotations

from typing import Any

POOL_SIZE = 1000
WAIT_SECONDS = 5.0
TIMEOUT_SECONDS = 5.0


def connect(url: str) -> Any:
    """A Redis client for ``url`` on a blocking pool of its own."""
    import redis

    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=WAIT_SECONDS,
        socket_connect_timeout=TIMEOUT_SECONDS,
        socket_timeout=TIMEOUT_SECONDS,
    )
    return redis.Redis(connection_pool=pool)


def out_of_memory() -> type[Exception]:
    """The error of a write Redis refuses at its ``maxmemory`` (redis is optional)."""
    from redis.exceptions import OutOfMemoryError

    return OutOfMemoryError


def append_only(client: Any) -> bool:
    """Whether the Redis behind ``client`` keeps an append-only file (docs/hosting.md).

    Managed Redis often refuses ``CONFIG``; ``INFO persistence`` then says it.
    """
    import redis

    try:
        return str(client.config_get("appendonly").get("appendonly")) == "yes"
    except redis.ResponseError:
        return str(client.info("persistence").get("aof_enabled")) == "1"


NO_APPEND_ONLY = (
    "Redis keeps no append-only file (appendonly no): if it crashes, players come back to"
    " older matches; set appendonly yes and appendfsync always (docs/hosting.md)"
)
