"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013): a rating, its
deviation and its volatility, updated after a rating period of games.

A puzzle solve is one rating period for both sides: the player scores 1 for a solve at the
first try and 0 otherwise, the puzzle the other way round. The package on PyPI was not
taken: its volatility step squares the rating where the paper squares the deviation.
tests/test_training.py checks this module against the paper's worked example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
TAU = 0.5  # the system constant: how much the volatility may change
EPSILON = 0.000001
ITERATIONS = 100  # the volatility's root is found in far fewer steps


@dataclass(frozen=True)
class Rating:
    """A rating on the Glicko scale, its deviation and its volatility."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def to_dict(self) -> dict[str, float]:
        """The stored form."""
        return {"rating": self.rating, "deviation": self.deviation, "volatility": self.volatility}

    @classmethod
    def from_dict(cls, data: dict[str, float]) -> Rating:
        """The rating of ``to_dict``'s form."""
        return cls(float(data["rating"]), float(data["deviation"]), float(data["volatility"]))


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / TAU**2

    low = a
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0 and k < ITERATIONS:
            k += 1
        high = a - k * TAU
    f_low, f_high = f(low), f(high)
    for _ in range(ITERATIONS):
        if abs(high - low) <= EPSILON:
            break
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)


def rate(player: Rating, games: Sequence[tuple[Rating, float]]) -> Rating:
    """``player``'s rating after one period of ``games`` (each an opponent and the
    player's score against it: 1, 0.5 or 0); no games: only the deviation grows."""
    mu, phi = (player.rating - 1500) / SCALE, player.deviation / SCALE
    if not games:
        grown = math.sqrt(phi * phi + player.volatility**2)
        return Rating(player.rating, grown * SCALE, player.volatility)
    sides = [((o.rating - 1500) / SCALE, o.deviation / SCALE, score) for o, score in games]
    v = 1 / sum(_g(p) ** 2 * _expected(mu, m, p) * (1 - _expected(mu, m, p)) for m, p, _ in sides)
    gain = sum(_g(p) * (score - _expected(mu, m, p)) for m, p, score in sides)
    sigma = _volatility(phi, player.volatility, v * gain, v)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * gain
    return Rating(mu_new * SCALE + 1500, phi_new * SCALE, sigma)


def solved(player: Rating, puzzle: Rating, *, first_try: bool) -> tuple[Rating, Rating]:
    """Both ratings after the player met the puzzle: a solve at the first try is the
    player's win."""
    score = 1.0 if first_try else 0.0
    return rate(player, [(puzzle, score)]), rate(puzzle, [(player, 1 - score)])
