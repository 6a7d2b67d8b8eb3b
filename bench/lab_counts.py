"""Count the eight kinds of search from every position with 7 to 9 empty cells, under
each scoring with no depth limit, and write them to webapp/server/services/lab/counts.json.

The lab page answers these from the file: they are the costly ones (the empty board's
plain minimax visits 549,946 nodes). The counts are exact; the times were measured once
on the machine that ran this, and the file says when.
"""

from __future__ import annotations

import datetime
import json
import time
from dataclasses import astuple
from pathlib import Path

from webapp.game import lab
from webapp.game.board import Board

OUT = (
    Path(__file__).resolve().parent.parent
    / "webapp"
    / "server"
    / "services"
    / "lab"
    / "counts.json"
)


def main() -> None:
    """Measure every costly position and write the file."""
    first = [Board().apply_move(cell) for cell in range(9)]
    second = [board.apply_move(cell) for board in first for cell in board.legal_moves()]
    boards = [Board(), *first, *second]
    positions = {}
    for board in boards:
        for scoring in lab.SCORINGS:
            found = [lab.measure(board, kind, time.perf_counter) for kind in lab.kinds(scoring)]
            positions[f"{board.cells} {scoring}"] = [
                [m.options.kind, *astuple(m.counts), round(m.seconds * 1e3)] for m in found
            ]
    measured = datetime.date.today().isoformat()
    OUT.write_text(written(measured, positions))


def written(measured: str, positions: dict[str, list[list[object]]]) -> str:
    """The file's text: one position and scoring a line."""
    lines = [f"  {json.dumps(key)}: {json.dumps(rows)}" for key, rows in positions.items()]
    body = ",\n".join(lines)
    return f'{{"measured": "{measured}", "positions": {{\n{body}\n}}}}\n'


if __name__ == "__main__":
    main()
