"""The fixed levels on every variant: how often a perfect player beats each one.

Run with ``.venv/bin/python bench/levels.py [--games N] [--variant NAME]`` (about a minute
at the default). A level means the same on every variant when a perfect player beats it
about as often as it beats the same level on the classic board. Only the games the
level could hold are counted (the AI's side is not lost from the empty board: on
4x4k3, notakto1 and notakto3 the AI moves first, on notakto2 second, on the drawn
variants either), so that a variant's forced wins do not count as the level's
mistakes. Each rate is printed with its Wilson 95% interval; rules.py's
``VARIANT_LEVELS`` holds the chances chosen from these figures (docs/levels.md).
"""

from __future__ import annotations

import argparse
import math
import random

from webapp.game.board import Board
from webapp.game.engine import Result
from webapp.game.position import Position
from webapp.game.rules import FIXED_STRATEGIES, VARIANT_LEVELS
from webapp.game.strategies import Strategy, perfect_move, skill_strategy, solver_for, strategy
from webapp.game.variant import CLASSIC, VARIANTS, Variant, variant_named

LEVELS = ("easy", "medium", "hard")


def level_player(variant: Variant, level: str) -> Strategy:
    """The AI at ``level`` on ``variant``, as match.py plays it."""
    chance = VARIANT_LEVELS.get(variant.name, {}).get(level)
    if chance is None:
        return strategy(FIXED_STRATEGIES[level])
    return skill_strategy(chance)


def ai_moves_first(variant: Variant) -> tuple[bool, ...]:
    """The AI's seats (first or not) from which it is not lost with perfect play."""
    result = solver_for(variant).value(Position.empty(variant)).result
    if result is Result.WIN:
        return (True,)
    return (False,) if result is Result.LOSS else (True, False)


def perfect_wins(variant: Variant, ai: Strategy, games: int, rng: random.Random) -> int:
    """Games a perfect player wins against ``ai`` from the seats the AI can hold."""
    seats = ai_moves_first(variant)
    won = 0
    for number in range(games):
        ai_first = seats[number % len(seats)]
        board = Board.empty(variant)
        ai_mark = "X" if ai_first else "O"
        for _ in range(variant.cells):  # bounded: a game fills at most every cell
            if board.is_over():
                break
            player = ai if board.to_move == ai_mark else perfect_move
            board = board.apply_move(player(board, rng))
        outcome = board.outcome()
        won += outcome is not None and outcome.winner not in (None, ai_mark)
    return won


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate."""
    rate = hits / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    """Print each variant's levels: the chance played and a perfect player's win rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--chance", type=int, action="append", default=[])
    options = parser.parse_args()
    variants = [variant_named(name) for name in options.variant] or list(VARIANTS)
    for variant in variants:
        players = [(level, level_player(variant, level)) for level in LEVELS]
        if variant != CLASSIC:
            players += [(f"chance {c}%", skill_strategy(c)) for c in options.chance]
        for name, ai in players:
            won = perfect_wins(variant, ai, options.games, random.Random(43))
            low, high = wilson(won, options.games)
            print(
                f"{variant.name:9} {name:11} perfect player wins {won / options.games:6.1%}"
                f"  [{low:.1%}, {high:.1%}]"
            )


if __name__ == "__main__":
    main()
