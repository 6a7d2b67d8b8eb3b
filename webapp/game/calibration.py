"""Promises checked in the open: over a player's finished targeted matches, the chance
of winning each promised against whether it was won.

The matches are put in buckets by the chance promised (tenths: 0-0.1, ..., 0.9-1), and
each bucket says how many matches it holds, how many were won, the mean chance promised,
and the share won with Wilson's 95% interval. If the promises are kept, the mean
promised falls within the interval in about 19 buckets of 20. A match counts once, from
the history entry of its last game (``match_over``); a match replaced before its end,
or one whose games a player's cap has dropped, does not count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .history import Entry, kind_of, upgrade_entry
from .skill import wilson

BUCKETS = 10
Outcome = tuple[float, bool]  # (the chance promised, whether the match was won)


@dataclass(frozen=True)
class Bucket:
    """The targeted matches whose promised chance was from ``low`` up to ``high``."""

    low: float
    high: float
    matches: int
    won: int
    promised: float  # the mean chance promised

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the range, the counts, the mean promised, the share won and its interval."""
        low, high = wilson(self.won, self.matches)
        return {
            "from": self.low,
            "to": self.high,
            "matches": self.matches,
            "won": self.won,
            "promised": round(self.promised, 4),
            "observed": round(self.won / self.matches, 4),
            "interval": [round(low, 4), round(high, 4)],
        }


@dataclass(frozen=True)
class Calibration:
    """All of a player's finished targeted matches: how many, how many won, the wins the
    promises add up to, and the buckets that hold any."""

    matches: int
    won: int
    expected: float
    buckets: tuple[Bucket, ...]

    def to_dict(self) -> dict[str, Any]:
        """As JSON, the buckets from the lowest chance promised."""
        return {
            "matches": self.matches,
            "won": self.won,
            "expected_wins": round(self.expected, 2),
            "buckets": [bucket.to_dict() for bucket in self.buckets],
        }


def targeted_outcomes(entries: Iterable[Entry]) -> list[Outcome]:
    """The chance promised and the result of each finished targeted match in ``entries``
    (history entries, any format)."""
    found = []
    for entry in map(upgrade_entry, entries):
        promise = entry["record"].get("promise") if kind_of(entry) == "ai" else None
        if promise is not None and entry["match_over"]:
            found.append((float(promise["chance"]), entry["match_winner"] == "human"))
    return found


def calibration(outcomes: Iterable[Outcome]) -> Calibration:
    """The promises of ``outcomes`` against what happened, in buckets of a tenth."""
    grouped: dict[int, list[Outcome]] = {}
    for chance, won in outcomes:
        grouped.setdefault(min(int(chance * BUCKETS), BUCKETS - 1), []).append((chance, won))
    buckets = tuple(
        Bucket(
            low=index / BUCKETS,
            high=(index + 1) / BUCKETS,
            matches=len(group),
            won=sum(won for _, won in group),
            promised=sum(chance for chance, _ in group) / len(group),
        )
        for index, group in sorted(grouped.items())
    )
    return Calibration(
        matches=sum(b.matches for b in buckets),
        won=sum(b.won for b in buckets),
        expected=sum(b.promised * b.matches for b in buckets),
        buckets=buckets,
    )


def calibration_of(entries: Iterable[Entry]) -> Calibration:
    """The calibration of a player's targeted matches, from their history entries."""
    return calibration(targeted_outcomes(entries))
