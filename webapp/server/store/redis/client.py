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


def settings(client: Any) -> dict[str, str | None]:
    """What the guide asks Redis to keep (docs/hosting.md): its append-only file, its
    fsync, its memory ceiling and its policy there. Managed Redis often refuses
    ``CONFIG``; ``INFO`` then says all but the fsync (None: not known)."""
    import redis

    names = ("appendonly", "appendfsync", "maxmemory", "maxmemory-policy")
    try:
        found = {**client.config_get("append*"), **client.config_get("maxmemory*")}
        return {name: None if found.get(name) is None else str(found[name]) for name in names}
    except redis.ResponseError:
        info = {**client.info("persistence"), **client.info("memory")}
        return {
            "appendonly": "yes" if str(info.get("aof_enabled")) == "1" else "no",
            "appendfsync": None,
            "maxmemory": str(info.get("maxmemory", "0")),
            "maxmemory-policy": str(info.get("maxmemory_policy", "noeviction")),
        }


def warnings(client: Any) -> list[str]:
    """Each of the guide's Redis settings that the Redis behind ``client`` lacks, as its
    named warning."""
    found = settings(client)
    named = []
    if found["appendonly"] != "yes":
        named.append(NO_APPEND_ONLY)
    elif found["appendfsync"] == "no":
        named.append(FSYNC_NO)  # everysec loses at most the window docs/hosting.md states
    if found["maxmemory"] in ("0", "0B"):
        named.append(NO_MAXMEMORY)
    if found["maxmemory-policy"] != "noeviction":
        named.append(EVICTS)
    return named


NO_APPEND_ONLY = (
    "Redis keeps no append-only file (appendonly no): if it crashes, players come back to"
    " older matches; set appendonly yes and appendfsync always (docs/hosting.md)"
)
FSYNC_NO = (
    "Redis leaves its append-only file to the system to write (appendfsync no): if the"
    " machine crashes, players come back to matches up to 30 s old; set appendfsync always"
    " (docs/hosting.md)"
)
NO_MAXMEMORY = (
    "Redis has no memory ceiling (maxmemory 0): full, it is killed by the system instead"
    " of refusing writes; set maxmemory, with maxmemory-policy noeviction (docs/hosting.md)"
)
EVICTS = (
    "Redis evicts keys when it is full (maxmemory-policy is not noeviction): it may drop"
    " players' matches and keep the rest; set maxmemory-policy noeviction (docs/hosting.md)"
)
