"""The lab on every variant: its searches' counts against an independent run, plain
minimax's estimate against exact counts, the engine's values against the lab's own."""

from __future__ import annotations

import math
import random

import pytest

from webapp.game import lab
from webapp.game.board import Board
from webapp.game.lab_rules import game_for
from webapp.game.position import Ending, Position
from webapp.game.solver import Solver
from webapp.game.variant import VARIANTS, Variant, variant_named

FOUR = variant_named("4x4k4")
FOUR_POSITION = "XO..OX..X.O....."  # 10 empty cells: alpha-beta, table, symmetry: 18,734


# --- an independent run: the same search written again on Position, its own symmetry ---


def _turned(text: str, size: int) -> str:
    """One board's text turned a quarter (clockwise)."""
    rows = [text[r * size : (r + 1) * size] for r in range(size)]
    return "".join(rows[size - 1 - c][r] for r in range(size) for c in range(size))


def _mirrored(text: str, size: int) -> str:
    return "".join(text[r * size : (r + 1) * size][::-1] for r in range(size))


def _images(text: str, size: int) -> set[str]:
    found, turned = set(), text
    for _ in range(4):
        found |= {turned, _mirrored(turned, size)}
        turned = _turned(turned, size)
    return found


def _key(position: Position) -> str:
    """Equal for positions that are the same up to symmetry (Notakto: each board's, the
    boards in any order, a dead board as any other dead one)."""
    variant, size = position.variant, position.variant.columns
    boards = str(position).split("/")
    if not variant.notakto:
        return min(_images(boards[0], size))
    live = set(position.live_boards())
    keys = sorted("dead" if b not in live else min(_images(t, size)) for b, t in enumerate(boards))
    return "/".join(keys)


class _Independent:
    """Fail-hard alpha-beta with a table of exact values and symmetric children merged,
    depth-aware, counting every node visited (a table hit included), as docs/lab.md says."""

    def __init__(self, variant: Variant) -> None:
        self.top = variant.cells + 1
        self.nodes = self.hits = self.cuts = 0
        self.table: dict[str, float] = {}

    def visit(self, node: Position, depth: int, alpha: float, beta: float) -> tuple[float, bool]:
        self.nodes += 1
        text = str(node)
        if text in self.table:
            self.hits += 1
            return self.table[text], True
        ending = node.ending()
        if ending is not None:
            sign = {Ending.MOVER_WON: 1, Ending.MOVER_LOST: -1, Ending.DRAW: 0}[ending]
            sign = sign if depth % 2 == 0 else -sign
            self.table[text] = sign * (self.top - depth)
            return self.table[text], True
        score, exact = self.expand(node, depth, alpha, beta)
        if exact:
            self.table[text] = score
        return score, exact

    def expand(self, node: Position, depth: int, alpha: float, beta: float) -> tuple[float, bool]:
        mine = depth % 2 == 0
        seen: set[str] = set()
        low, high = alpha, beta
        for cell in node.legal_moves():
            child = node.apply_move(cell)
            if _key(child) in seen:
                continue
            seen.add(_key(child))
            score, _ = self.visit(child, depth + 1, low, high)
            low, high = (max(low, score), high) if mine else (low, min(high, score))
            if low >= high:
                self.cuts += 1
                return (high, False) if mine else (low, False)
        if mine:
            return low, not (low <= alpha and alpha > -math.inf)
        return high, not (high >= beta and beta < math.inf)


@pytest.mark.parametrize(
    ("name", "text"),
    [("4x4k4", FOUR_POSITION), ("notakto2", "X...X..../....X...."), ("4x4k3", "XO.OX.X.O.......")],
)
def test_alpha_beta_with_table_and_symmetry_counts_as_an_independent_run(
    name: str, text: str
) -> None:
    position = Position.parse(variant_named(name), text)
    found = lab.search(position, lab.Options("depth", prune=True, table=True, symmetry=True))
    again = _Independent(position.variant)
    value, _ = again.visit(position, 0, -math.inf, math.inf)
    assert (found.counts.nodes, found.counts.hits, found.counts.cuts) == (
        again.nodes,
        again.hits,
        again.cuts,
    )
    assert found.value == value
    if name == "4x4k4":
        assert found.counts.nodes == 18_734  # the figure docs/lab.md gives


# --- the estimate ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "symmetry"),
    [
        (Board(), False),  # 549,946 nodes
        (Board(), True),  # 58,524
        (Position.parse(FOUR, "XO.OOX..X.OX...."), False),  # 4x4, 8 empty cells
        (Position.parse(FOUR, "XO.OOX..X.OX...."), True),
        (Position.parse(variant_named("notakto2"), "X...X..../....X...."), True),  # 73,754
    ],
)
def test_the_estimate_of_plain_minimax_is_within_a_factor_of_the_count(
    board: lab.Root, symmetry: bool
) -> None:
    options = lab.Options("depth", symmetry=symmetry)
    exact = lab.search(board, options).counts.nodes
    guessed = lab.estimate(board, options, seed=43)
    assert exact / 1.5 <= guessed <= exact * 1.5, (exact, guessed)


def test_the_estimate_is_the_same_each_time_and_only_of_plain_searches() -> None:
    position = Position.empty(FOUR)
    options = lab.Options("depth")
    assert lab.estimate(position, options, seed=1) == lab.estimate(position, options, seed=1)
    assert lab.estimate(position, options, seed=1) > 10**12  # far beyond walking
    with pytest.raises(lab.LabError):
        lab.estimate(position, lab.Options("depth", prune=True))


def test_a_search_past_its_cap_stops() -> None:
    with pytest.raises(lab.TooLarge):
        lab.search(Position.empty(FOUR), lab.Options("depth", prune=True), most=2_048)
    whole = lab.Options("depth", prune=True, table=True, symmetry=True)
    small = lab.search(Position.parse(FOUR, FOUR_POSITION), whole, most=None)
    assert small.counts.nodes > 2_048  # no cap: to the end


# --- the rules and the engine's values -------------------------------------------------------


def _random_positions(variant: Variant, count: int, seed: int) -> list[Position]:
    rng, found = random.Random(seed), []
    for _ in range(count):
        position = Position.empty(variant)
        for _ in range(rng.randrange(variant.cells)):
            if position.is_over():
                break
            position = position.apply_move(rng.choice(position.legal_moves()))
        found.append(position)
    return found


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_labs_rules_are_the_positions(variant: Variant) -> None:
    game = game_for(variant)
    signs = {Ending.MOVER_WON: 1, Ending.MOVER_LOST: -1, Ending.DRAW: 0, None: None}
    for position in _random_positions(variant, 200, 7):
        cells = game.flat(position)
        assert game.position(cells) == position
        assert game.ending(cells) == signs[position.ending()]
        moves = [cell for cell, _ in game.children(cells)] if not position.is_over() else []
        assert moves == position.legal_moves()
        for cell, child in game.children(cells) if moves else []:
            assert game.position(child) == position.apply_move(cell)


@pytest.mark.parametrize("name", ["misere", "4x4k3", "4x4k4", "notakto2"])
@pytest.mark.parametrize("scoring", ["result", "depth", "empties"])
def test_the_engines_values_are_the_labs_own(name: str, scoring: lab.Scoring) -> None:
    variant = variant_named(name)
    options = lab.Options(scoring)
    late = [p for p in _random_positions(variant, 30, 3) if not p.is_over()]
    checked = 0
    for position in late:
        try:
            own = lab.children(position, (), options, most=10_240)
        except lab.TooLarge:
            continue
        engine = lab.engine_children(position, (), options, Solver(variant), most=10**6)
        assert [(c.cell, c.value) for c in own] == [(c.cell, c.value) for c in engine]
        checked += 1
    assert checked >= 3


def test_the_engine_is_counted_from_the_empty_4x4() -> None:
    counts = lab.engine_counts(Position.empty(FOUR), most=200_000)
    assert 0 < counts.nodes < 200_000
    with pytest.raises(lab.TooLarge):
        lab.engine_counts(Position.empty(FOUR), most=1_000)
