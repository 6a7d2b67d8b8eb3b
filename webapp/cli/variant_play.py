"""The rule sets beyond classic in the terminal: ``--variant``, the opening book, and a game
after game against the perfect AI (``play --variant``), over text streams for tests.

Classic keeps its HP match (terminal.py). On the other variants the AI plays perfectly
(its lowest best cell); the player starts the odd games and the AI the even ones.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path
from typing import TextIO

from ..game.board import RuleError
from ..game.game import Status
from ..game.position import Ending, Position
from ..game.solver import Solver
from ..game.variant import CLASSIC, COLUMN_LETTERS, VARIANTS, Variant, variant_named
from .terminal import GAME_RESULTS, Quit, ask, grid_lines

RULES: dict[str, str] = {
    "classic": "3x3, three in a row wins",
    "misere": "3x3, whoever makes three in a row loses",
    "4x4k3": "4x4, three in a row wins",
    "4x4k4": "4x4, four in a row wins",
    "notakto1": "both play X on one 3x3 board; whoever makes three in a row loses",
    "notakto2": "both play X on two 3x3 boards; three in a row kills a board;"
    " whoever kills the last live board loses",
    "notakto3": "both play X on three 3x3 boards; three in a row kills a board;"
    " whoever kills the last live board loses",
}
"""Each variant's rule in a line, as the terminal says it."""
GAP = "    "


def _variant(name: str) -> Variant:
    try:
        return variant_named(name)
    except RuleError as err:
        raise argparse.ArgumentTypeError(err.message) from None


def add_variant_flag(parser: argparse.ArgumentParser) -> None:
    """``--variant``, the rule set, classic unless given."""
    parser.add_argument(
        "--variant",
        type=_variant,
        default=CLASSIC,
        metavar="NAME",
        help=f"the rule set: {', '.join(v.name for v in VARIANTS)} (classic)",
    )


def add_variant_flags(parser: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--data-dir`` (where the opening books are cached)."""
    add_variant_flag(parser)
    parser.add_argument(
        "--data-dir",
        help="a data dir to cache the opening books in (env TICTACTOE_DATA_DIR; none: each run"
        " builds them in memory)",
    )


def variant_solver(args: argparse.Namespace) -> Solver:
    """The perfect player of ``args.variant``, its book cached in the data dir if given."""
    from webapp.server.store import books

    chosen = args.data_dir or os.environ.get("TICTACTOE_DATA_DIR") or None
    data_dir = Path(chosen) if chosen else None
    return books.solver(args.variant, data_dir, say=_say)


def _say(line: str) -> None:
    print(f"tictactoe: {line}", file=sys.stderr, flush=True)


def draw_position(position: Position) -> str:
    """The boards as labelled grids side by side; each named on several boards, and a
    dead Notakto board marked so."""
    variant = position.variant
    texts = str(position).split("/")
    grids = [
        grid_lines(
            [text[r * variant.columns : (r + 1) * variant.columns] for r in range(variant.rows)]
        )
        for text in texts
    ]
    if variant.boards == 1:
        return "\n".join(grids[0])
    live = position.live_boards()
    for board, lines in enumerate(grids):
        lines.insert(0, f"board {board + 1}" + ("" if board in live else ": dead"))
    width = max(len(line) for lines in grids for line in lines)
    rows = zip(*(lines for lines in grids), strict=True)
    return "\n".join(GAP.join(line.ljust(width) for line in row).rstrip() for row in rows)


def intro(variant: Variant) -> str:
    """The opening lines: the rule, the AI, how to type a move."""
    last = f"{COLUMN_LETTERS[variant.columns - 1]}{variant.rows}"
    cell = f"b2 (columns a-{last[0]}, rows 1-{variant.rows} from the top)"
    if variant.boards > 1:
        cell = (
            f"2:b2 (board 1-{variant.boards}, then a column a-{last[0]} and a row 1-{variant.rows})"
        )
    return (
        f"{variant.name}: {RULES[variant.name]}. The AI plays perfectly.\n"
        f"You start the odd games, the AI the even ones. Type a move as {cell};"
        " q or Ctrl-D quits."
    )


def play_variant(inp: TextIO, out: TextIO, solver: Solver) -> int:
    """Play games on ``solver``'s variant until the player quits; return 0."""
    out.write(intro(solver.variant) + "\n")
    record = {"human_won": 0, "ai_won": 0, "draw": 0}
    try:
        for number in itertools.count(1):
            status = play_game(inp, out, solver, number)
            record[status] += 1
            out.write(
                f"\n{GAME_RESULTS[status]}\nRecord: won {record['human_won']},"
                f" lost {record['ai_won']}, drawn {record['draw']}\n"
            )
    except Quit:
        out.write("\nBye.\n")
    return 0


def play_game(inp: TextIO, out: TextIO, solver: Solver, number: int) -> Status:
    """Play game ``number`` to its end; the player moves first in the odd games."""
    human_first = number % 2 == 1
    position = Position.empty(solver.variant)
    starter = "you move" if human_first else "the AI moves"
    out.write(f"\n=== Game {number}: {starter} first ===\n{draw_position(position)}\n")
    while not position.is_over():
        if position.first_to_move == human_first:
            position = human_turn(inp, out, position)
        else:
            cell = solver.best_move(position)
            out.write(f"\nAI ({position.to_move}) plays {solver.variant.cell_name(cell)}\n")
            position = position.apply_move(cell)
        out.write(draw_position(position) + "\n")
    ending = position.ending()
    if ending is Ending.DRAW:
        return "draw"
    human_to_move = position.first_to_move == human_first
    return "human_won" if (ending is Ending.MOVER_WON) == human_to_move else "ai_won"


def human_turn(inp: TextIO, out: TextIO, position: Position) -> Position:
    """Ask for the player's cell until a legal one arrives."""
    while True:
        text = ask(inp, out, f"\nYour move ({position.to_move}): ")
        try:
            return position.apply_move(position.variant.parse_cell(text))
        except RuleError as err:
            out.write(f"{err.message}. Try again, or q to quit.\n")
