"""The health check behind ``/healthz``: the store, the secret key and the free disk,
and how close the data is to each of its caps; warnings that leave it healthy (a Redis
without what docs/hosting.md asks of it: an append-only file written with fsync, a
memory ceiling that refuses writes rather than evicting).

Each part is checked for real (the store is read and written), so the answer is cached
for ``WINDOW_SECONDS`` per process: a supervisor or a proxy may ask as often as it likes.
What is wrong is said in words that name no server path (the data dir is "the data
dir"): the answer is public, and the log has the rest.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from webapp.server.store import datadir
from webapp.server.store.matches import Store
from webapp.server.store.redis import client as redis_client

WINDOW_SECONDS = 1.5
OK = "ok"
Checks = dict[str, str]
MB = 1 << 20
# An absolute path in a message (an OSError's file name, a Redis socket): not after a
# word, a colon or a slash, so that a URL's "//host/0" and "1/2" are left as they are.
PATH = re.compile(r"(?<![\w:/])/[^\s'\"]+")
Usage = dict[str, dict[str, float | int | None]]


class Counted(Protocol):
    """A store that knows how many rows it holds (rooms, finished games)."""

    def count(self) -> int:
        """How many are stored."""


def share(used: float, cap: float) -> dict[str, float | int | None]:
    """One cap's figures: what is used, the cap (None: none), and their ratio."""
    return {"used": used, "cap": cap or None, "share": round(used / cap, 4) if cap else None}


class Health:
    """The checks of one process, and its last answer while it is fresh."""

    def __init__(
        self, config: Mapping[str, Any], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.data_dir = Path(config["DATA_DIR"])
        self.floor_mb = int(config["MIN_FREE_MB"])
        self.key = str(config["SECRET_KEY"] or "")
        self.clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, Checks] | None = None
        self._last_usage: tuple[float, Usage] | None = None
        self._last_warnings: tuple[float, list[str]] | None = None
        self.redis_url: str | None = config.get("REDIS_URL")
        self._redis: Any = None
        self.caps = {
            "matches": int(config["MAX_MATCHES"]),
            "rooms": int(config["MAX_ROOMS"]),
            "history_games": int(config["MAX_HISTORY_GAMES"]),
        }
        # The key file is watched only if the key came from it (not from the environment).
        path = self.data_dir / datadir.KEY_FILE
        try:
            self.key_file: Path | None = path if datadir.read_key(path) == self.key else None
        except datadir.DataDirError:
            self.key_file = None

    def checks(self, store: Store) -> Checks:
        """Each part's state, ``"ok"`` or what is wrong; at most one run per window."""
        with self._lock:
            if self._last is not None and self.clock() - self._last[0] < WINDOW_SECONDS:
                return self._last[1]
            found = {
                "store": _guarded(store.check),
                "key": _guarded(self._check_key),
                "disk": _guarded(self._check_disk),
            }
            self._last = (self.clock(), found)
            return found

    def usage(self, store: Store, rooms: Counted, history: Counted) -> Usage:
        """How close the data is to its ceiling and each table to its cap; at most one
        count per window."""
        with self._lock:
            if self._last_usage and self.clock() - self._last_usage[0] < WINDOW_SECONDS:
                return self._last_usage[1]
            try:
                used, ceiling = store.size()
                found = {
                    "data_mb": share(round(used / MB, 2), round(ceiling / MB, 2)),
                    "matches": share(store.count(), self.caps["matches"]),
                    "rooms": share(rooms.count(), self.caps["rooms"]),
                    "history_games": share(history.count(), self.caps["history_games"]),
                }
            except Exception:  # the health check must answer, whatever went wrong
                found = {}
            self._last_usage = (self.clock(), found)
            return found

    def warnings(self) -> list[str]:
        """What is wrong without making the server unhealthy; at most one look per window."""
        with self._lock:
            if self._last_warnings and self.clock() - self._last_warnings[0] < WINDOW_SECONDS:
                return self._last_warnings[1]
            found = []
            if self.redis_url:
                try:
                    if self._redis is None:
                        self._redis = redis_client.connect(self.redis_url)
                    found += redis_client.warnings(self._redis)
                except Exception:  # Redis away: the store check says so
                    pass
            self._last_warnings = (self.clock(), found)
            return found

    def _check_key(self) -> str | None:
        if not self.key:
            return "no secret key"
        if self.key_file is None:
            return None
        try:
            key = datadir.read_key(self.key_file)
        except datadir.DataDirError:
            return (
                f"the key file {self.key_file.name} in the data dir is unreadable, empty or damaged"
            )
        if key != self.key:
            return f"the key file {self.key_file.name} in the data dir changed since the start"
        return None

    def _check_disk(self) -> str | None:
        try:
            free_mb = shutil.disk_usage(self.data_dir).free // (1024 * 1024)
        except OSError as err:
            return f"cannot read the data dir's free space: {err.strerror}"
        if free_mb < self.floor_mb:
            return f"{free_mb} MB free in the data dir, under the floor of {self.floor_mb} MB"
        return None


def _guarded(check: Callable[[], str | None]) -> str:
    """Run one check; a check that fails unexpectedly is failing, not a server error. Any
    path in what it says is left out."""
    try:
        found = check() or OK
    except Exception as err:  # the health check must answer, whatever went wrong
        found = f"the check failed: {type(err).__name__}: {err}"
    return without_paths(found)[:300]


def without_paths(text: str) -> str:
    """``text`` with every absolute path in it replaced by words."""
    return PATH.sub("(a path on the server)", text)
