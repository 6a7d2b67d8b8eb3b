"""Games beyond 3x3 played out for the tests of records, history and the review: a match's
first game on any variant, one with the player's mistake in it, and a record's roll
tampered with."""

from __future__ import annotations

import random
from typing import Any

from webapp.game.history import finished_game, first_mistake
from webapp.game.match import Match, ai_move, human_move, new_match
from webapp.game.rules import rules_from
from webapp.game.variant import variant_named

# A 4x4k4 game: O's sixth move leaves X's row open, a draw thrown into a loss, when d1
# kept it.
SLIP = ["a1", "a2", "b1", "b2", "c1", "c2", "d1"]


def played(variant: str, mode: str, seed: int, *, start_ai_hp: int | None = None) -> Match:
    """A match on ``variant`` whose first game was played to its end, the human moving
    at random (from ``seed``); the AI starts with ``start_ai_hp`` if given."""
    rules = rules_from(variant=variant_named(variant), start_ai_hp=start_ai_hp)
    match = new_match(random.Random(seed), mode=mode, rules=rules, client_seed=f"p-{seed}")
    rng = random.Random(seed)
    while match.game.turn is not None:
        if match.game.turn == "human":
            match = human_move(match, rng.choice(match.game.board.legal_moves()))
        else:
            match = ai_move(match)
    return match


def slipped(variant: str) -> Match:
    """A game on ``variant`` against the perfect AI in which the player made a mistake."""
    for seed in range(20):
        match = played(variant, "impossible", seed)
        if first_mistake(finished_game(match, game_id="x", ended=0.0)):
            return match
    raise AssertionError("no seed gave a mistake")


def tampered_roll(record: dict[str, Any]) -> None:
    """The record with its first AI move's roll changed."""
    move = next(m for m in record["moves"] if m["by"] == "ai")
    move["roll"] = (move["roll"] + 1) % 100
