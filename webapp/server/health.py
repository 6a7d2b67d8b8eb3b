"""The health check behind ``/healthz``: the store, the secret key and the free disk.

Each part is checked for real (the store is read and written), so the answer is cached
for ``WINDOW_SECONDS`` per process: a supervisor or a proxy may ask as often as it likes.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from . import datadir
from .store import Store

WINDOW_SECONDS = 1.5
OK = "ok"
Checks = dict[str, str]


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

    def _check_key(self) -> str | None:
        if not self.key:
            return "no secret key"
        if self.key_file is None:
            return None
        try:
            key = datadir.read_key(self.key_file)
        except datadir.DataDirError:
            return f"the key file {self.key_file} is unreadable, empty or damaged"
        if key != self.key:
            return f"the key file {self.key_file} changed since the start"
        return None

    def _check_disk(self) -> str | None:
        try:
            free_mb = shutil.disk_usage(self.data_dir).free // (1024 * 1024)
        except OSError as err:
            return f"cannot read the free space of {self.data_dir}: {err.strerror}"
        if free_mb < self.floor_mb:
            return f"{free_mb} MB free in {self.data_dir}, under the floor of {self.floor_mb} MB"
        return None


def _guarded(check: Callable[[], str | None]) -> str:
    """Run one check; a check that fails unexpectedly is failing, not a server error."""
    try:
        return check() or OK
    except Exception as err:  # the health check must answer, whatever went wrong
        return f"the check failed: {type(err).__name__}: {err}"[:300]
