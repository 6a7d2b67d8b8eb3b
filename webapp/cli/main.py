"""The ``tictactoe`` console command: serve, backup, restore, play, simulate, odds, tune,
solve, explain, stats, selfplay."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from .explain import add_explain
from .games import add_commands
from .matches import add_match_commands
from .server import add_server_commands
from .solver import add_solver_commands


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="tictactoe", description=__doc__)
    parser.add_argument(
        "--version", action="version", version=f"tictactoe {__version__}", help="print the release"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add_server_commands(sub)
    add_solver_commands(sub)
    add_match_commands(sub)
    add_commands(sub)
    add_explain(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tictactoe`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
