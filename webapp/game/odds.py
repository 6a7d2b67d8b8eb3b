"""The exact odds of an HP match, computed from the game tree: no simulation.

Two steps. First, one game: on each of its turns the AI plays a perfect move with
probability ``p`` (its difficulty / 100) and a uniformly random legal move otherwise,
and a scripted player moves by its own mixed policy; either side starts with
probability 1/2. Walking the whole game tree once gives the chances of a win, a loss
and a draw as polynomials in ``p`` (the AI moves at most five times, so of degree five
at most), with exact rational coefficients. Second, the match: a forward pass over the
states (player HP, AI HP), game by game, with each game's chances at that state's
difficulty, until every path has ended. That gives the chance of winning the match and
the distribution of its length. The states (at most ``rules.MAX_STATES`` for rules a player may
choose) are numbered once per rule set and start, with where each result leads from each
(``state_graph``), and each game of the pass is one ``numpy.bincount`` over them: the
hardest rule sets take a few milliseconds (bench/odds.py). Answers are cached by rule
set and player.

The scripted players, each uniform over a set of moves:

- ``random``: every legal move;
- ``perfect``: the moves that keep the best perfect-play value, the fastest win or the
  slowest loss (``engine.best_moves``, the set the AI's perfect move picks from);
- ``heuristic``: the moves with the best win-probability heuristic
  (``strategies.heuristic_choices``);
- ``skill:S`` (S from 0 to 1, rounded to 0.01): a perfect player's move with probability
  S, else a random player's. One walk of the tree gives its chances as polynomials in
  both p and S (``skill_polynomials``), so each S costs only their values, and
  ``random`` is ``skill:0`` and ``perfect`` ``skill:1``: their chances are those
  polynomials' values at S = 0 and S = 1 (the tests prove it with the exact ones).

A rule set whose every game changes some HP (the checks in ``Rules``) ends every match
in a bounded number of games, so the pass always ends.

On every other variant the game's polynomials in p and S come from a pass over all its
positions (variant_chances.py), computed once and shipped in ``variant_chances.json``
(``bench/variant_chances.py`` writes it); the AI's perfect move there is the solver's
lowest best move, as the match plays it.
The players are ``random``, ``perfect`` and ``skill:S`` (the heuristic plays classic
only), and the match's walk is the same: exact on every variant the table holds (all
six). A variant the table lacks has simulated odds instead: ``SIMULATED_MATCHES``
matches played from its solver, the chance with its 95% interval
(``MatchOdds.interval``; ``"exact": false`` in its JSON).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any, TypeVar

import numpy as np

from .board import Board, Cell
from .engine import best_moves
from .rules import MatchError, Pause, Rules, no_pause, reachable_rows
from .skill import wilson
from .strategies import heuristic_choices, solver_for
from .tree import canonical
from .variant import CLASSIC, Variant
from .variant_chances import shipped
from .variant_simulation import Sides

PLAYERS = ("random", "heuristic", "perfect")
QUANTILES = (50, 90, 99)
POLICIES: dict[str, Callable[[Board], tuple[Cell, ...]]] = {
    "random": lambda board: tuple(board.legal_moves()),
    "heuristic": heuristic_choices,
    "perfect": best_moves,
}
SIMULATED_MATCHES = 400  # where odds are simulated: a 95% interval of about +-5 points
SKILL = "skill:"
SKILL_STEPS = 100  # S is kept in hundredths, so there are 101 skill players at most
# The scripted players that are skill players at the ends of the scale.
AS_SKILL = {"random": 0, "perfect": SKILL_STEPS}


class UnknownPlayer(ValueError):
    """A player name that is neither a scripted player nor ``skill:S`` with S in 0..1."""

    code = "bad_setting"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def skill_player(skill: float) -> str:
    """The name of the player of skill ``skill`` (0..1), rounded to 0.01: ``skill:0.8``."""
    if isinstance(skill, bool) or not isinstance(skill, int | float) or not 0 <= skill <= 1:
        raise UnknownPlayer(f"a skill must be a number from 0 to 1, got {skill!r}")
    return f"{SKILL}{round(skill * SKILL_STEPS) / SKILL_STEPS:g}"


def player_name(name: str) -> str:
    """``name`` as the odds know it: a scripted player, or ``skill:S`` with S rounded to
    0.01 (``skill:0.805`` is ``skill:0.81``); refuses anything else."""
    if name in POLICIES:
        return name
    if name.startswith(SKILL):
        try:
            skill = float(name[len(SKILL) :])
        except ValueError:
            skill = -1.0
        if 0 <= skill <= 1:  # also refuses nan
            return skill_player(skill)
    choices = ", ".join(PLAYERS)
    raise UnknownPlayer(f"unknown player {name!r}: choose from {choices}, or skill:S with S 0..1")


def hundredths(player: str) -> int | None:
    """The skill of ``player`` (a name from ``player_name``) in hundredths, or None for
    the heuristic player, who is not on the scale."""
    if player in AS_SKILL:
        return AS_SKILL[player]
    if player.startswith(SKILL):
        return round(float(player[len(SKILL) :]) * SKILL_STEPS)
    return None


@dataclass(frozen=True)
class GameOdds:
    """The chances of one game's results, for the scripted player."""

    win: float
    loss: float
    draw: float


def players_for(variant: Variant) -> tuple[str, ...]:
    """The scripted players whose odds ``variant`` has: the heuristic plays classic only."""
    return PLAYERS if variant == CLASSIC else tuple(p for p in PLAYERS if p in AS_SKILL)


@dataclass(frozen=True)
class MatchOdds:
    """The chances of a whole match for the scripted player, and how long it lasts."""

    player: str
    human_match_win_prob: float
    expected_games: float
    games_quantiles: dict[str, int]
    rules: Rules
    interval: tuple[float, float] | None = None
    """Where the odds are simulated (not exact), the 95% interval of the chance."""

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the numbers, and the rules they are for; off classic, also whether
        the odds are exact, and if not the interval (the classic answer is as it was
        before variants came)."""
        found: dict[str, Any] = {
            "player": self.player,
            "human_match_win_prob": self.human_match_win_prob,
            "expected_games": self.expected_games,
            "games_quantiles": self.games_quantiles,
            "rules": self.rules.to_dict(),
        }
        if self.interval is not None:
            return {**found, "exact": False, "interval": list(self.interval)}
        return found if self.rules.variant == CLASSIC else {**found, "exact": True}


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

    Either side starts with probability 1/2; the one who starts plays X. For a skill
    player, the values of ``skill_polynomials`` at its S.
    """
    name = player_name(player)
    if name.startswith(SKILL):
        skill = Fraction(hundredths(name) or 0, SKILL_STEPS)
        return _at_skill(skill_polynomials(exact=True), skill, Fraction(0))
    return _both_sides(name, Fraction(1))


def _both_sides(player: str, unit: Number) -> Polys[Number]:
    return _mean([_game_tree(player, "X", unit), _game_tree(player, "O", unit)], unit)


@cache
def _float_polynomials(player: str) -> Polys[float]:
    """The same in floats: what the odds use (the exact ones are for the tests). The
    players on the skill scale take theirs from the one float walk in p and S, so that
    ``random`` and ``skill:0`` give the very same floats."""
    skill = hundredths(player)
    if skill is None:
        return _both_sides(player, 1.0)
    return _at_skill(skill_polynomials(), skill / SKILL_STEPS, 0.0)


# One game's (win, loss, draw) for the skill player as polynomials in p and S, each of
# degree 5 at most (either side moves 5 times at most): an array of shape (3, 6, 6),
# [result, i, j] holding the coefficient of p**i * S**j.
DEGREES = 6
# In the exact walk a position with e empty cells holds its chances times SCALE**e, in
# Python ints: every mean is over at most 9 moves, and 9, 8, ... 1 all divide SCALE, so
# the walk divides nothing and its ints stay exact (about 100 bits at the root).
SCALE = 2520


def _skill_tree(human_mark: str, exact: bool) -> np.ndarray:
    """The skill player's chances from the empty board, in p and S (times SCALE**9 if
    ``exact``)."""
    seen: dict[str, np.ndarray] = {}
    kind = object if exact else float

    def node(board: Board) -> np.ndarray:
        found = seen.get(board.cells)
        if found is not None:
            return found
        # Both sides' choices are the same up to the board's symmetries: a position's
        # chances are those of its canonical form, walked once for all eight.
        shape = canonical(board.cells)
        found = seen.get(shape)
        if found is None and shape != board.cells:
            found = node(Board(shape))
        if found is not None:
            seen[board.cells] = found
            return found
        outcome = board.outcome()
        if outcome is not None:
            result = np.zeros((3, DEGREES, DEGREES), dtype=kind)
            won = 2 if outcome.winner is None else 0 if outcome.winner == human_mark else 1
            result[won, 0, 0] = SCALE**board.empties if exact else 1.0
        else:
            best = _mean_of(node, board, best_moves(board), exact)
            chance = _mean_of(node, board, board.legal_moves(), exact)
            # x * best + (1 - x) * chance, x being S on the player's move, else p.
            gap = best - chance
            result = chance.copy()
            if board.to_move == human_mark:
                result[:, :, 1:] += gap[:, :, :-1]
            else:
                result[:, 1:, :] += gap[:, :-1, :]
        seen[board.cells] = result
        return result

    return node(Board())


def _mean_of(
    node: Callable[[Board], np.ndarray], board: Board, cells: Sequence[Cell], exact: bool
) -> np.ndarray:
    """The mean of the children's chances over ``cells`` (times SCALE if ``exact``)."""
    total = sum(node(board.apply_move(cell)) for cell in cells)
    assert isinstance(total, np.ndarray)
    return total * (SCALE // len(cells)) if exact else total / len(cells)


@cache
def skill_polynomials(*, exact: bool = False) -> Polys2:
    """One game's (win, loss, draw) for the skill player as polynomials in p and S, each
    a tuple of rows (one per power of p) of coefficients (one per power of S): Fractions
    if ``exact``, else floats. Either side starts with probability 1/2."""
    both = _skill_tree("X", exact) + _skill_tree("O", exact)
    whole = 2 * SCALE**9 if exact else 2

    def rows(poly: np.ndarray) -> Poly2:
        if exact:
            return tuple(tuple(Fraction(c, whole) for c in row) for row in poly)
        return tuple(tuple(float(c) / whole for c in row) for row in poly)

    return rows(both[0]), rows(both[1]), rows(both[2])


Poly2 = tuple[tuple[Any, ...], ...]  # rows by power of p, coefficients by power of S
Polys2 = tuple[Poly2, Poly2, Poly2]


def _at_skill(polys: Polys2, skill: Number, zero: Number) -> Polys[Number]:
    """The polynomials in p that ``polys`` are at S = ``skill``."""

    def at(poly: tuple[tuple[Number, ...], ...]) -> tuple[Number, ...]:
        return tuple(sum((c * skill**j for j, c in enumerate(row)), zero) for row in poly)

    win, loss, draw = polys
    return at(win), at(loss), at(draw)


@lru_cache(maxsize=(len(PLAYERS) + SKILL_STEPS + 1) * 101)
def game_odds(player: str, level: int) -> GameOdds:
    """One game's chances for ``player`` against the AI at difficulty ``level`` (0..100)."""
    player = player_name(player)
    p = level / 100
    win, loss, draw = (
        sum(c * p**k for k, c in enumerate(poly)) for poly in _float_polynomials(player)
    )
    return GameOdds(win, loss, draw)


def build_tables() -> None:
    """Compute every scripted player's one-game chances at every difficulty, and the
    skill players' polynomials, once per process."""
    for player in PLAYERS:
        _chance_table(player)


@lru_cache(maxsize=4096)
def match_odds(
    rules: Rules,
    player: str,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
    locked: int | None = None,
    pause: Pause | None = None,
) -> MatchOdds:
    """The exact odds of a match under ``rules`` for the scripted ``player`` (a name
    ``player_name`` accepts; pass it as that gives it, and the cache holds one answer).

    From the rules' starting HP, or from ``human_hp`` and ``ai_hp`` (a match under way);
    ``locked`` is a difficulty kept for the rest of the match. ``pause`` is called after
    each game of the walk, so that a server can serve others meanwhile. One game's
    chances are those of the rules' variant; the heuristic player plays classic only
    (``classic_only``, field player).
    """
    player = player_name(player)
    human = rules.start_human_hp if human_hp is None else human_hp
    ai = rules.start_ai_hp if ai_hp is None else ai_hp
    if rules.variant != CLASSIC and not worked_out(rules.variant.name, player):
        return _simulated(rules, player, (human, ai, locked), pause or no_pause)
    graph = state_graph(rules, human, ai)
    table = _chance_table(player) if rules.variant == CLASSIC else _variant_table(rules, player)
    # One game's chances in each state, at its AI HP's difficulty or the locked one.
    levels = np.clip(100 - graph.ai, 0, 100) if locked is None else np.full(graph.size, locked)
    chances = table[:, levels].ravel()  # wins of every state, then losses, then draws
    won, ended = _walk(graph, chances, pause or no_pause)
    return MatchOdds(
        player=player,
        human_match_win_prob=won,
        expected_games=float(np.dot(ended, np.arange(1, len(ended) + 1))),
        games_quantiles=_quantiles(ended),
        rules=rules,
    )


@lru_cache(maxsize=len(PLAYERS) + SKILL_STEPS + 1)
def _chance_table(player: str) -> np.ndarray:
    """``game_odds`` at each difficulty 0..100: rows win, loss and draw."""
    found = np.empty((3, 101))
    for level in range(101):
        odds = game_odds(player, level)
        found[:, level] = (odds.win, odds.loss, odds.draw)
    # At difficulty 100 the float polynomials can give -1e-16 for a chance that is 0.
    return np.maximum(found, 0.0)


def _skill_of(rules: Rules, player: str) -> int:
    """The player's skill in hundredths; the heuristic player plays classic only."""
    skill = hundredths(player)
    if skill is None:
        raise MatchError(
            "classic_only",
            f"the {player} player plays only the classic board, not {rules.variant.name}",
            field="player",
        )
    return skill


def tunable(variant: Variant) -> bool:
    """Whether a target can be tuned on ``variant``: every skill player's odds there are
    exact (the table holds it)."""
    return variant == CLASSIC or worked_out(variant.name, skill_player(0.5))


def worked_out(variant: str, player: str) -> bool:
    """Whether ``player``'s odds on ``variant`` (another than classic) are exact: the
    table holds the variant's game for every skill (``player`` is any of them)."""
    return variant in shipped()


def _variant_table(rules: Rules, player: str) -> np.ndarray:
    return _skill_table(rules.variant.name, _skill_of(rules, player))


def _simulated(
    rules: Rules, player: str, start: tuple[int, int, int | None], pause: Pause
) -> MatchOdds:
    """A variant whose game the table does not hold: ``SIMULATED_MATCHES`` matches played
    from its solver (variant_simulation.py), seeded by the question, so that the same
    question has the same answer; the chance with its Wilson 95% interval."""
    skill = _skill_of(rules, player)
    human, ai, locked = start
    rng = random.Random(f"{rules}|{player}|{start}")
    sides = _sides(rules.variant)
    runs = sides.matches(
        rng, rules, skill, SIMULATED_MATCHES, pause=pause, human_hp=human, ai_hp=ai, locked=locked
    )
    won = sum(win for win, _ in runs)
    counts = np.bincount([games for _, games in runs])[1:] / len(runs)
    return MatchOdds(
        player=player,
        human_match_win_prob=won / len(runs),
        expected_games=float(np.mean([games for _, games in runs])),
        games_quantiles=_quantiles([float(c) for c in counts]),
        rules=rules,
        interval=wilson(won, len(runs)),
    )


@cache
def _sides(variant: Variant) -> Sides:
    return Sides(solver_for(variant))


@lru_cache(maxsize=(SKILL_STEPS + 1) * 8)
def _skill_table(variant: str, skill: int) -> np.ndarray:
    """One game's chances for the skill player of ``skill`` hundredths on ``variant`` at
    each difficulty 0..100, from the shipped polynomials: rows win, loss and draw."""
    entry = shipped()[variant]
    coefficients = np.array([entry["win"], entry["loss"], entry["draw"]])
    in_p = coefficients @ (skill / SKILL_STEPS) ** np.arange(coefficients.shape[2])
    levels = np.arange(101)[None, :] / 100
    found = in_p @ levels ** np.arange(in_p.shape[1])[:, None]
    # Interpolated coefficients can give -1e-12 for a chance that is 0.
    chances: np.ndarray = np.clip(found, 0.0, 1.0)
    return chances


@dataclass(frozen=True)
class StateGraph:
    """The (player HP, AI HP) states a match can pass through from one start, numbered,
    and where each game's win, loss and draw lead from each: ``ai`` and ``human`` give
    each state's HP, ``targets`` the states after a win (first ``size``), a loss (next)
    and a draw (last), ``WON`` (= ``size``) and ``LOST`` (= ``size + 1``) the ends."""

    ai: np.ndarray
    human: np.ndarray
    targets: np.ndarray
    start: int

    @property
    def size(self) -> int:
        """How many states."""
        return len(self.ai)


@lru_cache(maxsize=1024)
def state_graph(rules: Rules, human: int, ai: int) -> StateGraph:
    """The states of a match under ``rules`` from ``human`` and ``ai`` HP, found as
    ``reachable_rows`` finds them (an int of player HPs per AI HP), and each game's
    targets, computed for all states at once."""
    top = rules.max_hp
    start = dataclasses.replace(rules, start_human_hp=human, start_ai_hp=ai)
    rows = reachable_rows(start)
    used = [hp for hp, row in enumerate(rows) if row]
    width = (top + 8) // 8
    packed = b"".join(rows[hp].to_bytes(width, "little") for hp in used)
    bits = np.unpackbits(np.frombuffer(packed, np.uint8), bitorder="little")
    which, humans = np.nonzero(bits.reshape(len(used), width * 8))
    ais = np.array(used, dtype=np.int64)[which]
    # A state's number is its rank by (AI HP, player HP), the order nonzero gives.
    keys = ais * (top + 1) + humans
    size = len(keys)
    won, lost = size, size + 1

    def goes(to_ai: np.ndarray, to_human: np.ndarray) -> np.ndarray:
        found: np.ndarray = np.searchsorted(keys, to_ai * (top + 1) + to_human)
        return found

    win = np.where(
        ais <= rules.human_win_ai_damage,
        won,
        goes(ais - rules.human_win_ai_damage, np.minimum(humans + rules.human_win_human_heal, top)),
    )
    loss = np.where(
        humans <= rules.ai_win_human_damage,
        lost,
        goes(ais, humans - rules.ai_win_human_damage),
    )
    # The player's end is checked first, as in Match.winner.
    draw = np.where(
        humans <= rules.draw_human_damage,
        lost,
        np.where(
            ais <= rules.draw_ai_damage,
            won,
            goes(ais - rules.draw_ai_damage, humans - rules.draw_human_damage),
        ),
    )
    targets = np.concatenate([win, loss, draw])
    return StateGraph(ais, humans, targets, int(np.searchsorted(keys, ai * (top + 1) + human)))


def _walk(graph: StateGraph, chances: np.ndarray, pause: Pause) -> tuple[float, list[float]]:
    """Walk a match forward game by game until every path has ended: the chance of
    winning it, and ``ended[k]``, the chance that it ends with game ``k + 1``.

    Each game moves every state's chance, times each result's, to that result's target
    state in one ``bincount``: the work is a few passes over the states a game, in C.
    Every game lowers the AI's HP or the player's, so each path ends within the longest
    match and the walk stops when no chance is left in any state.
    """
    size = graph.size
    mass: np.ndarray = np.zeros(size)
    mass[graph.start] = 1.0
    won = 0.0
    ended: list[float] = []
    while True:
        moved = np.bincount(graph.targets, weights=np.tile(mass, 3) * chances, minlength=size + 2)
        won += moved[size]
        ended.append(float(moved[size] + moved[size + 1]))
        mass = moved[:size]
        pause()
        if not mass.any():
            return float(won), ended


def _quantiles(ended: list[float]) -> dict[str, int]:
    """The fewest games by which 50, 90 and 99% of matches have ended."""
    found: dict[str, int] = {}
    total = 0.0
    for games, share in enumerate(ended, 1):
        total += share
        for q in QUANTILES:
            if str(q) not in found and total >= q / 100 - 1e-12:
                found[str(q)] = games
    return {str(q): found.get(str(q), len(ended)) for q in QUANTILES}
