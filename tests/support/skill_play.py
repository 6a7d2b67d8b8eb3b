"""The skill:S player's games and matches against the AI, played out quickly: the moves by
the rules of a match (webapp/game/match.py), without its dice and records."""

from __future__ import annotations

import random

from webapp.game.board import Board
from webapp.game.engine import best_moves
from webapp.game.match import Rules, Status, difficulty, hp_after_game
from webapp.game.strategies import skill_strategy


def one_game(hundredths: int, level: int, rng: random.Random) -> Status:
    """One game between the skill player and the AI at ``level``, either side first,
    played by the same rules as a match's (the AI rolls 0..99 against its difficulty)."""
    player = skill_strategy(hundredths)
    human = rng.choice("XO")
    board = Board()
    while not board.is_over():
        if board.to_move == human:
            cell = player(board, rng)
        elif rng.randrange(100) < level:
            cell = rng.choice(best_moves(board))
        else:
            cell = rng.choice(board.legal_moves())
        board = board.apply_move(cell)
    outcome = board.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return "draw"
    return "human_won" if outcome.winner == human else "ai_won"


def one_match(rules: Rules, hundredths: int, rng: random.Random) -> tuple[bool, int]:
    """Whether the player won a simulated match, and its games."""
    human, ai, games = rules.start_human_hp, rules.start_ai_hp, 0
    while human > 0 and ai > 0:
        status = one_game(hundredths, difficulty(ai), rng)
        human, ai = hp_after_game(rules, human, ai, status)
        games += 1
    return human > 0, games
