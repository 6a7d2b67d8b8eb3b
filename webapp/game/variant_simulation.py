"""HP matches on a variant played fast from its solver: the odds where they are not exact,
and the check of those that are (bench/variant_odds.py).

Each game a coin tosses who starts; the player makes a perfect move (any best move,
uniformly) with chance S and a random one otherwise; the AI rolls 0..99 against its
difficulty for the solver's lowest best move (``Solver.best_move``, as the match plays
it) or else a random one; the HP move by ``match.hp_after_game``. Each position met is
looked at once (its end, its moves, its best moves) and kept, up to ``KEPT`` positions.
Pure: every random choice comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .game import Status
from .match import difficulty, hp_after_game
from .position import Ending, Position
from .rules import Pause, Rules, no_pause
from .solver import Solver

KEPT = 100_000  # about 30 MB: a worker answers simulated odds within its memory budget


@dataclass(frozen=True)
class Seen:
    """What the play needs of a position: its end, its moves, its best moves."""

    ending: Ending | None
    moves: tuple[int, ...]
    best: tuple[int, ...]
    lowest: int


class Sides:
    """Both sides of a variant's games, from ``solver``."""

    def __init__(self, solver: Solver) -> None:
        self.variant = solver.variant
        self.solver = solver
        self.seen: dict[Position, Seen] = {}

    def look(self, position: Position) -> Seen:
        """The position's end, moves and best moves, found once."""
        found = self.seen.get(position)
        if found is None:
            ending = position.ending()
            if ending is not None:
                found = Seen(ending, (), (), -1)
            else:
                best = self.solver.analyse(position).best
                moves = tuple(position.legal_moves())
                found = Seen(None, moves, best, self.solver.best_move(position))
            if len(self.seen) >= KEPT:
                self.seen.clear()
            self.seen[position] = found
        return found

    def game(self, rng: random.Random, skill: int, level: int) -> Status:
        """One game from the empty board for the player of ``skill`` hundredths against
        the AI at difficulty ``level``; who starts is tossed."""
        position = Position.empty(self.variant)
        human_first = rng.random() < 0.5
        for _ in range(self.variant.cells + 1):
            seen = self.look(position)
            human_moves = position.first_to_move == human_first
            if seen.ending is not None:
                if seen.ending is Ending.DRAW:
                    return "draw"
                won = (seen.ending is Ending.MOVER_WON) == human_moves
                return "human_won" if won else "ai_won"
            if human_moves:
                perfect = rng.randrange(100) < skill
                cell = rng.choice(seen.best if perfect else seen.moves)
            else:
                cell = seen.lowest if rng.randrange(100) < level else rng.choice(seen.moves)
            position = position.apply_move(cell)
        raise AssertionError("a game outlasted its board")

    def match(
        self,
        rng: random.Random,
        rules: Rules,
        skill: int,
        *,
        human_hp: int | None = None,
        ai_hp: int | None = None,
        locked: int | None = None,
    ) -> tuple[bool, int]:
        """One HP match from the rules' HP or those given: whether the player wins it,
        and in how many games."""
        human = rules.start_human_hp if human_hp is None else human_hp
        ai = rules.start_ai_hp if ai_hp is None else ai_hp
        games = 0
        while human > 0 and ai > 0:
            level = difficulty(ai) if locked is None else locked
            human, ai = hp_after_game(rules, human, ai, self.game(rng, skill, level))
            games += 1
        return human > 0, games

    def matches(
        self,
        rng: random.Random,
        rules: Rules,
        skill: int,
        count: int,
        *,
        pause: Pause = no_pause,
        **position: int | None,
    ) -> list[tuple[bool, int]]:
        """``count`` matches, ``pause`` called after each."""
        found = []
        for _ in range(count):
            found.append(self.match(rng, rules, skill, **position))
            pause()
        return found
