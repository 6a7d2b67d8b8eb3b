"""Write webapp/game/variant_chances.json: one game's chances in p and S on every variant
but classic, from a pass over all its positions (webapp/game/variant_chances.py).

Run with ``.venv/bin/python bench/variant_chances.py [--jobs N] [VARIANT...]`` (all six
by default; the entries of the others are kept; ``--jobs`` shares the passes among N
processes). Each variant says its positions and its time: the
3x3 ones take about a second, 4x4k3 about 2 minutes and 2 GB, 4x4k4 and notakto3 some
more (docs/levels.md). tests/test_variant_odds.py recomputes the small ones and checks
the big ones against games played.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from typing import Any

import numpy as np

from webapp.game.variant import CLASSIC, VARIANTS, Variant, variant_named
from webapp.game.variant_chances import (
    TABLE,
    Positions,
    entry_of,
    skill_coefficients,
    skill_column,
)

_SHARED: list[Positions] = []
"""The positions being worked on, inherited by the forked processes (never copied)."""


def _column(skill: float) -> np.ndarray:
    return skill_column(_SHARED[0], skill)


def entry(variant: Variant, jobs: int) -> dict[str, Any]:
    """One variant's entry, its skill points shared among ``jobs`` forked processes that
    read the positions built once here."""
    positions = Positions(variant)
    if jobs < 2:
        return entry_of(positions, skill_coefficients(positions))
    _SHARED[:] = [positions]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        found = skill_coefficients(positions, lambda skills: pool.map(_column, skills, 1))
    _SHARED.clear()
    return entry_of(positions, found)


def main(argv: list[str] | None = None) -> int:
    """Compute the table of the variants named (all but classic by default) and write it,
    keeping the entries of the others."""
    argv = list(argv or [])
    jobs = 1
    if argv[:1] == ["--jobs"]:
        jobs, argv = int(argv[1]), argv[2:]
    names = argv if argv else [v.name for v in VARIANTS if v != CLASSIC]
    table = json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.exists() else {}
    for name in names:
        started = time.perf_counter()
        table[name] = entry(variant_named(name), jobs)
        took = time.perf_counter() - started
        print(f"{name}: {table[name]['positions']:,} positions, {took:.0f} s", flush=True)
        ordered = {v.name: table[v.name] for v in VARIANTS if v.name in table}
        TABLE.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
