"""Many adaptive matches against a scripted human, summed up: what the HP rules do.

Pure: every random choice comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from statistics import fmean

from .game import Side
from .match import Match, ai_move, human_move, new_match, next_game
from .rules import MatchError, Rules
from .strategies import Strategy, strategy
from .variant import CLASSIC

PLAYERS = ("random", "heuristic", "perfect")


@dataclass(frozen=True)
class MatchRun:
    """One simulated match: who won, and both sides' HP after each game."""

    winner: Side
    hp: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class HpByGame:
    """Average HP after game ``game`` over the matches that played it."""

    game: int
    matches_reaching: int
    human_hp: float
    ai_hp: float


@dataclass(frozen=True)
class Simulation:
    """The summary of many simulated adaptive matches against one kind of human player."""

    player: str
    matches: int
    human_match_wins: int
    human_match_win_rate: float
    avg_games_per_match: float
    hp_by_game: tuple[HpByGame, ...]


def match_states(
    player: Strategy,
    rng: random.Random,
    *,
    rules: Rules | None = None,
) -> Iterator[Match]:
    """Every state of one adaptive match, ``player`` moving for the human, until it ends.

    ``rng`` draws the player's moves and each game's server seed; the AI's dice follow
    from the seed.
    """
    match = new_match(rng, rules=rules)
    yield match
    while not match.over:
        if match.game.turn is None:
            match = next_game(match, rng)
        elif match.game.turn == "human":
            match = human_move(match, player(match.game.board, rng))
        else:
            match = ai_move(match)
        yield match


def run_match(states: Iterable[Match]) -> MatchRun:
    """The winner and the HP after each game, read off a finished match's states."""
    hp: list[tuple[int, int]] = []
    last: Match | None = None
    for last in states:
        if last.game.turn is None:
            hp.append((last.human_hp, last.ai_hp))
    if last is None or last.winner is None:
        raise MatchError("match_not_over", "the match did not reach its end")
    return MatchRun(last.winner, tuple(hp))


def simulate(
    player: str,
    matches: int,
    rng: random.Random,
    *,
    rules: Rules | None = None,
) -> Simulation:
    """Play ``matches`` adaptive matches with a scripted ``player`` and sum them up."""
    if player not in PLAYERS:
        raise MatchError("bad_setting", f"player must be one of {', '.join(PLAYERS)}")
    if player == "heuristic" and rules is not None and rules.variant != CLASSIC:
        raise MatchError(
            "classic_only",
            f"the heuristic player plays only the classic board, not {rules.variant.name}",
        )
    if matches < 1:
        raise MatchError("bad_setting", f"matches must be at least 1, got {matches}")
    scripted = strategy(player)
    runs = [run_match(match_states(scripted, rng, rules=rules)) for _ in range(matches)]
    wins = sum(run.winner == "human" for run in runs)
    return Simulation(
        player=player,
        matches=matches,
        human_match_wins=wins,
        human_match_win_rate=wins / matches,
        avg_games_per_match=fmean(len(run.hp) for run in runs),
        hp_by_game=hp_by_game(runs),
    )


def hp_by_game(runs: Sequence[MatchRun]) -> tuple[HpByGame, ...]:
    """Average HP after each game number over the matches that got that far."""
    rows = []
    for index in range(max(len(run.hp) for run in runs)):
        reached = [run.hp[index] for run in runs if len(run.hp) > index]
        human = fmean(h for h, _ in reached)
        rows.append(HpByGame(index + 1, len(reached), human, fmean(a for _, a in reached)))
    return tuple(rows)
