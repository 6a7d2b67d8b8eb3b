"""An opening book: every position of a variant's first plies with its exact score.

Early positions cost the search the most (on 4x4 a best move from the first few plies
takes a cold search hundreds of milliseconds); after them a search is a few
milliseconds. So each variant's book holds the exact score of every position, up to
symmetry, with at most ``depth`` marks: the small games' books hold every position,
and the search then never goes past a move's children. A book is built once with the
engine itself and kept as bytes (the caller stores them; the core touches no file).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from .position import Position
from .search_rules import BIG
from .solver import Solver
from .variant import Variant

BOOK_DEPTH = {
    "classic": 9,
    "misere": 9,
    "4x4k3": 5,
    "4x4k4": 7,
    "notakto1": 9,
    "notakto2": 18,
    "notakto3": 27,
}
"""How many marks each variant's book goes to (all of them for the 3x3 boards)."""

_MAGIC = b"tictactoe-book 1\n"


class BookError(ValueError):
    """Bytes that are not a book of the variant asked for; ``code`` is stable."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "bad_book"
        self.message = message


@dataclass(frozen=True)
class Book:
    """Exact scores by canonical key (the solver's), keys sorted for a binary search."""

    variant: Variant
    depth: int
    keys: array[int]
    scores: array[int]

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, key: int) -> int | None:
        """The score of the position with canonical ``key``, or None outside the book."""
        keys = self.keys
        at = bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            return self.scores[at]
        return None

    def to_bytes(self) -> bytes:
        """The book as bytes: a header line, then keys and scores little-endian."""
        keys, scores = array("Q", self.keys), array("h", self.scores)
        if sys.byteorder == "big":
            keys.byteswap()
            scores.byteswap()
        header = f"{self.variant.name} {self.depth} {len(keys)}\n".encode()
        return _MAGIC + header + keys.tobytes() + scores.tobytes()

    @classmethod
    def from_bytes(cls, variant: Variant, data: bytes) -> Book:
        """Read ``to_bytes``'s output back; a ``BookError`` for anything else."""
        if not data.startswith(_MAGIC):
            raise BookError("not a book: the first line is not the book's")
        end = data.find(b"\n", len(_MAGIC))
        if end < 0:
            raise BookError("a book's header is its variant, depth and size on one line")
        try:
            name, depth_text, count_text = data[len(_MAGIC) : end].decode().split(" ")
            depth, count = int(depth_text), int(count_text)
        except ValueError as error:
            raise BookError("a book's header is its variant, depth and size") from error
        if name != variant.name:
            raise BookError(f"this book is for {name!r}, not {variant.name!r}")
        body = data[end + 1 :]
        if len(body) != count * 10:
            raise BookError(f"a book of {count} positions has {count * 10} bytes after its header")
        keys, scores = array("Q"), array("h")
        keys.frombytes(body[: count * 8])
        scores.frombytes(body[count * 8 :])
        if sys.byteorder == "big":
            keys.byteswap()
            scores.byteswap()
        if any(a >= b for a, b in pairwise(keys)) or any(abs(score) > BIG for score in scores):
            raise BookError("a book's keys are sorted and its scores within the scores' range")
        return cls(variant, depth, keys, scores)


def positions_up_to(solver: Solver, depth: int) -> list[dict[int, int]]:
    """Each layer's unfinished positions by canonical key (layer ``n``: ``n`` marks)."""
    rules = solver.rules
    start = rules.state(Position.empty(solver.variant))
    layers = [{rules.canonical(start): start}]
    while len(layers) <= depth:
        after: dict[int, int] = {}
        for state in layers[-1].values():
            for _, child, at_once in rules.moves(state):
                if at_once is None and rules.moves(child):
                    after.setdefault(rules.canonical(child), child)
        if not after:
            break
        layers.append(after)
    return layers


def build_book(
    variant: Variant,
    depth: int | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> Book:
    """Solve every position with at most ``depth`` marks (the variant's default if None)."""
    depth = BOOK_DEPTH[variant.name] if depth is None else depth
    solver = Solver(variant, table_limit=2_000_000)
    layers = positions_up_to(solver, depth)
    scores: dict[int, int] = {}
    for marks in reversed(range(len(layers))):  # deepest first: they feed the table
        for key, state in layers[marks].items():
            scores[key] = solver.score(state)
        if progress is not None:
            progress(marks, len(scores))
    keys = sorted(scores)
    return Book(variant, depth, array("Q", keys), array("h", (scores[k] for k in keys)))


def solver_with(book: Book) -> Solver:
    """A solver for the book's variant that looks its positions up instead of searching."""
    solver = Solver(book.variant)
    solver.use_book(book.lookup)
    return solver
