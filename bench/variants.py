"""The variants' engine: best-move times, the proof of 4x4k4, books and memory.

Run with ``.venv/bin/python bench/variants.py`` (a few minutes: the plain memoised
negamax alone takes minutes and about a gigabyte; ``--no-plain`` skips it, ``--json``
prints one JSON object). Every number with a target is printed with PASS or MISS.

- Best move: 10,000 distinct unfinished positions of each variant from seeded random
  games (the empty board first), each timed once with the variant's book loaded and the
  search's table kept between calls, as a worker keeps it; then again with the table
  emptied before every call (no target: the worst case of a fresh worker).
- Proof of 4x4k4: the engine without its book from the empty board (every call of the
  search counted as a position), against a plain memoised negamax (no pruning, no
  symmetry, every position it stores counted).
- Times of a whole proof or build are CPU seconds; a best move's are given both ways.
- Memory: resident memory of a fresh process before and after loading the seven books
  and answering the 70,000 best moves.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import Measure  # bench/engine.py: the figures' shape

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import percentile

from webapp.game.book import Book, build_book, solver_with
from webapp.game.position import Position
from webapp.game.search_rules import BIG
from webapp.game.solver import INF, Solver, farther
from webapp.game.variant import VARIANTS, Variant, variant_named

BEST_MOVE_P99_MS = 20.0
PROOF_S = 10.0
PROOF_FEWER = 20
MEMORY_MB = 50.0
POSITIONS = 10_000


def sample_positions(variant: Variant, count: int, seed: int = 43) -> list[Position]:
    """``count`` distinct unfinished positions of random games, the empty board first."""
    rng = random.Random(seed)
    found = {str(Position.empty(variant)): Position.empty(variant)}
    for _ in range(count * 50):
        position = Position.empty(variant)
        while len(found) < count:
            position = position.apply_move(rng.choice(position.legal_moves()))
            if position.is_over():
                break
            found.setdefault(str(position), position)
        if len(found) == count:
            break
    return list(found.values())  # 3x3 games have fewer: then every one of them


def time_best_moves(
    book: Book, positions: list[Position], *, cold: bool
) -> tuple[list[float], list[float]]:
    """Milliseconds per best move, wall and CPU, the table kept or emptied before each.

    The CPU time is this process's alone: on a machine shared with other work the wall
    time also counts the waits for a core.
    """
    solver = solver_with(book)
    walls, cpus = [], []
    for position in positions:
        if cold:
            solver.table.clear()
        start, cpu = time.perf_counter_ns(), time.process_time_ns()
        solver.best_move(position)
        cpus.append((time.process_time_ns() - cpu) / 1e6)
        walls.append((time.perf_counter_ns() - start) / 1e6)
    return walls, cpus


def prove_engine(name: str) -> tuple[int, float, int]:
    """(positions searched, seconds, score) of the engine from the empty board, no book."""
    variant = variant_named(name)
    solver = Solver(variant, table_limit=10_000_000)
    start = time.process_time()
    score = solver.score(solver.rules.state(Position.empty(variant)))
    return solver.nodes, time.process_time() - start, score


def prove_plain(name: str) -> tuple[int, float, int]:
    """(positions stored, seconds, score) of a plain memoised negamax, depth-aware."""
    variant = variant_named(name)
    lines, cells = variant.lines, variant.cells
    full = (1 << cells) - 1
    memo: dict[int, int] = {}

    def negamax(mover: int, other: int) -> int:
        key = mover | other << cells
        known = memo.get(key)
        if known is not None:
            return known
        if any(other & line == line for line in lines):
            score = -BIG
        elif mover | other == full:
            score = 0
        else:
            score = -INF
            free = full & ~(mover | other)
            while free:
                bit = free & -free
                free ^= bit
                score = max(score, -farther(negamax(other, mover | bit)))
        memo[key] = score
        return score

    start = time.process_time()
    score = negamax(0, 0)
    return len(memo), time.process_time() - start, score


def resident_mb() -> float:
    """This process's resident memory, from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory_child(folder: Path) -> None:
    """In a fresh process: RSS before and after the books and every best move."""
    before = resident_mb()
    for variant in VARIANTS:
        book = Book.from_bytes(variant, (folder / variant.name).read_bytes())
        solver = solver_with(book)
        for position in sample_positions(variant, POSITIONS):
            solver.best_move(position)
        globals().setdefault("kept", []).append(solver)  # as a worker keeps them all
    print(json.dumps({"before": before, "after": resident_mb()}))


def run(plain: bool) -> list[Measure]:
    """Take every measurement."""
    measures = []
    with tempfile.TemporaryDirectory() as folder:
        for variant in VARIANTS:
            start = time.process_time()
            book = build_book(variant)
            built = time.process_time() - start
            data = book.to_bytes()
            (Path(folder) / variant.name).write_bytes(data)
            positions = sample_positions(variant, POSITIONS)
            warm, warm_cpu = time_best_moves(book, positions, cold=False)
            cold, cold_cpu = time_best_moves(book, positions, cold=True)
            name = variant.name
            measures += [
                Measure(f"{name}_book_s", f"{name}: book build", built, "s"),
                Measure(f"{name}_book_kb", f"{name}: book size", len(data) // 1024, "KB"),
                Measure(f"{name}_positions", f"{name}: positions timed", len(positions), "pos."),
                Measure(f"{name}_p50_ms", f"{name}: best move p50", percentile(warm, 0.5), "ms"),
                Measure(
                    f"{name}_p99_ms",
                    f"{name}: best move p99",
                    percentile(warm, 0.99),
                    "ms",
                    BEST_MOVE_P99_MS,
                ),
                Measure(
                    f"{name}_cpu_p99_ms",
                    f"{name}: best move p99, CPU",
                    percentile(warm_cpu, 0.99),
                    "ms",
                    BEST_MOVE_P99_MS,
                ),
                Measure(f"{name}_max_ms", f"{name}: best move max", max(warm), "ms"),
                Measure(
                    f"{name}_cold_p99_ms",
                    f"{name}: best move p99, table emptied",
                    percentile(cold, 0.99),
                    "ms",
                ),
                Measure(
                    f"{name}_cold_cpu_p99_ms",
                    f"{name}: best move p99, table emptied, CPU",
                    percentile(cold_cpu, 0.99),
                    "ms",
                ),
            ]
        child = subprocess.run(
            [sys.executable, __file__, "--memory-child", folder],
            check=True,
            capture_output=True,
            text=True,
        )
        memory = json.loads(child.stdout)
    grown = memory["after"] - memory["before"]
    measures.append(
        Measure("memory_mb", "memory: 7 books, 70,000 best moves", grown, "MB", MEMORY_MB)
    )
    plain_nodes = 0
    nodes, seconds, score = prove_engine("4x4k4")
    if score != 0:
        raise SystemExit(f"the engine finds 4x4k4 worth {score}, not a draw")
    measures += [
        Measure("proof_s", "4x4k4 proof: engine, time", seconds, "s", PROOF_S),
    ]
    if plain:
        plain_nodes, plain_seconds, plain_score = prove_plain("4x4k4")
        if plain_score != 0:
            raise SystemExit(f"the plain negamax finds 4x4k4 worth {plain_score}, not a draw")
        measures += [
            Measure(
                "plain_positions", "4x4k4 proof: plain negamax, positions", plain_nodes, "pos."
            ),
            Measure("plain_s", "4x4k4 proof: plain negamax, time", plain_seconds, "s"),
        ]
    target = plain_nodes / PROOF_FEWER if plain else None
    measures.append(
        Measure("proof_positions", "4x4k4 proof: engine, positions", nodes, "pos.", target)
    )
    if plain:
        measures.append(
            Measure("proof_fewer", "4x4k4 proof: plain / engine", plain_nodes / nodes, "x")
        )
    return measures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--no-plain", action="store_true", help="skip the plain negamax")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(Path(args.memory_child))
        return
    measures = run(plain=not args.no_plain)
    if args.json:
        print(json.dumps({m.key: m.to_dict() for m in measures}, indent=2))
    else:
        for measure in measures:
            print(measure.line())
    if any(m.verdict == "MISS" for m in measures):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
