"""The lab's costly counts, measured once by bench/lab_counts.py and shipped in
counts.json. Standard library only: ``tictactoe explain`` reads them too."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

COUNTS_FILE = Path(__file__).resolve().parent / "counts.json"


@functools.cache
def shipped_counts() -> tuple[str, dict[str, list[list[Any]]]]:
    """The counts shipped in counts.json: the date their times were measured, and
    each costly position and scoring's rows (kind, nodes, hits, cuts, ms)."""
    stored = json.loads(COUNTS_FILE.read_text())
    return stored["measured"], stored["positions"]
