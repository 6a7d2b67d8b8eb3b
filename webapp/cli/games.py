"""Commands about one game: ``verify`` a downloaded record (and ``keys``, the keys that
sign records), ``review`` a game's moves (of any variant: ``--variant``)."""

from __future__ import annotations

import argparse
import json
import sys

from ..game.board import RuleError, parse_cell
from ..game.review import MoveReview, Value, review, summary
from ..game.variant import CLASSIC, Variant
from .signatures import KEYS_HELP, VERIFY_HELP, cmd_keys, cmd_verify
from .variant_play import add_variant_flag


def _cell(variant: Variant, text: str) -> int:
    """A cell named as on ``variant``'s board (classic also takes ``row col``)."""
    return parse_cell(text) if variant == CLASSIC else variant.parse_cell(text)


def cmd_review(args: argparse.Namespace) -> int:
    """Review a game, given as its cells in playing order, by perfect play."""
    variant: Variant = args.variant
    try:
        moves = review((_cell(variant, cell) for cell in args.cells), variant)
    except RuleError as err:
        where = _failed_at(args.cells, variant)
        print(f"tictactoe review: move {where}: {err.message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"moves": [move.to_dict() for move in moves]}))
        return 0
    for move in moves:
        print(_line(move))
    for mark in ("X", "O"):
        print(f"{mark}: {summary(moves, mark)}")
    return 0


def _failed_at(cells: list[str], variant: Variant) -> str:
    """The first cell of ``cells`` that cannot be played, by its position and text."""
    played: list[int] = []
    for index, cell in enumerate(cells, 1):
        try:
            review([*played, _cell(variant, cell)], variant)
            played.append(_cell(variant, cell))
        except RuleError:
            return f"{index} ({cell!r})"
    return str(len(cells))


def _words(value: Value) -> str:
    if value.result.value == "draw":
        return "draw"
    return f"{value.result.value} in {value.plies}"


def _either(cells: tuple[int, ...], variant: Variant) -> str:
    """The cells in words: b2; a1 or c3; a1, b1 or c3."""
    names = [variant.cell_name(cell) for cell in cells]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _line(move: MoveReview) -> str:
    gift = f", gift {move.gift}" if move.gift else ""
    where = "" if move.verdict == "best" else f" at {_either(move.best_cells, move.variant)}"
    return (
        f"{move.ply:>2}. {move.side} {move.cell_name:<2}  {move.verdict:<10}"
        f" kept {_words(move.played)} (best: {_words(move.best)}{where}){gift}"
    )


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``verify`` and ``review`` to the ``tictactoe`` command."""
    check = sub.add_parser(
        "verify",
        help="check a game record's signature, moves and dice (docs/fairness.md)",
        description=VERIFY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("record", help="a game record downloaded from the page (JSON)")
    check.add_argument(
        "--keys",
        metavar="FILE_OR_URL",
        help="the server's public keys: a file or http(s) URL of its"
        " /.well-known/tictactoe-keys.json (default: this server's own, from its settings"
        " or data dir)",
    )
    check.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    check.set_defaults(func=cmd_verify)

    keys = sub.add_parser(
        "keys", help="print the public keys that sign game records", description=KEYS_HELP
    )
    keys.add_argument("--json", action="store_true", help="print the keys document")
    keys.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    keys.set_defaults(func=cmd_keys)

    judge = sub.add_parser("review", help="review a game's moves by perfect play")
    judge.add_argument("cells", nargs="+", help="cells in playing order, e.g. b2 a1 c3 c1")
    judge.add_argument("--json", action="store_true", help="print one JSON object")
    add_variant_flag(judge)
    judge.set_defaults(func=cmd_review)
