"""``tictactoe explain BOARD``: each move's value, the AI's pick and why, and the node
counts and times of every kind of search, side by side."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from webapp.server.services.lab.counts import shipped_counts

from ..game import lab
from ..game.board import Board, RuleError, cell_name

EXPLAIN_HELP = "each move's value, the AI's pick and why, and the node counts of each search"


def add_explain(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``explain`` and its flags."""
    explain = sub.add_parser("explain", help=EXPLAIN_HELP)
    explain.add_argument("board", help="9-character board (X, O, .)")
    explain.add_argument("--scoring", choices=lab.SCORINGS, default="depth", help="(depth)")
    explain.add_argument("--prune", action="store_true", help="alpha-beta for the pick")
    explain.add_argument("--table", action="store_true", help="a transposition table")
    explain.add_argument("--symmetry", action="store_true", help="merge symmetric children")
    explain.add_argument("--depth", type=int, default=None, help="plies to search (no limit)")
    explain.add_argument("--json", action="store_true", help="print one JSON object")
    explain.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    """Explain the AI's choice on one board under the chosen search."""
    try:
        board = Board.parse(args.board)
        options = lab.Options(args.scoring, args.prune, args.table, args.symmetry, args.depth)
    except RuleError as err:
        print(f"tictactoe explain: error: {err.message}", file=sys.stderr)
        return 2
    chosen = _chosen(board, options)
    when, measured = _measured(board, args.scoring, args.depth)
    if args.json:
        print(json.dumps({**_record(chosen, measured), "measured": when}))
    else:
        said = f"times measured {when}, shipped with the counts" if when else "times measured now"
        print(_text(chosen, measured) + f"\n({said})")
    return 0


def _chosen(board: Board, options: lab.Options) -> lab.Result:
    """The search's values and pick. Without pruning every value is exact and does not
    depend on the table or symmetry, so a search with a table finds them (16,168 nodes
    from the empty board, not 549,946); its counts are not shown."""
    if options.prune:
        return lab.search(board, options)
    found = lab.search(board, lab.Options(options.scoring, table=True, depth=options.depth))
    return dataclasses.replace(found, options=options)


def _measured(
    board: Board, scoring: lab.Scoring, depth: int | None
) -> tuple[str | None, list[lab.Measured]]:
    """The eight kinds of search from ``board``: from the shipped counts when they cover
    it (with the date their times were measured), else counted now (``None``)."""
    when, stored = shipped_counts()
    rows = stored.get(f"{board.cells} {scoring}") if depth is None else None
    if rows is None:
        kinds = lab.kinds(scoring, depth)
        return None, [lab.measure(board, kind, time.perf_counter) for kind in kinds]
    by_kind = {kind.kind: kind for kind in lab.kinds(scoring)}
    return when, [
        lab.Measured(by_kind[kind], lab.Counts(nodes, hits, cuts), ms / 1000)
        for kind, nodes, hits, cuts, ms in rows
    ]


def _record(chosen: lab.Result, measured: list[lab.Measured]) -> dict[str, object]:
    return {
        "board": str(chosen.board),
        "to_move": chosen.board.to_move,
        "options": {
            "scoring": chosen.options.scoring,
            "prune": chosen.options.prune,
            "table": chosen.options.table,
            "symmetry": chosen.options.symmetry,
            "depth": chosen.options.depth,
        },
        "value": chosen.value,
        "values": {cell_name(m.cell): {"value": m.value, "bound": m.bound} for m in chosen.moves},
        "best": None if chosen.best is None else cell_name(chosen.best),
        "why": _why(chosen),
        "counts": {m.options.kind: m.counts.nodes for m in measured},
        "hits": {m.options.kind: m.counts.hits for m in measured},
        "cuts": {m.options.kind: m.counts.cuts for m in measured},
        "seconds": {m.options.kind: round(m.seconds, 6) for m in measured},
    }


def _why(chosen: lab.Result) -> str:
    if chosen.best is None:
        return "the game is over: no move to choose"
    mover, name = chosen.board.to_move, cell_name(chosen.best)
    ties = [cell_name(m.cell) for m in chosen.moves[1:] if _tied(m, chosen)]
    bounded = [cell_name(m.cell) for m in chosen.moves if m.bound != "exact"]
    said = f"{mover} plays {name}: worth {chosen.value:g}, the most any move is worth to {mover}"
    if ties:
        said += f"; {', '.join(ties)} worth as much, and ties go to the lowest cell"
    if bounded:
        said += f"; pruning only bounded {', '.join(bounded)}: none can be worth more"
    return said


def _tied(move: lab.Child, chosen: lab.Result) -> bool:
    return move.bound == "exact" and move.value == chosen.value and move.cell != chosen.best


def _text(chosen: lab.Result, measured: list[lab.Measured]) -> str:
    mark = {"exact": "", "at least": ">= ", "at most": "<= "}
    lines = [f"{chosen.board}  {chosen.board.to_move} to move, scoring {chosen.options.scoring}"]
    lines += [f"  {cell_name(m.cell)}  {mark[m.bound]}{m.value:g}" for m in chosen.moves]
    lines += [_why(chosen), "", f"{'search':<26}{'nodes':>9}{'hits':>8}{'cuts':>8}{'ms':>10}"]
    lines += [
        f"{m.options.kind:<26}{m.counts.nodes:>9,}{m.counts.hits:>8,}{m.counts.cuts:>8,}"
        f"{m.seconds * 1000:>10.1f}"
        for m in measured
    ]
    return "\n".join(lines)
