"""The ``state`` event: a match as every client renders it (docs/protocol.md)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from webapp.game.fairness import commitment
from webapp.game.game import Game
from webapp.game.match import Match
from webapp.game.review import lesson
from webapp.game.rules import PRESETS, Rules
from webapp.game.verification import game_record


@functools.lru_cache(maxsize=1024)  # every snapshot names it; rules are frozen values
def preset_of(rules: Rules) -> str:
    """The name of the preset ``rules`` are, or ``custom``."""
    return next((name for name, preset in PRESETS.items() if preset == rules), "custom")


Sign = Callable[[dict[str, Any]], dict[str, Any]]


def practice_state(game: Game) -> dict[str, Any] | None:
    """A practice game's mistake and the feedback on the player's latest move, or None
    outside a practice game from a mistake."""
    if game.mistake is None:
        return None
    moves = [(side == "human", cell) for side, cell in game.history]
    return lesson(game.setup, game.mistake, moves, game.variant)


def snapshot(match: Match, sign: Sign | None = None) -> dict[str, Any]:
    """The ``state`` event: everything a client renders; ``sign`` puts a finished game's
    record in its signed envelope too (``signed_record``)."""
    game = match.game
    record = game_record(match)
    outcome = game.board.outcome()
    last = game.ai_moves[-1] if game.ai_moves else None
    change = match.last_hp_change
    return {
        "version": match.version,
        "mode": match.mode,
        "board": game.board.cells.replace("/", ""),  # several boards: one after another
        "variant": game.variant.name,
        "dead": [] if game.board.classic else game.board.position.dead_boards(),
        "human": game.mark_of("human"),
        "ai": game.mark_of("ai"),
        "first": game.first,
        "turn": game.turn,
        "status": game.status,
        "winning_line": list(outcome.line) if outcome and outcome.line else None,
        "history": [{"by": side, "cell": cell} for side, cell in game.history],
        "last_ai_move": last.to_dict() if last else None,
        "rules": match.rules.to_dict(),
        "preset": preset_of(match.rules),
        "record": record,
        "signed_record": sign(record) if sign and game.turn is None else None,
        "next_commitment": commitment(match.next_seed) if match.next_seed else None,
        "practice": practice_state(game),
        "match": {
            "human_hp": match.human_hp,
            "ai_hp": match.ai_hp,
            "difficulty": match.difficulty,
            "start_human_hp": match.rules.start_human_hp,
            "start_ai_hp": match.rules.start_ai_hp,
            "over": match.over,
            "winner": match.winner,
            "game": match.game_number,
            "games": match.games_finished,
            "record": match.record.to_dict(),
            "last_hp_change": {"human": change[0], "ai": change[1]} if change else None,
            "locked": match.locked,
        },
    }
