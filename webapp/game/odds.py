"""The exact odds of an HP match, computed from the game tree: no simulation.

Two steps. First, one game: on each of its turns the AI plays a perfect move with
probability ``p`` (its difficulty / 100) and a uniformly random legal move otherwise,
and a scripted player moves by its own mixed policy; either side starts with
probability 1/2. Walking the whole game tree once gives the chances of a win, a loss
and a draw as polynomials in ``p`` (the AI moves at most five times, so of degree five
at most), with exact rational coefficients. Second, the match: a forward pass over the
states (player HP, AI HP), game by game, with each game's chances at that state's
difficulty, until every path has ended. That gives the chance of winning the match and
the distribution of its length. The hardest rule sets reach tens of thousands of states,
each over dozens of games, so the pass packs runs of states into Python ints as fixed
point numbers (see ``_walk``): C does that arithmetic several times faster than the
interpreter does floats one by one, and a little more exactly.

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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache, partial
from math import gcd
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np

from .board import Board, Cell
from .engine import best_moves
from .match import Pause, Rules, difficulty, no_pause
from .strategies import heuristic_choices

PLAYERS = ("random", "heuristic", "perfect")
QUANTILES = (50, 90, 99)
POLICIES: dict[str, Callable[[Board], tuple[Cell, ...]]] = {
    "random": lambda board: tuple(board.legal_moves()),
    "heuristic": heuristic_choices,
    "perfect": best_moves,
}
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
            "rules": self.rules.to_dict(),
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
    """Compute every player's one-game chances at every difficulty, once per process."""
    for player in PLAYERS:
        for level in range(101):
            game_odds(player, level)
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
    each game of the walk, so that a server can serve others meanwhile.
    """
    player = player_name(player)
    human = rules.start_human_hp if human_hp is None else human_hp
    ai = rules.start_ai_hp if ai_hp is None else ai_hp
    table = _chance_table(player)
    # One game's chances at each AI HP the match can pass through (it never rises); the
    # difficulty stops changing above 100 HP.
    levels = [difficulty(hp) if locked is None else locked for hp in range(min(ai, 101) + 1)]
    chances = [table[level] for level in levels] + [table[levels[-1]]] * (ai - 101)
    won, ended = _walk(rules, chances, human, ai, pause or no_pause)
    return MatchOdds(
        player=player,
        human_match_win_prob=won / ONE,
        expected_games=sum(games * share for games, share in enumerate(ended, 1)) / ONE,
        games_quantiles=_quantiles(ended),
        rules=rules,
    )


# The walk below keeps its chances as fixed-point numbers with MASS_BITS binary places
# (a chance of 1 is ONE) and packs each run of them into one Python int, SLOT bits
# apiece: then one multiplication by an int scales the whole run, one shift moves it to
# other HPs and one addition merges two, each done in C over the int's 30-bit digits
# rather than by the interpreter float by float. A game's chance has CHANCE_BITS
# places, so a scaled slot has MASS_BITS + CHANCE_BITS places and, the chances arriving
# at one state summing to at most 1, fewer than MASS_BITS + CHANCE_BITS + 2 bits: it
# never carries into the next. Shifting back CHANCE_BITS leaves each slot's low bits in
# the top of the one below, which a mask clears. That drops under 2**-80 per state and
# game, and rounding each game's chance to CHANCE_BITS places moves it by under 2**-61,
# so a match's chances come out within 2e-16 of the exact sums over the float chances
# and its expected games within 2e-14: closer than the same sums done in floats, and far
# inside the 1e-12 by which the quantiles are read.
MASS_BITS = 80
CHANCE_BITS = 60
SLOT = MASS_BITS + CHANCE_BITS + 2
ONE = 1 << MASS_BITS

Chances = tuple[int, int, int]  # one game's win, loss and draw for the player, fixed-point


@lru_cache(maxsize=len(PLAYERS) + SKILL_STEPS + 1)
def _chance_table(player: str) -> list[Chances]:
    """``game_odds`` at each difficulty 0..100 in fixed point: one index per AI HP."""
    return [
        (_fixed(odds.win), _fixed(odds.loss), _fixed(odds.draw))
        for odds in map(partial(game_odds, player), range(101))
    ]


def _fixed(chance: float) -> int:
    # At difficulty 100 the float polynomials can give -1e-16 for a chance that is 0.
    return round(max(chance, 0.0) * (1 << CHANCE_BITS))


@lru_cache(maxsize=8)
def _keep(slots: int) -> int:
    """The mask of the low MASS_BITS + 2 bits of each of ``slots`` slots."""
    ones = ((1 << (slots * SLOT)) - 1) // ((1 << SLOT) - 1)  # 1 in every slot
    return ones * ((1 << (MASS_BITS + 2)) - 1)


@lru_cache(maxsize=128)
def _low(slots: int) -> int:
    """The mask of the lowest ``slots`` slots: ANDed with it, a run keeps just those."""
    return (1 << (slots * SLOT)) - 1


def _total(packed: int, slots: int) -> int:
    """The sum of the ``slots`` numbers packed in ``packed``: halves added, in turn."""
    while slots > 1:
        half = (slots + 1) // 2
        packed = (packed & _low(half)) + (packed >> (half * SLOT))
        slots = half
    return packed


Run = tuple[int, int, int]  # a run's first slot, its length and its packed chances

# How far apart two runs of one row may be and still be packed as one: each separate run
# costs some Python work per game, each zero slot filling a gap a little C work in every
# operation on the run. Measured on the hardest rule sets, 16 to 32 slots do best.
GAP = 16


def _walk(
    rules: Rules, chances: list[Chances], human: int, ai: int, pause: Pause
) -> tuple[int, list[int]]:
    """Walk a match forward game by game from (``human``, ``ai``) HP until every path has
    ended; ``chances[ai]`` is one game's at AI HP ``ai``. Gives the chance of winning
    the match and ``ended[k]``, the chance that it ends with game ``k + 1``.

    The frontier is not a dict of states but rows of them, and runs of consecutive
    states in each row: a game moves a whole run by the same HP, so each of its three
    results is one slice of the run, scaled and shifted to another row, and the Python
    work grows with the runs, not with the states. A state no path reaches holds 0 in a
    run, which changes no sum.

    Every HP the player gains or loses is a multiple of ``step``, except when a heal
    stops at the maximum HP; so each player HP is ``slot * step + residue`` with one of
    two residues, the start's and the maximum's. A row is the states of one AI HP and
    one residue, numbered ``ai * step + residue``, and a run's slots are consecutive
    values of ``slot``: damages of 10 and 30 give runs ten times denser.
    """
    top, heal = rules.max_hp, rules.human_win_human_heal
    win_damage, loss_damage = rules.human_win_ai_damage, rules.ai_win_human_damage
    draw_human, draw_ai = rules.draw_human_damage, rules.draw_ai_damage
    step = gcd(heal, loss_damage, draw_human)
    heal_slots, loss_slots, draw_slots = heal // step, loss_damage // step, draw_human // step
    keep = _keep(max(top, human) // step + 1)
    frontier: dict[int, list[Run]] = {ai * step + human % step: [(human // step, 1, ONE)]}
    # won, end and the pieces below are scaled by a game's chance and not yet shifted
    # back: MASS_BITS + CHANCE_BITS places.
    won = 0
    ended: list[int] = []
    while frontier:
        incoming: defaultdict[int, list[Run]] = defaultdict(list)
        end = 0
        for row, runs in frontier.items():
            ai, residue = divmod(row, step)
            win, loss, draw = chances[ai]
            # The first slot past those a win heals in full (past the rest it heals to
            # the top), past those a loss ends the match, and past those a draw does;
            # the player's end is checked first, as in Match.winner.
            healed = (top - heal - residue) // step + 1
            lost_by_loss = (loss_damage - residue) // step + 1
            lost_by_draw = (draw_human - residue) // step + 1
            for first, slots, packed in runs:
                if not packed:  # all gaps: HPs no path reaches, or chances under 2**-80
                    continue
                if win:
                    if ai <= win_damage:
                        share = _total(packed, slots) * win
                        won += share
                        end += share
                    else:
                        full = healed - first
                        target = row - win_damage * step
                        if full >= slots:
                            incoming[target].append((first + heal_slots, slots, packed * win))
                        else:
                            capped = packed
                            if full > 0:
                                part = packed & _low(full)
                                incoming[target].append((first + heal_slots, full, part * win))
                                capped = packed >> (full * SLOT)
                            else:
                                full = 0
                            incoming[(ai - win_damage) * step + top % step].append(
                                (top // step, 1, _total(capped, slots - full) * win)
                            )
                if loss:
                    lost = lost_by_loss - first
                    if lost <= 0:
                        incoming[row].append((first - loss_slots, slots, packed * loss))
                    elif lost < slots:
                        end += _total(packed & _low(lost), lost) * loss
                        alive = packed >> (lost * SLOT)
                        incoming[row].append(
                            (first + lost - loss_slots, slots - lost, alive * loss)
                        )
                    else:
                        end += _total(packed, slots) * loss
                if draw:
                    lost = lost_by_draw - first
                    alive = packed
                    if lost > 0:
                        lost = min(lost, slots)
                        end += _total(packed & _low(lost), lost) * draw
                        alive = packed >> (lost * SLOT)
                    else:
                        lost = 0
                    if lost < slots:
                        if ai <= draw_ai:
                            share = _total(alive, slots - lost) * draw
                            won += share
                            end += share
                        else:
                            incoming[row - draw_ai * step].append(
                                (first + lost - draw_slots, slots - lost, alive * draw)
                            )
        ended.append(end >> CHANCE_BITS)
        frontier = {row: _runs(pieces, keep) for row, pieces in incoming.items()}
        pause()
    return won >> CHANCE_BITS, ended


def _runs(pieces: list[Run], keep: int) -> list[Run]:
    """Add up the pieces arriving at one row into runs, joining those less than GAP slots
    apart, and shift them back to MASS_BITS places (``keep`` masks each slot)."""
    pieces.sort(key=itemgetter(0))
    runs: list[Run] = []
    start, stop, total = pieces[0]
    stop += start
    for first, slots, packed in pieces[1:]:
        if first > stop + GAP:
            runs.append((start, stop - start, (total >> CHANCE_BITS) & keep))
            start, stop, total = first, first + slots, packed
        else:
            total += packed << ((first - start) * SLOT)
            if first + slots > stop:
                stop = first + slots
    runs.append((start, stop - start, (total >> CHANCE_BITS) & keep))
    return runs


def _quantiles(ended: list[int]) -> dict[str, int]:
    """The fewest games by which 50, 90 and 99% of matches have ended."""
    found: dict[str, int] = {}
    total = 0
    for games, share in enumerate(ended, 1):
        total += share
        for q in QUANTILES:
            if str(q) not in found and total / ONE >= q / 100 - 1e-12:
                found[str(q)] = games
    return {str(q): found.get(str(q), len(ended)) for q in QUANTILES}
