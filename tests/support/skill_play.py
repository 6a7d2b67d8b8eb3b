"""The skill:S player's games and matches against the AI, played out quickly: the moves by
the rules of a match (webapp/game/match.py), without its dice and records; and real
matches' history entries, for what is estimated from them."""

from __future__ import annotations

import random

from webapp.game.board import Board
from webapp.game.engine import best_moves
from webapp.game.game import Status
from webapp.game.history import Entry, finished_game
from webapp.game.match import (
    Match,
    ai_move,
    difficulty,
    hint_shown,
    hp_after_game,
    human_move,
    new_match,
    next_game,
)
from webapp.game.rules import Rules
from webapp.game.strategies import Strategy, skill_strategy


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


def played_games(
    player: Strategy, games: int, rng: random.Random, *, hints: bool = False, mode: str = "adaptive"
) -> list[Entry]:
    """The history entries of ``games`` games by ``player``, in matches played on end;
    with ``hints``, every move of theirs is made with hints shown."""
    entries: list[Entry] = []
    match: Match = new_match(rng, mode=mode)
    while len(entries) < games:
        if match.over:
            match = new_match(rng, mode=mode, version=match.version)
        elif match.game.turn is None:
            match = next_game(match, rng)
        else:
            if match.game.turn == "ai":
                match = ai_move(match)
            else:
                match = hint_shown(match) if hints else match
                match = human_move(match, player(match.game.board, rng))
            if match.game.turn is None:
                entries.append(finished_game(match, game_id=f"g{len(entries)}", ended=0.0))
    return entries
