"""Find the puzzles of every larger variant and write them to webapp/game/puzzles.json.

The page serves them from the file: finding them takes about 35 s in all (4x4k4's alone
take minutes from its first positions without its opening book, so its random games are
proved from their sixth mark on). Each is proved by the variant's solver here, and again
by tests/test_training.py; the file says how they were made.

    .venv/bin/python -m bench.puzzles
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path

from webapp.game.training import PUZZLES_FILE, variant_puzzles
from webapp.game.variant import VARIANTS

SEED, PER_THEME, PLAYOUTS = 1, 200, 3000
MIN_STONES = {"4x4k4": 6}  # its earlier positions want its book to be proved in time


def main() -> None:
    """Find every larger variant's puzzles and write the file."""
    found: dict[str, list[list[object]]] = {}
    for variant in VARIANTS:
        if variant.name == "classic":
            continue
        start = time.perf_counter()
        made = variant_puzzles(
            variant,
            random.Random(SEED),
            per_theme=PER_THEME,
            playouts=PLAYOUTS,
            min_stones=MIN_STONES.get(variant.name, 0),
        )
        found[variant.name] = [[p.board, p.theme, list(p.answer)] for p in made]
        themes = dict(Counter(p.theme for p in made))
        print(f"{variant.name}: {themes} in {time.perf_counter() - start:.1f} s", flush=True)
    made_by = {"seed": SEED, "per_theme": PER_THEME, "playouts": PLAYOUTS, "min_stones": MIN_STONES}
    text = json.dumps({"made": made_by, "puzzles": found}, separators=(",", ":"))
    Path(PUZZLES_FILE).write_text(text + "\n")
    print(f"webapp/game/{PUZZLES_FILE.name}: {len(text):,} bytes")


if __name__ == "__main__":
    main()
