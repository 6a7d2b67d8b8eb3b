"""Write webapp/game/variant_chances.json: one game's chances in p and S on every variant
but classic, from a pass over all its positions (webapp/game/variant_chances.py).

Run with ``.venv/bin/python bench/variant_chances.py [VARIANT...]`` (all six by default;
the entries of the others are kept). Each variant says its positions and its time: the
3x3 ones take about a second, 4x4k3 about 2 minutes and 2 GB, 4x4k4 and notakto3 some
more (docs/levels.md). tests/test_variant_odds.py recomputes the small ones and checks
the big ones against games played.
"""

from __future__ import annotations

import json
import sys
import time

from webapp.game.variant import CLASSIC, VARIANTS, variant_named
from webapp.game.variant_chances import TABLE, ends_entry, table_entry

ENDS_ONLY = {"notakto3"}
"""Variants too big for every power of S here: their random and perfect players only."""


def main(argv: list[str] | None = None) -> int:
    """Compute the table of the variants named (all but classic by default) and write it,
    keeping the entries of the others."""
    names = argv if argv else [v.name for v in VARIANTS if v != CLASSIC]
    table = json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.exists() else {}
    for name in names:
        started = time.perf_counter()
        entry = ends_entry if name in ENDS_ONLY else table_entry
        table[name] = entry(variant_named(name))
        took = time.perf_counter() - started
        print(f"{name}: {table[name]['positions']:,} positions, {took:.0f} s", flush=True)
        ordered = {v.name: table[v.name] for v in VARIANTS if v.name in table}
        TABLE.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
