"""``tictactoe explain BOARD``: each move's value, the AI's pick and why, and the node
counts and times of every kind of search, side by side.

With ``--variant`` other than classic, the board is that variant's (``XO..`` in reading
order, ``/`` between boards) and the answers are its solver's: each move's result and
plies, the AI's pick (the lowest best cell) and why, and the positions its alpha-beta
search (a table, symmetry, move ordering) visits from this board, counted now by a
fresh solver, with the time it took. The lab's eight kinds of search walk the classic
board only, so their flags are refused there (``classic_only``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from webapp.server.services.lab.counts import shipped_counts

from ..game import lab
from ..game.board import Board, RuleError, cell_name
from ..game.engine import Result
from ..game.position import Position
from ..game.solver import Analysis, Solver
from ..game.variant import CLASSIC, Variant
from .variant_play import add_variant_flag

EXPLAIN_HELP = "each move's value, the AI's pick and why, and the node counts of each search"


def add_explain(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``explain`` and its flags."""
    explain = sub.add_parser("explain", help=EXPLAIN_HELP)
    explain.add_argument("board", help="9-character board (X, O, .), or the variant's")
    explain.add_argument("--scoring", choices=lab.SCORINGS, default="depth", help="(depth)")
    explain.add_argument("--prune", action="store_true", help="alpha-beta for the pick")
    explain.add_argument("--table", action="store_true", help="a transposition table")
    explain.add_argument("--symmetry", action="store_true", help="merge symmetric children")
    explain.add_argument("--depth", type=int, default=None, help="plies to search (no limit)")
    explain.add_argument("--json", action="store_true", help="print one JSON object")
    add_variant_flag(explain)
    explain.set_defaults(func=cmd_explain)


SEARCH_FLAGS = ("scoring", "prune", "table", "symmetry", "depth")
_DEFAULTS = {"scoring": "depth", "prune": False, "table": False, "symmetry": False, "depth": None}


def cmd_explain(args: argparse.Namespace) -> int:
    """Explain the AI's choice on one board under the chosen search."""
    if args.variant != CLASSIC:
        return _explain_variant(args)
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


def _explain_variant(args: argparse.Namespace) -> int:
    """Explain the perfect AI's choice on a board of another variant (module docstring)."""
    variant: Variant = args.variant
    asked = [f"--{name}" for name in SEARCH_FLAGS if getattr(args, name) != _DEFAULTS[name]]
    try:
        if asked:
            raise RuleError(
                "classic_only",
                f"{', '.join(asked)} choose among the lab's searches of the classic board;"
                f" on {variant.name} the solver's alpha-beta search answers",
            )
        position = Position.parse(variant, args.board)
    except RuleError as err:
        print(f"tictactoe explain: error: {err.message}", file=sys.stderr)
        return 2
    solver = Solver(variant)  # a fresh table: its count is this board's own search
    started = time.perf_counter()
    analysis = solver.analyse(position)
    seconds = time.perf_counter() - started
    record = _variant_record(analysis, solver.nodes, seconds)
    if args.json:
        print(json.dumps(record))
        return 0
    lines = [f"{record['board']}  {analysis.position.to_move} to move, {variant.name}"]
    moves = sorted(analysis.moves.items())
    lines += [f"  {variant.cell_name(cell)}  {_said(value.to_dict())}" for cell, value in moves]
    lines += [
        str(record["why"]),
        "",
        f"alpha-beta with a table, symmetry and move ordering: {solver.nodes:,} positions,"
        f" {seconds * 1000:.1f} ms (counted now)",
    ]
    print("\n".join(lines))
    return 0


def _said(value: dict[str, object]) -> str:
    return "draw" if value["result"] == "draw" else f"{value['result']} in {value['plies']}"


def _variant_record(analysis: Analysis, nodes: int, seconds: float) -> dict[str, object]:
    position = analysis.position
    variant = position.variant
    moves = sorted(analysis.moves.items())  # in reading order
    values = {variant.cell_name(cell): value.to_dict() for cell, value in moves}
    best = min(analysis.best) if analysis.best else None
    return {
        "variant": variant.name,
        "board": str(position),
        "to_move": position.to_move,
        "value": analysis.value.to_dict(),
        "values": values,
        "best": None if best is None else variant.cell_name(best),
        "why": _variant_why(analysis, best),
        "counts": {"solver": nodes},
        "seconds": {"solver": round(seconds, 6)},
    }


def _variant_why(analysis: Analysis, best: int | None) -> str:
    if best is None:
        return "the game is over: no move to choose"
    variant = analysis.position.variant
    value = analysis.value
    kept = "a draw" if value.result == Result.DRAW else f"a {value.result.value} in {value.plies}"
    said = f"{variant.cell_name(best)} keeps {kept}, the best any move keeps"
    ties = [variant.cell_name(cell) for cell in sorted(analysis.best) if cell != best]
    if ties:
        said += f"; {_either(ties)} as well, and ties go to the lowest cell"
    return said


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
