"""Commands about one game: ``verify`` a downloaded record, ``review`` a game's moves."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..game.board import RuleError, parse_cell
from ..game.engine import Value
from ..game.review import MoveReview, review, summary
from ..game.verification import Mismatch, verify


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a downloaded game record against its dice, the rules and the engine."""
    try:
        record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        print(f"tictactoe verify: cannot read {args.record}: {err}", file=sys.stderr)
        return 2
    try:
        found = verify(record)
    except Mismatch as err:
        print(f"not verified: {err}")
        return 1
    print(
        f"verified: game {found.game}, {found.ai_moves} AI move(s); the seed matches its"
        " commitment, and every roll and pick follows from the dice and the engine"
    )
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    """Review a game, given as its cells in playing order, by perfect play."""
    try:
        moves = review(parse_cell(cell) for cell in args.cells)
    except RuleError as err:
        print(f"tictactoe review: move {_failed_at(args.cells)}: {err.message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"moves": [move.to_dict() for move in moves]}))
        return 0
    for move in moves:
        print(_line(move))
    for mark in ("X", "O"):
        print(f"{mark}: {summary(moves, mark)}")
    return 0


def _failed_at(cells: list[str]) -> str:
    """The first cell of ``cells`` that cannot be played, by its position and text."""
    played: list[int] = []
    for index, cell in enumerate(cells, 1):
        try:
            review([*played, parse_cell(cell)])
            played.append(parse_cell(cell))
        except RuleError:
            return f"{index} ({cell!r})"
    return str(len(cells))


def _words(value: Value) -> str:
    if value.result.value == "draw":
        return "draw"
    return f"{value.result.value} in {value.plies}"


def _line(move: MoveReview) -> str:
    gift = f", gift {move.gift}" if move.gift else ""
    return (
        f"{move.ply:>2}. {move.side} {move.cell_name:<2}  {move.verdict:<10}"
        f" kept {_words(move.played)} (best: {_words(move.best)}){gift}"
    )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``verify`` and ``review`` to the ``tictactoe`` command."""
    check = sub.add_parser("verify", help="check a game record's dice (docs/fairness.md)")
    check.add_argument("record", help="a game record downloaded from the page (JSON)")
    check.set_defaults(func=cmd_verify)

    judge = sub.add_parser("review", help="review a game's moves by perfect play")
    judge.add_argument("cells", nargs="+", help="cells in playing order, e.g. b2 a1 c3 c1")
    judge.add_argument("--json", action="store_true", help="print one JSON object")
    judge.set_defaults(func=cmd_review)
