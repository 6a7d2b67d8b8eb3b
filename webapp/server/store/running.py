"""Whether a server is running on this data: the data dir's lock, and Redis's heartbeats.

A running server holds a shared ``flock`` on ``server.lock`` in its data dir from the
arbiter's start to its last worker's exit (the workers inherit it), so a restore, which
needs the lock exclusively, refuses while any server on that data dir runs. A lock file
cannot see servers on other hosts sharing Redis, so each worker also keeps a heartbeat
key there, expiring ``HEARTBEAT_SECONDS`` after its last beat, and deleted when the
worker stops; a restore with Redis refuses while any heartbeat is there. A heartbeat
names its process (host, boot, pid and the tick it started at), so that one left behind
by a process of this host that is gone (Redis stopped with the server, or the server
killed) is known for what it is and ignored, instead of refusing for 15 s; one from
elsewhere that missed its renewal is waited for until it expires.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from webapp.server.store import datadir

log = logging.getLogger("webapp.server.running")
LOCK_FILE = "server.lock"
HEARTBEAT_PREFIX = "tictactoe:server:"
HEARTBEAT_SECONDS = 15
BEAT_EVERY_SECONDS = HEARTBEAT_SECONDS / 3
# A heartbeat this close to its expiry missed its last renewal: its server stopped, or
# Redis did with it (a live server renews it to HEARTBEAT_SECONDS every 5 s).
MISSED_BEAT_SECONDS = HEARTBEAT_SECONDS - 2 * BEAT_EVERY_SECONDS
_held: list[IO[bytes]] = []  # the arbiter's lock, kept open (and so held) while it runs


class ServerRunning(RuntimeError):
    """A server is running on the data a restore would replace; the message says where."""


def _open_lock(data_dir: Path) -> IO[bytes]:
    path = data_dir / LOCK_FILE
    datadir.private_file(path)
    handle = path.open("rb")
    owner = data_dir.stat()
    if os.geteuid() == 0 and path.stat().st_uid != owner.st_uid:
        os.chown(path, owner.st_uid, owner.st_gid)  # the service's user opens it next
    return handle


def hold(data_dir: Path) -> None:
    """Take the data dir's lock, shared, for as long as this process (and its children) run."""
    try:
        handle = _open_lock(data_dir)
    except OSError as err:
        raise datadir.DataDirError(
            f"cannot open {data_dir / LOCK_FILE} ({err.strerror}): it must belong to the"
            " server's user"
        ) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise datadir.DataDirError(
            f"a restore into {data_dir} is under way: start the server once it has finished"
        ) from None
    _held.append(handle)


@contextlib.contextmanager
def stopped(
    data_dir: Path,
    redis_url: str | None = None,
    *,
    say: Callable[[str], Any] = log.info,
    sleep: Callable[[float], Any] = time.sleep,
) -> Iterator[list[dict[str, Any]]]:
    """While no server runs on ``data_dir`` (nor on Redis at ``redis_url``), and none can
    start on the data dir; raises ServerRunning otherwise. Gives the heartbeats left in
    Redis by processes of this host that are gone, ignored; ``say`` tells of a wait for
    heartbeats that missed their renewal."""
    with _open_lock(data_dir) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServerRunning(
                f"the server is running on {data_dir}: stop it first (systemctl stop tictactoe)"
            ) from None
        yield _refuse_live_servers(redis_url, say, sleep) if redis_url else []


def _refuse_live_servers(
    url: str, say: Callable[[str], Any], sleep: Callable[[float], Any]
) -> list[dict[str, Any]]:
    """Raise ServerRunning if a server beats in Redis at ``url``; the heartbeats of
    processes gone. Heartbeats that all missed their last renewal (a server elsewhere
    stopped with Redis) are waited for, once, until they expire."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        for attempt in range(2):
            found = [(beat, ttl) for beat, ttl in _timed_heartbeats(client) if not gone(beat)]
            stale = all(0 <= ttl <= MISSED_BEAT_SECONDS for _, ttl in found)
            if not found or not stale or attempt:
                break
            wait = max(ttl for _, ttl in found) + 0.5
            say(
                f"waiting {wait:.0f} s for the heartbeat in Redis of {_named(found)}, which"
                " missed its renewal, to expire"
            )
            sleep(wait)
        left = [beat for beat in heartbeats(client) if gone(beat)]
    except redis.RedisError as err:
        raise ServerRunning(f"cannot ask Redis which servers run: {err}") from None
    finally:
        client.close()
    if found:
        raise ServerRunning(
            f"{len(found)} server process(es) on this Redis are running: {_named(found)};"
            f" stop every server first (a server on another host that died is forgotten"
            f" within {HEARTBEAT_SECONDS} s)"
        )
    return left


def _named(beats: list[tuple[dict[str, Any], float]]) -> str:
    return ", ".join(f"{beat.get('host')} (pid {beat.get('pid')})" for beat, _ in beats)


def _timed_heartbeats(client: Any) -> list[tuple[dict[str, Any], float]]:
    """Every heartbeat in Redis now, with the seconds until it expires (-1: never)."""
    found = []
    for key in sorted(client.scan_iter(match=HEARTBEAT_PREFIX + "*", count=500)):
        value, ttl = client.get(key), client.pttl(key)
        if value:
            found.append((orjson.loads(value), ttl / 1000 if ttl >= 0 else -1.0))
    return found


def heartbeats(client: Any) -> list[dict[str, Any]]:
    """Every heartbeat in Redis now, of live processes and of ones gone."""
    return [beat for beat, _ in _timed_heartbeats(client)]


def live_servers(client: Any) -> list[dict[str, Any]]:
    """The heartbeats in Redis now of processes that may run: one per worker, on any host."""
    return [beat for beat in heartbeats(client) if not gone(beat)]


def process_start(pid: int) -> str | None:
    """Which process ``pid`` is: this boot's id and the clock tick it started at (None if
    no process has that pid, or /proc does not say)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None  # it has exited, and waits only to be reaped
    return f"{boot}:{fields[19]}"  # stat's field 22: starttime


def gone(beat: dict[str, Any]) -> bool:
    """Whether a heartbeat's process is known to have stopped: it beat on this host in
    this boot, and its pid runs no process now, or another one."""
    started = beat.get("started")
    mine = process_start(os.getpid())
    if beat.get("host") != socket.gethostname() or not isinstance(started, str) or not mine:
        return False  # another host (or one that does not say): it may run
    if started.split(":")[0] != mine.split(":")[0]:
        return False  # another boot, or another machine of the same name
    pid = int(beat.get("pid", 0))
    if Path(f"/proc/{pid}").exists() and not os.access(f"/proc/{pid}/stat", os.R_OK):
        return False  # there, but not ours to see
    return process_start(pid) != started


class Heartbeat:
    """One worker's key in Redis, renewed while it runs and deleted when it stops."""

    def __init__(
        self,
        client: Any,
        *,
        clock: Callable[[], float] = time.time,
        about: dict[str, Any] | None = None,
    ) -> None:
        self.client, self.clock = client, clock
        host, pid = socket.gethostname(), os.getpid()
        self.key = f"{HEARTBEAT_PREFIX}{host}:{pid}"
        self.about = {
            "host": host,
            "pid": pid,
            "started": process_start(pid),
            "since": int(clock()),
            **(about or {}),
        }

    def beat(self) -> None:
        """Say once more that this worker runs."""
        value = orjson.dumps({**self.about, "seen": int(self.clock())})
        self.client.set(self.key, value, ex=HEARTBEAT_SECONDS)

    def forever(self, sleep: Callable[[float], Any]) -> None:
        """Beat every ``BEAT_EVERY_SECONDS`` until the process ends."""
        while True:
            try:
                self.beat()
            except Exception as err:  # Redis away: try again next time
                log.warning("could not renew this worker's heartbeat in Redis: %s", err)
            sleep(BEAT_EVERY_SECONDS)

    def end(self) -> None:
        """Say that this worker has stopped (else its key expires by itself)."""
        try:
            self.client.delete(self.key)
        except Exception as err:  # Redis away: the key expires by itself
            log.warning("could not take this worker's heartbeat out of Redis: %s", err)
