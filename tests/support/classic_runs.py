"""Classic matches played the same way under any release: seeded seeds, a seeded player.

tests/fixtures/classic-runs-0.5.1.dev0.jsonl holds what the release before variants made
of them (each match's every stored state, hashed, and its last state in full); the
matches played today must give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from webapp.game.match import Match, ai_move, human_move, new_match, next_game
from webapp.game.records import to_record
from webapp.game.rules import Rules

MODES = ("adaptive", "easy", "medium", "hard", "impossible")
SEEDS = (1, 2, 3, 4)
FIXED_GAMES = 4  # games a fixed mode's match is played for (it has no end of its own)
MOST_STEPS = 2000  # a bound on any match's moves and games


def played(mode: str, seed: int, rules: Rules) -> list[dict[str, Any]]:
    """Every stored state of one match, from the first to its end, as records."""
    rng = random.Random(seed)
    match = new_match(rng, mode=mode, rules=rules, client_seed=f"player-{seed}")
    states = [to_record(match)]
    for _ in range(MOST_STEPS):
        if _finished(match):
            break
        if match.game.turn is None:
            match = next_game(match, rng, client_seed=f"player-{seed}-{match.game_number}")
        elif match.game.turn == "human":
            match = human_move(match, rng.choice(match.game.board.legal_moves()))
        else:
            match = ai_move(match)
        states.append(to_record(match))
    return states


def _finished(match: Match) -> bool:
    if match.adaptive:
        return match.over
    return match.game.turn is None and match.game_number >= FIXED_GAMES


def summary(mode: str, seed: int, rules: Rules) -> dict[str, Any]:
    """One fixture line: the match, how many states, their hash, and its last state."""
    states = played(mode, seed, rules)
    text = "\n".join(json.dumps(state, sort_keys=False) for state in states)
    return {
        "mode": mode,
        "seed": seed,
        "states": len(states),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "last": states[-1],
    }
