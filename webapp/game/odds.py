"""The exact odds of an HP match, computed from the game tree: no simulation.

Two steps. First, one game: on each of its turns the AI plays a perfect move with
probability ``p`` (its difficulty / 100) and a uniformly random legal move otherwise,
and a scripted player moves by its own mixed policy; either side starts with
probability 1/2. Walking the whole game tree once gives the chances of a win, a loss
and a draw as polynomials in ``p`` (the AI moves at most five times, so of degree five
at most), with exact rational coefficients. Second, the match: a forward pass over the
states (player HP, AI HP), game by game, with each game's chances at that state's
difficulty, until every path has ended. That gives the chance of winning the match and
the distribution of its length.

The scripted players, each uniform over a set of moves:

- ``random``: every legal move;
- ``perfect``: the moves that keep the best perfect-play value, the fastest win or the
  slowest loss (``engine.best_moves``, the set the AI's perfect move picks from);
- ``heuristic``: the moves with the best win-probability heuristic
  (``strategies.heuristic_choices``).

A rule set whose every game changes some HP (the checks in ``Rules``) ends every match
in a bounded number of games, so the pass always ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any, TypeVar

from .board import Board, Cell
from .engine import best_moves
from .match import Rules, difficulty, hp_after_game, states_from
from .strategies import heuristic_choices

PLAYERS = ("random", "heuristic", "perfect")
QUANTILES = (50, 90, 99)
POLICIES: dict[str, Callable[[Board], tuple[Cell, ...]]] = {
    "random": lambda board: tuple(board.legal_moves()),
    "heuristic": heuristic_choices,
    "perfect": best_moves,
}


@dataclass(frozen=True)
class GameOdds:
    """The chances of one game's results, for the scripted player."""

    win: float
    loss: float
    draw: float


@dataclass(frozen=True)
class MatchOdds:
    """The chances of a whole match for the scripted player, and how long it lasts."""

    player: str
    human_match_win_prob: float
    expected_games: float
    games_quantiles: dict[str, int]
    rules: Rules

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the numbers, and the rules they are for."""
        return {
            "player": self.player,
            "human_match_win_prob": self.human_match_win_prob,
            "expected_games": self.expected_games,
            "games_quantiles": self.games_quantiles,
            "rules": asdict(self.rules),
        }


Number = TypeVar("Number", Fraction, float)
Polys = tuple[tuple[Number, ...], tuple[Number, ...], tuple[Number, ...]]


def _add(a: tuple[Number, ...], b: tuple[Number, ...]) -> tuple[Number, ...]:
    if len(a) < len(b):
        a, b = b, a
    return tuple(c + b[i] if i < len(b) else c for i, c in enumerate(a))


def _mix(
    perfect: tuple[Number, ...], chance: tuple[Number, ...], zero: Number
) -> tuple[Number, ...]:
    """p * perfect + (1 - p) * chance, as coefficients of p**0, p**1, ..."""
    shifted = [zero]
    shifted.extend(zero - c for c in chance)  # -p * chance
    raised = [zero]
    raised.extend(perfect)  # p * perfect
    return _add(_add(chance, tuple(shifted)), tuple(raised))


def _mean(polys: list[Polys[Number]], unit: Number) -> Polys[Number]:
    share = unit / len(polys)
    total: list[tuple[Number, ...]] = [(), (), ()]
    for three in polys:
        total = [_add(total[i], three[i]) for i in range(3)]
    win, loss, draw = (tuple(c * share for c in poly) for poly in total)
    return win, loss, draw


def _game_tree(player: str, human_mark: str, unit: Number) -> Polys[Number]:
    """(win, loss, draw) for the player as polynomials in p, from the empty board, in the
    number type of ``unit`` (Fraction for exact coefficients, float for speed)."""
    policy = POLICIES[player]
    seen: dict[str, Polys[Number]] = {}
    one, zero = (unit,), (unit - unit,)

    def node(board: Board) -> Polys[Number]:
        found = seen.get(board.cells)
        if found is not None:
            return found
        outcome = board.outcome()
        if outcome is not None:
            if outcome.winner is None:
                result: Polys[Number] = (zero, zero, one)
            elif outcome.winner == human_mark:
                result = (one, zero, zero)
            else:
                result = (zero, one, zero)
        elif board.to_move == human_mark:
            result = _mean([node(board.apply_move(cell)) for cell in policy(board)], unit)
        else:
            perfect = _mean([node(board.apply_move(cell)) for cell in best_moves(board)], unit)
            chance = _mean([node(board.apply_move(cell)) for cell in board.legal_moves()], unit)
            result = (
                _mix(perfect[0], chance[0], zero[0]),
                _mix(perfect[1], chance[1], zero[0]),
                _mix(perfect[2], chance[2], zero[0]),
            )
        seen[board.cells] = result
        return result

    return node(Board())


@cache
def game_polynomials(player: str) -> Polys[Fraction]:
    """One game's (win, loss, draw) for ``player`` as exact polynomials in p.

    Either side starts with probability 1/2; the one who starts plays X.
    """
    return _both_sides(player, Fraction(1))


def _both_sides(player: str, unit: Number) -> Polys[Number]:
    if player not in POLICIES:
        raise ValueError(f"unknown player {player!r}: choose from {', '.join(PLAYERS)}")
    return _mean([_game_tree(player, "X", unit), _game_tree(player, "O", unit)], unit)


@cache
def _float_polynomials(player: str) -> Polys[float]:
    """The same in floats: what the odds use (the exact ones are for the tests)."""
    return _both_sides(player, 1.0)


@cache
def game_odds(player: str, level: int) -> GameOdds:
    """One game's chances for ``player`` against the AI at difficulty ``level`` (0..100)."""
    p = level / 100
    win, loss, draw = (
        sum(c * p**k for k, c in enumerate(poly)) for poly in _float_polynomials(player)
    )
    return GameOdds(win, loss, draw)


def build_tables() -> None:
    """Compute every player's one-game chances at every difficulty, once per process."""
    for player in PLAYERS:
        for level in range(101):
            game_odds(player, level)


@lru_cache(maxsize=4096)
def match_odds(
    rules: Rules,
    player: str,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
    locked: int | None = None,
) -> MatchOdds:
    """The exact odds of a match under ``rules`` for the scripted ``player``.

    From the rules' starting HP, or from ``human_hp`` and ``ai_hp`` (a match under way);
    ``locked`` is a difficulty kept for the rest of the match.
    """
    start = (
        rules.start_human_hp if human_hp is None else human_hp,
        rules.start_ai_hp if ai_hp is None else ai_hp,
    )
    graph = _graph(_steps(rules, player, locked), start)
    won, expected = _backward(graph)
    return MatchOdds(
        player=player,
        human_match_win_prob=won,
        expected_games=expected,
        games_quantiles=_forward_quantiles(graph),
        rules=rules,
    )


Steps = Callable[[int, int], list[tuple[float, int, int]]]


def _steps(rules: Rules, player: str, locked: int | None) -> Steps:
    """For a state (player HP, AI HP): each result's chance and the HP after it."""

    def after(human: int, ai: int) -> list[tuple[float, int, int]]:
        chances = game_odds(player, difficulty(ai) if locked is None else locked)
        moves = []
        for status, chance in (
            ("human_won", chances.win),
            ("ai_won", chances.loss),
            ("draw", chances.draw),
        ):
            if chance > 0.0:
                moves.append((chance, *hp_after_game(rules, human, ai, status)))  # type: ignore[arg-type]
        return moves

    return after


@dataclass(frozen=True)
class _Graph:
    """The states a match can pass through, numbered so that each one's next states come
    first (state 0 is last: the start), and each state's results as (chance, next):
    next is a state's number, or ``WON`` or ``LOST``."""

    moves: list[list[tuple[float, int]]]


WON, LOST = -1, -2


def _graph(steps: Steps, start: tuple[int, int]) -> _Graph:
    order = states_from(start, lambda state: [(h, a) for _, h, a in steps(*state)])
    number = {state: index for index, state in enumerate(order)}
    moves = []
    for state in order:
        found = []
        for chance, next_human, next_ai in steps(*state):
            if next_human <= 0:  # as in Match.winner, the player's end is checked first
                found.append((chance, LOST))
            elif next_ai <= 0:
                found.append((chance, WON))
            else:
                found.append((chance, number[next_human, next_ai]))
        moves.append(found)
    return _Graph(moves)


def _backward(graph: _Graph) -> tuple[float, float]:
    """The chance of winning the match and its expected games, from the start."""
    win = [0.0] * len(graph.moves)
    games = [0.0] * len(graph.moves)
    for index, found in enumerate(graph.moves):
        won = expected = 0.0
        for chance, after in found:
            if after == WON:
                won += chance
            elif after >= 0:
                won += chance * win[after]
                expected += chance * games[after]
        win[index], games[index] = won, 1.0 + expected
    return win[-1], games[-1]


def _forward_quantiles(graph: _Graph) -> dict[str, int]:
    """The fewest games by which 50, 90 and 99% of matches have ended."""
    frontier = {len(graph.moves) - 1: 1.0}
    ended = 0.0
    found: dict[str, int] = {}
    games = 0
    while frontier and len(found) < len(QUANTILES):
        games += 1
        after: dict[int, float] = {}
        for index, mass in frontier.items():
            for chance, state in graph.moves[index]:
                if state < 0:
                    ended += mass * chance
                else:
                    after[state] = after.get(state, 0.0) + mass * chance
        frontier = after
        for q in QUANTILES:
            if str(q) not in found and ended >= q / 100 - 1e-12:
                found[str(q)] = games
    return {str(q): found.get(str(q), games) for q in QUANTILES}
