"""A game reviewed by perfect play: what each move kept of the best its mover had.

For every move, the engine's table gives the best value the mover had (win, draw or
loss, and in how many plies under perfect play) and the value of the move played.
The verdict compares the two, and the review names the *best cells*: every move that kept
the best value, so that a page can say "best was c1" and mark it on the board:

- ``best``: the same result in the same number of plies;
- ``inaccuracy``: the same result, but a slower win or a faster loss;
- ``mistake``: one step down: a win thrown into a draw, or a draw into a loss;
- ``blunder``: a win thrown into a loss.

A practice game from a player's mistake (``lesson``) says the same of each of their
moves there, in its own words (``Feedback``): the mistake played again, the best move,
or another move that keeps the best result.

On another variant (variant.py) the variant's solver (``strategies.solver_for``) gives
the same values, and cells are named as there (``d4``, ``2:b2``); on today's board the
classic table does, and the words are as they were.

A move that threw its mover's result away hands the opponent a better one: a *gift*.
The opponent's next move either keeps what was given (``taken``) or throws it back
(``missed``). The page marks the AI's gifts this way; a review reads only the moves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from . import engine, solver, strategies
from .board import Board, Cell, Mark
from .engine import Result
from .variant import CLASSIC, Variant

Value = engine.Value | solver.Value
"""A value from the classic table or from a variant's solver: a result and its plies."""

Verdict = Literal["best", "inaccuracy", "mistake", "blunder"]
Gift = Literal["taken", "missed"]
VERDICTS: tuple[Verdict, ...] = ("best", "inaccuracy", "mistake", "blunder")
_RANK = {Result.LOSS: 0, Result.DRAW: 1, Result.WIN: 2}


@dataclass(frozen=True)
class MoveReview:
    """One move: who played it, the best its mover had, what it kept, and the verdict.

    ``best_cells`` are the moves that kept ``best`` (the played cell among them when the
    verdict is ``best``). ``gift`` is set on a move that gave the opponent a better
    result than they had, once the opponent has answered it: whether they took it or
    missed it.
    """

    ply: int
    cell: Cell
    side: Mark
    best: Value
    played: Value
    verdict: Verdict
    best_cells: tuple[Cell, ...] = ()
    gift: Gift | None = None
    variant: Variant = CLASSIC

    def to_dict(self) -> dict[str, object]:
        """The JSON form (``tictactoe review --json``): plies count both sides' moves."""
        found: dict[str, object] = {
            "ply": self.ply,
            "cell": self.cell_name,
            "side": self.side,
            "best": self.best.to_dict(),
            "played": self.played.to_dict(),
            "verdict": self.verdict,
            "best_cells": [self.variant.cell_name(cell) for cell in self.best_cells],
        }
        return found if self.gift is None else {**found, "gift": self.gift}

    @property
    def cell_name(self) -> str:
        """The cell's name: a1..c3 on today's board, a1..d4 or ``2:b2`` on another."""
        return self.variant.cell_name(self.cell)

    @property
    def gave_away(self) -> bool:
        """Whether this move lowered its mover's result (and so raised the opponent's)."""
        return self.verdict in ("mistake", "blunder")


def verdict(best: Value, played: Value) -> Verdict:
    """How ``played`` compares with ``best``, both from the mover's side."""
    drop = _RANK[best.result] - _RANK[played.result]
    if drop == 2:
        return "blunder"
    if drop == 1:
        return "mistake"
    return "best" if played == best else "inaccuracy"


def _analysis(board: Board) -> engine.Analysis | solver.Analysis:
    """Every move's value on ``board``: the classic table's, or the variant's solver's."""
    if board.classic:
        return engine.analyse(board)
    return strategies.solver_for(board.variant).analyse(board.position)


def judge(board: Board, cell: Cell) -> MoveReview:
    """The review of playing ``cell`` on ``board`` (its ply counted from this board)."""
    analysis = _analysis(board)
    if cell not in analysis.moves:
        board.apply_move(cell)  # raises the board's own error: taken, or game over
    played = analysis.moves[cell]
    ply = board.variant.cells + 1 - board.empties
    return MoveReview(
        ply,
        cell,
        board.to_move,
        analysis.value,
        played,
        verdict(analysis.value, played),
        tuple(sorted(analysis.best)),
        variant=board.variant,
    )


def review(cells: Iterable[Cell], variant: Variant = CLASSIC) -> tuple[MoveReview, ...]:
    """Every move of a game of ``variant`` played from its empty board, in order; raises
    RuleError (with the board's code) at the first illegal one."""
    board, moves = Board.empty(variant), []
    for cell in cells:
        moves.append(judge(board, cell))
        board = board.apply_move(cell)
    return _with_gifts(moves)


def _with_gifts(moves: Sequence[MoveReview]) -> tuple[MoveReview, ...]:
    marked = list(moves)
    for index, move in enumerate(moves[:-1]):
        if move.gave_away:
            answer = moves[index + 1]
            gift: Gift = "missed" if answer.gave_away else "taken"
            marked[index] = MoveReview(**{**move.__dict__, "gift": gift})
    return tuple(marked)


def summary(moves: Iterable[MoveReview], mark: Mark) -> str:
    """One line about ``mark``'s play: its slips, and the gifts it was given."""
    counts = {name: 0 for name in ("blunder", "mistake", "inaccuracy")}
    gifts = {"taken": 0, "missed": 0}
    for move in moves:
        if move.side == mark and move.verdict in counts:
            counts[move.verdict] += 1
        if move.side != mark and move.gift is not None:
            gifts[move.gift] += 1
    parts = [_count(n, name) for name, n in counts.items() if n]
    parts += [_count(n, f"{kind} gift") for kind, n in gifts.items() if n]
    return ", ".join(parts) if parts else "No mistakes: every move kept the best result"


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"


Feedback = Literal["played", "best", "good", "inaccuracy", "mistake", "blunder"]
"""What a practice game says of a move: ``played`` is the mistake being practised, played
again at its position; ``best`` kept the best value; ``good`` kept the best result (a win
or a draw), only more slowly; otherwise the move's verdict."""


def feedback(move: MoveReview, *, mistake: Cell | None = None) -> Feedback:
    """The feedback on ``move``; ``mistake`` is the move practised, if the position is
    the one it was made in."""
    if move.cell == mistake:
        return "played"
    if move.verdict == "inaccuracy" and move.best.result != Result.LOSS:
        return "good"
    return move.verdict


def lesson(
    setup: Sequence[Cell],
    mistake: Cell,
    moves: Sequence[tuple[bool, Cell]],
    variant: Variant = CLASSIC,
) -> dict[str, object]:
    """What a practice game from a mistake shows: the mistake, judged at the position
    after ``setup`` on ``variant``'s board, and the feedback on the player's latest move.
    ``moves`` are the practice game's moves, each with whether the player made it (they
    move first)."""
    board = Board.empty(variant)
    for cell in setup:
        board = board.apply_move(cell)
    practised = judge(board, mistake).to_dict()
    latest: dict[str, object] | None = None
    for index, (mine, cell) in enumerate(moves):
        if mine:
            move = judge(board, cell)
            said = feedback(move, mistake=mistake if index == 0 else None)
            latest = {**move.to_dict(), "feedback": said}
        board = board.apply_move(cell)
    return {"mistake": practised, "feedback": latest}
