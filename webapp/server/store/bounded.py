"""A map that keeps only its most recently used entries: what a process remembers of
its recent players (their match, their cards' keys, their History's last read, their
lab traces), bounded so that many players cannot grow it without end."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LastUsed(OrderedDict[K, V]):
    """At most ``most`` entries, the least recently used dropped first. ``put`` and
    ``touch`` count as a use; reading with ``get`` or ``[]`` does not."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` as the most recently used, dropping the oldest."""
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.most:
            self.popitem(last=False)

    def touch(self, key: K) -> None:
        """Count ``key`` (if kept) as used now."""
        if key in self:
            self.move_to_end(key)
