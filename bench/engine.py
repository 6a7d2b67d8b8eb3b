"""Engine benchmark: solve time, best-move look-up, minimax vs alpha-beta, CLI throughput.

Run with ``.venv/bin/python bench/engine.py`` (add ``--json`` for one JSON object).
Every number with a target is printed with PASS or MISS.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from webapp.game import engine
from webapp.game.board import Board
from webapp.game.search import SearchStats, alphabeta_search, minimax_search, root_search

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import percentile

ROOT = Path(__file__).resolve().parent.parent

LOOKUP_TARGET_US = 5.0
SOLVE_TARGET_MS = 100.0
CLI_TARGET_S = 1.0


@dataclass(frozen=True)
class Measure:
    """One benchmark figure, with its target when it has one."""

    key: str
    name: str
    value: float | int
    unit: str
    target: float | None = None

    @property
    def verdict(self) -> str | None:
        """PASS or MISS against the target, or None without one."""
        if self.target is None:
            return None
        return "PASS" if self.value <= self.target else "MISS"

    def to_dict(self) -> dict[str, object]:
        """JSON form, keyed by ``key`` in the output object."""
        return {
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "target": self.target,
            "verdict": self.verdict,
        }

    def line(self) -> str:
        """The human-readable row."""
        number = f"{self.value:,}" if isinstance(self.value, int) else f"{self.value:,.3f}"
        text = f"{self.name:<44} {number:>12} {self.unit}"
        if self.target is not None:
            text += f"   (target <= {self.target:g} {self.unit})  {self.verdict}"
        return text


def time_solve(repeat: int) -> list[float]:
    """Milliseconds to build the solved table from nothing, ``repeat`` times."""
    times = []
    for _ in range(repeat):
        engine.solved.cache_clear()
        start = time.perf_counter_ns()
        engine.solved()
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times


def playable_boards() -> list[Board]:
    """Every reachable position that is not over, in a fixed order."""
    return [Board(cells) for cells in sorted(engine.solved()) if not Board(cells).is_over()]


def time_lookups(boards: list[Board], rng: random.Random) -> list[float]:
    """Microseconds of each ``perfect_move`` call, one call per board."""
    times = []
    for board in boards:
        start = time.perf_counter_ns()
        engine.perfect_move(board, rng)
        times.append((time.perf_counter_ns() - start) / 1e3)
    return times


def clear_analysis_cache() -> None:
    """Forget the per-position analyses (the solved table stays built)."""
    # The cache is private to the engine; only the cold figure needs it emptied.
    engine._analysis.cache_clear()


def time_root_search(
    search: Callable[[str, SearchStats], int],
) -> tuple[float, int, int]:
    """Milliseconds, nodes and score of a first-move search from the empty board."""
    start = time.perf_counter_ns()
    _, score, stats = root_search(Board(), search)
    return (time.perf_counter_ns() - start) / 1e6, stats.nodes, score


def tictactoe_command() -> list[str]:
    """The installed console script beside this Python, else the module."""
    script = Path(sys.executable).with_name("tictactoe")
    return [str(script)] if script.exists() else [sys.executable, "-m", "webapp.cli"]


def time_cli(repeat: int) -> list[float]:
    """Seconds for ``tictactoe solve`` to analyse every position fed on stdin."""
    boards = sorted(engine.solved())
    stdin = "\n".join(boards) + "\n"
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        proc = subprocess.run(
            [*tictactoe_command(), "solve"],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        times.append((time.perf_counter_ns() - start) / 1e9)
        lines = proc.stdout.count("\n")
        if proc.returncode != 0 or lines != len(boards):
            raise SystemExit(f"tictactoe solve failed ({proc.returncode}, {lines} lines)")
    return times


def run(repeat: int) -> list[Measure]:
    """Take every measurement."""
    solve = time_solve(repeat)
    boards = playable_boards()

    clear_analysis_cache()
    cold = time_lookups(boards, random.Random(1))
    time_lookups(boards, random.Random(1))  # warm every analysis
    warm = time_lookups(boards, random.Random(1))

    minimax_ms, minimax_nodes, minimax_score = time_root_search(minimax_search)
    alphabeta_ms, alphabeta_nodes, alphabeta_score = time_root_search(alphabeta_search)
    if minimax_score != alphabeta_score:
        raise SystemExit(f"searches disagree: {minimax_score} vs {alphabeta_score}")

    cli = time_cli(repeat)
    positions = len(engine.solved())
    return [
        Measure(
            "solve_ms",
            "solve: build table, median",
            statistics.median(solve),
            "ms",
            SOLVE_TARGET_MS,
        ),
        Measure("solve_best_ms", "solve: build table, best", min(solve), "ms"),
        Measure(
            "lookup_us",
            "lookup: perfect_move median (warm)",
            statistics.median(warm),
            "us",
            LOOKUP_TARGET_US,
        ),
        Measure("lookup_p99_us", "lookup: perfect_move p99 (warm)", percentile(warm, 0.99), "us"),
        Measure(
            "lookup_cold_us",
            "lookup: perfect_move median (cold pass)",
            statistics.median(cold),
            "us",
        ),
        Measure(
            "lookup_cold_mean_us",
            "lookup: perfect_move mean (cold pass)",
            statistics.fmean(cold),
            "us",
        ),
        Measure("lookup_positions", "lookup: positions timed", len(boards), "calls"),
        Measure("minimax_ms", "first move: minimax time", minimax_ms, "ms"),
        Measure("minimax_nodes", "first move: minimax nodes", minimax_nodes, "nodes"),
        Measure("alphabeta_ms", "first move: alpha-beta time", alphabeta_ms, "ms"),
        Measure("alphabeta_nodes", "first move: alpha-beta nodes", alphabeta_nodes, "nodes"),
        Measure(
            "node_ratio",
            "first move: nodes, minimax / alpha-beta",
            minimax_nodes / alphabeta_nodes,
            "x",
        ),
        Measure(
            "time_ratio",
            "first move: time, minimax / alpha-beta",
            minimax_ms / alphabeta_ms,
            "x",
        ),
        Measure(
            "cli_s",
            f"cli: solve all {positions:,} positions, median",
            statistics.median(cli),
            "s",
            CLI_TARGET_S,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the repeated timings (5)")
    args = parser.parse_args(argv)
    measures = run(max(args.repeat, 1))
    if args.json:
        print(json.dumps({m.key: m.to_dict() for m in measures}, indent=2))
    else:
        for measure in measures:
            print(measure.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
