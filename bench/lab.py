"""Lab benchmark: the server's work for ``lab_children`` (opening a node), timed.

Run with ``.venv/bin/python bench/lab.py`` (``make bench-lab``; add ``--json`` for one
JSON object). It opens the empty board's root and a spread of other nodes (every
position after one or two moves, and seeded random positions of every depth, each at
its root and along a path) under every combination of the choices (4 scorings, prune,
table, symmetry), each several times, and reports p50, p99 and the maximum in
milliseconds per combination against the promise: under 50 ms on the server.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from webapp.game import lab
from webapp.game.board import Board
from webapp.server.services.lab.answers import children_answer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import percentile

TARGET_MS = 50.0


def random_board(rng: random.Random, plies: int) -> Board:
    """A legal position after ``plies`` random moves (fewer if the game ends first)."""
    board = Board()
    for _ in range(plies):
        if board.is_over():
            break
        board = board.apply_move(rng.choice(board.legal_moves()))
    return board


def nodes(seed: int) -> list[tuple[Board, tuple[int, ...]]]:
    """The nodes opened: the empty board's root and its children's, positions after two
    moves, and random positions of each depth with a path of one or two moves."""
    rng = random.Random(seed)
    empty = Board()
    found: list[tuple[Board, tuple[int, ...]]] = [(empty, ())]
    found += [(empty, (cell,)) for cell in range(9)]
    found += [(empty, (a, b)) for a, b in itertools.permutations(range(9), 2)][::7]
    for plies in range(1, 8):
        for _ in range(3):
            board = random_board(rng, plies)
            if board.is_over():
                continue
            path = tuple(rng.sample(board.legal_moves(), min(2, board.empties - 1)))
            found += [(board, ()), (board, path[:1])]
    return found


def combinations() -> list[lab.Options]:
    """Every combination of the choices, with no depth limit (the costly case)."""
    flags = list(itertools.product((False, True), repeat=3))
    return [lab.Options(s, p, t, y) for s in lab.SCORINGS for p, t, y in flags]


def measure(repeats: int, seed: int) -> list[dict[str, Any]]:
    """Each combination's p50, p99 and maximum over every node, ``repeats`` times each."""
    opened = nodes(seed)
    rows = []
    for options in combinations():
        times = []
        for _ in range(repeats):
            for board, path in opened:
                began = time.perf_counter()
                children_answer(board, path, options)
                times.append((time.perf_counter() - began) * 1e3)
        times.sort()
        rows.append(
            {
                "scoring": options.scoring,
                "kind": options.kind,
                "opened": len(times),
                "p50_ms": round(percentile(times, 0.5), 2),
                "p99_ms": round(percentile(times, 0.99), 2),
                "max_ms": round(times[-1], 2),
            }
        )
    return rows


def main() -> int:
    """Measure, print, and exit 1 if any combination's maximum misses the target."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = measure(args.repeats, args.seed)
    missed = [row for row in rows if row["max_ms"] >= TARGET_MS]
    if args.json:
        print(json.dumps({"target_ms": TARGET_MS, "rows": rows}, indent=2))
    else:
        print(f"{'scoring':8} {'kind':26} {'opened':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}")
        for row in rows:
            verdict = "MISS" if row in missed else "PASS"
            print(
                f"{row['scoring']:8} {row['kind']:26} {row['opened']:6} {row['p50_ms']:7.2f}"
                f" {row['p99_ms']:7.2f} {row['max_ms']:7.2f} {verdict}"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
