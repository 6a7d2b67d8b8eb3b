"""The whole game tree counted: positions, games and nodes, with the board's symmetries."""

from __future__ import annotations

from dataclasses import dataclass

from .board import CELLS, EMPTY, winner_of
from .engine import successors, terminal_score

# The 8 symmetries of the square as cell permutations: new cell i holds old cell p[i].
_ROTATE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
_MIRROR = (2, 1, 0, 5, 4, 3, 8, 7, 6)


def _compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p[q[i]] for i in CELLS)


def _symmetries() -> tuple[tuple[int, ...], ...]:
    found = {tuple(CELLS)}
    while True:
        grown = found | {_compose(p, g) for p in found for g in (_ROTATE, _MIRROR)}
        if grown == found:
            return tuple(sorted(found))
        found = grown


SYMMETRIES = _symmetries()


def canonical(cells: str) -> str:
    """The smallest text form of ``cells`` over the 8 symmetries of the board."""
    return min("".join(cells[i] for i in p) for p in SYMMETRIES)


@dataclass(frozen=True)
class TreeStats:
    """Counts of the complete game tree, all computed by enumeration."""

    positions: int
    positions_symmetric: int
    terminal: int
    terminal_symmetric: int
    games: int
    x_wins: int
    o_wins: int
    draws: int
    tree_nodes: int


def tree_stats() -> TreeStats:
    """Enumerate the game from the empty board: positions, games and tree nodes."""
    paths = {EMPTY * 9: 1}  # number of move orders that reach each position
    layer = [EMPTY * 9]
    terminal: list[str] = []
    for _ in range(10):
        following: dict[str, int] = {}
        for cells in layer:
            if terminal_score(cells) is not None:
                terminal.append(cells)
                continue
            for _, child in successors(cells):
                following[child] = following.get(child, 0) + paths[cells]
        paths.update(following)
        layer = list(following)
    ends = {"X": 0, "O": 0, None: 0}
    for cells in terminal:
        won = winner_of(cells)
        ends[won[0] if won else None] += paths[cells]
    return TreeStats(
        positions=len(paths),
        positions_symmetric=len({canonical(c) for c in paths}),
        terminal=len(terminal),
        terminal_symmetric=len({canonical(c) for c in terminal}),
        games=sum(ends.values()),
        x_wins=ends["X"],
        o_wins=ends["O"],
        draws=ends[None],
        tree_nodes=sum(paths.values()),
    )
