"""The dice of a game: one committed stream of numbers behind every random choice.

Commit-reveal: each game has its own secret server seed, whose SHA-256 is shown before
the first move; the player's client seed goes into every number, and the seed is
revealed when the game ends so that anyone can recompute the stream. docs/fairness.md
specifies it exactly; this module is its only implementation in the game.

Number ``n`` of game ``g`` is HMAC-SHA256(seed, f"{client_seed}:{g}:{n}"), read as a
big-endian integer; choosing one of ``k`` things takes it modulo ``k``. Number 0 draws
who starts; then each AI move draws its roll (adaptive mode), then its pick among the
sorted candidate cells.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, TypeVar

from .board import RuleError

SEED_BYTES = 32
CLIENT_SEED_MAX = 96  # a seed the player set (up to 64) joined to a fresh one per game
CLIENT_SEED = re.compile(rf"[A-Za-z0-9_-]{{1,{CLIENT_SEED_MAX}}}")
SERVER_SEED = re.compile(r"[0-9a-f]{64}")  # 32 bytes in lowercase hex
SERVER_CLIENT_SEED = "server"  # the client seed of a game the server starts unasked
FIRST_DRAW = 0  # the stream number that draws who starts

T = TypeVar("T")


class FairnessError(RuleError):
    """A seed that breaks the rules of docs/fairness.md; ``field`` names the setting."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(code, message)
        self.field = field


def check_client_seed(seed: object) -> str:
    """``seed`` if it is a valid client seed, else a ``bad_setting`` error saying why."""
    if not isinstance(seed, str) or not CLIENT_SEED.fullmatch(seed):
        raise FairnessError(
            "bad_setting",
            f"the client seed must be 1 to {CLIENT_SEED_MAX} letters, digits, - or _, got {seed!r}",
            field="client_seed",
        )
    return seed


def new_server_seed(rng: Random) -> str:
    """A fresh secret server seed: 32 bytes from ``rng``, as 64 lowercase hex digits."""
    return rng.randbytes(SEED_BYTES).hex()


def check_server_seed(seed: object) -> str:
    """``seed`` if it is 32 bytes as 64 lowercase hex digits."""
    if not isinstance(seed, str) or not SERVER_SEED.fullmatch(seed):
        raise FairnessError("bad_state", f"a server seed is 64 lowercase hex digits, got {seed!r}")
    return seed


@functools.lru_cache(maxsize=4096)  # every snapshot of a game shows it again
def commitment(server_seed: str) -> str:
    """SHA-256 of the seed's bytes, in hex: what is shown before the game."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def number(server_seed: str, client_seed: str, game: int, n: int) -> int:
    """The ``n``-th number of game ``game``'s stream, as a 256-bit integer."""
    message = f"{client_seed}:{game}:{n}".encode()
    # hmac.digest: the same HMAC-SHA256 as hmac.new(...).digest(), in one C call.
    digest = hmac.digest(bytes.fromhex(server_seed), message, "sha256")
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Dice:
    """One game's stream: its seeds, and how many numbers it has used.

    ``committed`` is False only for a game that began before the dice existed (an
    upgraded stored match): it has a stream, but no commitment was ever shown for it.
    ``player_seeded`` is False for a game whose client seed the server already knew when
    its commitment was shown: one the server started unasked, or one that kept the
    previous game's client seed.
    """

    server_seed: str
    client_seed: str
    game: int
    used: int = 0
    committed: bool = True
    player_seeded: bool = True

    def __post_init__(self) -> None:
        check_server_seed(self.server_seed)
        check_client_seed(self.client_seed)

    def to_dict(self) -> dict[str, Any]:
        """As JSON-compatible data."""
        return {
            "server_seed": self.server_seed,
            "client_seed": self.client_seed,
            "game": self.game,
            "used": self.used,
            "committed": self.committed,
            "player_seeded": self.player_seeded,
        }

    @property
    def commitment(self) -> str:
        """The SHA-256 commitment to this game's server seed."""
        return commitment(self.server_seed)

    def draw(self, k: int) -> tuple[int, int, Dice]:
        """One choice among ``k``: (the choice, the stream number used, the dice after)."""
        n = self.used
        value = number(self.server_seed, self.client_seed, self.game, n) % k
        return value, n, self.with_used(n + 1)

    def with_used(self, used: int) -> Dice:
        """These dice with ``used`` numbers drawn (the seeds were checked when they were made)."""
        after = object.__new__(Dice)  # dataclasses.replace would check the seeds again
        after.__dict__.update(self.__dict__, used=used)
        return after

    def pick(self, options: Sequence[T]) -> tuple[T, int, Dice]:
        """One of ``options`` (in the order given): (it, the stream number, the dice after)."""
        if not options:
            raise RuleError("game_over", "the game is over: no more moves")
        index, n, after = self.draw(len(options))
        return options[index], n, after
