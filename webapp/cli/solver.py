"""Commands about perfect play and the game tree: solve, stats, selfplay."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import random
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from ..game import engine, strategies, tree
from ..game.board import Board, RuleError, cell_name
from ..game.position import Position
from ..game.variant import CLASSIC
from .terminal import draw_board
from .variant_play import add_variant_flags, variant_solver


def _classic(text: str) -> dict[str, object]:
    return engine.analyse(Board.parse(text)).to_dict()


def solve_lines(
    boards: Iterable[str],
    out: TextIO,
    analyse: Callable[[str], dict[str, object]] = _classic,
) -> int:
    """Print one JSON analysis per board; return 2 if any board was invalid, else 0."""
    status = 0
    for text in boards:
        try:
            record = analyse(text)
        except RuleError as err:
            record = {"board": text, "error": {"code": err.code, "message": err.message}}
            status = 2
        out.write(json.dumps(record) + "\n")
    return status


def _stdin_boards() -> Iterable[str]:
    for line in sys.stdin:
        text = line.rstrip("\r\n")
        if text:  # a line of nine spaces is an empty board, so only skip empty lines
            yield text


def cmd_solve(args: argparse.Namespace) -> int:
    """Analyse boards from the arguments, or one per line from stdin."""
    boards = args.boards or _stdin_boards()
    variant = args.variant
    if variant == CLASSIC:  # the classic engine's table, as before variants came
        return solve_lines(boards, sys.stdout)
    # Built at the first valid board: a refused one costs no book (seconds on 4x4k4).
    solver = functools.cache(lambda: variant_solver(args))

    def analyse(text: str) -> dict[str, object]:
        position = Position.parse(variant, text)
        return solver().analyse(position).to_dict()

    return solve_lines(boards, sys.stdout, analyse)


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the counts of the complete game tree."""
    stats = dataclasses.asdict(tree.tree_stats())
    if args.json:
        print(json.dumps(stats))
    else:
        width = max(len(k) for k in stats)
        for key, count in stats.items():
            print(f"{key.replace('_', ' '):<{width}}  {count:>7,}")
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    """Play one AI-vs-AI game and print it board by board."""
    rng = random.Random(args.seed)
    players = {
        "X": strategies.strategy(args.x, depth=args.depth),
        "O": strategies.strategy(args.o, depth=args.depth),
    }
    board = Board()
    print(f"X: {args.x}   O: {args.o}\n\n{draw_board(board)}")
    while not board.is_over():
        mover = board.to_move
        cell = players[mover](board, rng)
        board = board.apply_move(cell)
        print(f"\n{mover} ({args.x if mover == 'X' else args.o}) plays {cell_name(cell)}")
        print(draw_board(board))
    outcome = board.outcome()
    assert outcome is not None
    print(f"\nResult: {outcome.winner + ' wins' if outcome.winner else 'draw'}")
    return 0


def add_solver_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``solve``, ``stats`` and ``selfplay`` commands."""
    solve = sub.add_parser("solve", help="analyse boards under perfect play, as JSON lines")
    solve.add_argument(
        "boards",
        nargs="*",
        help="boards in reading order with X, O and . (9 cells on 3x3, 16 on 4x4; '/' between"
        " boards); stdin if none",
    )
    add_variant_flags(solve)
    solve.set_defaults(func=cmd_solve)

    stats = sub.add_parser("stats", help="count positions and games of the whole game tree")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(func=cmd_stats)

    selfplay = sub.add_parser("selfplay", help="watch two strategies play one game")
    for side in ("x", "o"):
        selfplay.add_argument(
            f"--{side}",
            choices=strategies.STRATEGY_NAMES,
            default="perfect",
            help=f"{side.upper()}",
        )
    selfplay.add_argument("--depth", type=int, default=2, help="plies for lookahead (2)")
    selfplay.add_argument("--seed", type=int, default=None, help="seed for reproducible games")
    selfplay.set_defaults(func=cmd_selfplay)
