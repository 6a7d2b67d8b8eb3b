"""Classic searches without a table: plain minimax and alpha-beta, counting nodes.

The engine answers from its solved table; these search the tree afresh each time,
for comparison (the benchmark) and as an independent check of the table (the tests).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .board import Board, Cell
from .engine import WIN, farther, successors, terminal_score


@dataclass
class SearchStats:
    """Nodes visited by one search."""

    nodes: int = 0


def minimax_search(cells: str, stats: SearchStats) -> int:
    """Plain depth-aware negamax over the full tree, counting nodes."""
    stats.nodes += 1
    score = terminal_score(cells)
    if score is not None:
        return score
    return max(-farther(minimax_search(child, stats)) for _, child in successors(cells))


def alphabeta_search(
    cells: str, stats: SearchStats, alpha: int = -WIN - 1, beta: int = WIN + 1
) -> int:
    """Negamax with alpha-beta pruning; same scores as ``minimax_search``, fewer nodes."""
    stats.nodes += 1
    score = terminal_score(cells)
    if score is not None:
        return score
    best = -WIN - 1
    for _, child in successors(cells):
        # The child's window is this one's, negated and widened by one ply.
        child_score = -farther(alphabeta_search(child, stats, -_grow(beta), -_grow(alpha)))
        best = max(best, child_score)
        alpha = max(alpha, child_score)
        if alpha >= beta:
            break
    return best


def _grow(score: int) -> int:
    """Inverse of ``_shrink`` for window bounds: one ply closer to the end."""
    if score > 0:
        return score + 1
    return score - 1 if score < 0 else 0


def root_search(
    board: Board, search: Callable[[str, SearchStats], int]
) -> tuple[Cell, int, SearchStats]:
    """Search every first move with ``search``; return the best move, its score and nodes."""
    stats = SearchStats()
    scored = {cell: -farther(search(child, stats)) for cell, child in successors(board.cells)}
    cell = max(scored, key=lambda c: scored[c])
    return cell, scored[cell], stats
