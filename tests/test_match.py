"""The HP match model: HP transitions, match end, decision rule, errors, the clock.

Stored records (to_record/from_record and the upgrades) are tested in test_records.py.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from webapp.game import match as match_module
from webapp.game import strategies
from webapp.game.board import Cell, RuleError
from webapp.game.fairness import Dice
from webapp.game.game import AiMove, Game, Side
from webapp.game.match import (
    Match,
    ai_move,
    apply_ai_move,
    choose_ai_move,
    difficulty,
    human_move,
    new_match,
    next_game,
)
from webapp.game.rules import FIXED_STRATEGIES, MODES, MatchError, Mode, Rules, rules_from
from webapp.server.protocol.snapshot import snapshot

# Scripted games as cells in move order; whoever is named plays X (moves first).
HUMAN_WINS: tuple[Side, Sequence[Cell]] = ("human", (0, 3, 1, 4, 2))
AI_WINS: tuple[Side, Sequence[Cell]] = ("ai", (0, 3, 1, 4, 2))
DRAW: tuple[Side, Sequence[Cell]] = ("human", (0, 4, 8, 2, 6, 3, 5, 7, 1))
SCRIPTS = {"human_won": HUMAN_WINS, "ai_won": AI_WINS, "draw": DRAW}


def dice(seed: int = 0) -> Dice:
    """Dice for game 1 with a server seed made from ``seed``, past the draw of who starts."""
    return Dice(random.Random(seed).randbytes(32).hex(), "test", 1, used=1)


def fresh(
    *, first: Side = "human", mode: str = "adaptive", human_hp: int = 100, ai_hp: int = 100
) -> Match:
    """A new match whose current game is started by ``first``."""
    rules = Rules(start_human_hp=human_hp, start_ai_hp=ai_hp)
    match = new_match(random.Random(0), mode=mode, rules=rules)
    return dataclasses.replace(match, game=Game(first=first, dice=dice()))


def reseeded(match: Match, seed: int) -> Match:
    """The same match with other dice for its current game: another roll of the AI's."""
    return dataclasses.replace(match, game=dataclasses.replace(match.game, dice=dice(seed)))


def play_cells(match: Match, cells: Sequence[Cell]) -> Match:
    """Play ``cells`` in order, each by whichever side is to move."""
    for cell in cells:
        if match.game.turn == "human":
            match = human_move(match, cell)
        else:
            match = apply_ai_move(match, AiMove(cell=cell, decision="perfect"))
    return match


def play_scripted(match: Match, status: str) -> Match:
    """Play one scripted game that ends in ``status`` as the match's current game."""
    first, cells = SCRIPTS[status]
    match = dataclasses.replace(match, game=Game(first=first, dice=dice()))
    match = play_cells(match, cells)
    assert match.game.status == status
    return match


# --- HP transitions, the cap, the clamp, the match end -------------------------------


@pytest.mark.parametrize(
    ("status", "before", "after"),
    [
        ("human_won", (50, 100), (60, 90)),
        ("human_won", (90, 100), (100, 90)),  # healing reaches the cap exactly
        ("human_won", (95, 40), (100, 30)),  # capped: +5 only
        ("human_won", (100, 100), (100, 90)),  # already at the cap: +0
        ("human_won", (1, 11), (11, 1)),
        ("ai_won", (100, 100), (66, 100)),
        ("ai_won", (50, 70), (16, 70)),
        ("ai_won", (35, 1), (1, 1)),
        ("draw", (100, 100), (90, 98)),
        ("draw", (55, 31), (45, 29)),
        ("draw", (11, 3), (1, 1)),
    ],
)
def test_hp_after_each_game(status: str, before: tuple[int, int], after: tuple[int, int]) -> None:
    match = play_scripted(fresh(human_hp=before[0], ai_hp=before[1]), status)
    assert (match.human_hp, match.ai_hp) == after
    assert match.last_hp_change == (after[0] - before[0], after[1] - before[1])
    assert not match.over
    assert match.winner is None


@pytest.mark.parametrize(
    ("status", "before", "after", "winner"),
    [
        ("ai_won", (34, 100), (0, 100), "ai"),  # exactly 0 ends the match
        ("ai_won", (1, 50), (-33, 50), "ai"),
        ("human_won", (100, 10), (100, 0), "human"),
        ("human_won", (40, 3), (50, -7), "human"),
        ("draw", (10, 50), (0, 48), "ai"),
        ("draw", (80, 2), (70, 0), "human"),
        ("draw", (5, 1), (-5, -1), "ai"),  # both run out at once: the human's HP decides
    ],
)
def test_match_ends_when_hp_runs_out(
    status: str, before: tuple[int, int], after: tuple[int, int], winner: Side
) -> None:
    match = play_scripted(fresh(human_hp=before[0], ai_hp=before[1]), status)
    assert (match.human_hp, match.ai_hp) == after
    assert match.over
    assert match.winner == winner
    assert snapshot(match)["match"]["winner"] == winner


@pytest.mark.parametrize(
    ("ai_hp", "expected"),
    [(100, 0), (99, 1), (60, 40), (31, 69), (1, 99), (0, 100), (-8, 100), (150, 0)],
)
def test_difficulty_is_clamped(ai_hp: int, expected: int) -> None:
    assert difficulty(ai_hp) == expected


@pytest.mark.parametrize(("ai_hp", "expected"), [(100, 0), (70, 30), (1, 99)])
def test_match_difficulty_follows_ai_hp(ai_hp: int, expected: int) -> None:
    match = fresh(ai_hp=ai_hp)
    assert match.difficulty == expected
    assert snapshot(match)["match"]["difficulty"] == expected


def test_record_counts_every_game() -> None:
    match = fresh()
    for status in ("human_won", "draw", "ai_won", "draw"):
        match = next_game(play_scripted(match, status), random.Random(1))
    assert dataclasses.astuple(match.record) == (1, 1, 2)
    assert (match.human_hp, match.ai_hp) == (100 + 0 - 10 - 34 - 10, 100 - 10 - 2 - 2)
    assert match.game_number == 5


@pytest.mark.parametrize("mode", list(FIXED_STRATEGIES))
def test_fixed_modes_keep_a_record_not_hp(mode: str) -> None:
    match = fresh(mode=mode)
    for status in ("ai_won", "ai_won", "ai_won", "draw"):
        match = next_game(play_scripted(match, status), random.Random(1))
    assert dataclasses.astuple(match.record) == (0, 3, 1)
    assert (match.human_hp, match.ai_hp) == (100, 100)
    assert match.difficulty is None
    assert match.last_hp_change is None
    assert not match.over


# --- settings ------------------------------------------------------------------------


@pytest.mark.parametrize("side", ["human_hp", "ai_hp"])
@pytest.mark.parametrize("hp", [1, 37, 100])
def test_starting_hp_is_a_setting(side: str, hp: int) -> None:
    match = new_match(random.Random(0), rules=rules_from(**{f"start_{side}": hp}))
    assert getattr(match, side) == hp
    assert getattr(match.rules, f"start_{side}") == hp


@pytest.mark.parametrize("side", ["human_hp", "ai_hp"])
@pytest.mark.parametrize("hp", [0, 101, -5, 1000, "50", 2.5, True])
def test_out_of_range_hp_is_refused(side: str, hp: object) -> None:
    with pytest.raises(MatchError) as caught:
        new_match(random.Random(0), rules=rules_from(**{f"start_{side}": hp}))
    assert caught.value.code == "bad_setting"
    assert caught.value.field == f"start_{side}"
    label = {"human_hp": "your starting HP", "ai_hp": "the AI's starting HP"}[side]
    assert caught.value.message.startswith(f"{label} must be an integer from 1 to 100")


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(MatchError) as caught:
        new_match(random.Random(0), mode="nightmare")
    assert caught.value.code == "bad_setting"


def test_defaults_follow_the_rules() -> None:
    match = new_match(random.Random(0))
    assert (match.mode, match.human_hp, match.ai_hp, match.difficulty) == ("adaptive", 100, 100, 0)


# --- who moves first -----------------------------------------------------------------


def test_first_player_is_a_coin_flip_and_plays_x() -> None:
    rng = random.Random(5)
    games = [new_match(rng).game for _ in range(4000)]
    share = sum(game.first == "human" for game in games) / len(games)
    # Four binomial standard deviations: sqrt(0.25 / 4000) = 0.0079.
    assert abs(share - 0.5) <= 4 * math.sqrt(0.25 / len(games))
    assert all(game.mark_of(game.first) == "X" and game.turn == game.first for game in games)


FIXED_MODES = [mode for mode in MODES if mode != "adaptive"]


@pytest.mark.parametrize("mode", FIXED_MODES)
@pytest.mark.parametrize("first", ["human", "ai"])
def test_a_fixed_mode_starts_with_the_side_chosen(mode: str, first: Side) -> None:
    rng = random.Random(3)
    for _ in range(50):
        game = new_match(rng, mode=mode, first=first).game
        assert (game.first, game.turn, game.mark_of(first)) == (first, first, "X")


class CountingRandom(random.Random):
    """A seeded Random that counts the server seeds drawn from it."""

    drawn = 0

    def randbytes(self, n: int) -> bytes:
        self.drawn += 1
        return super().randbytes(n)


@pytest.mark.parametrize("first", ["human", "ai", "toss"])
def test_a_chosen_first_player_takes_the_place_of_number_0(first: str) -> None:
    # The game is played on the seed committed before it, whatever is chosen: the server
    # never draws seeds again until one suits the choice.
    for seed in range(30):
        rng = CountingRandom(seed)
        before = new_match(rng, mode="hard")
        after = new_match(
            rng, mode="hard", first=first, server_seed=before.next_seed, client_seed="fresh"
        )
        game = after.game
        assert rng.drawn == 2 + 1  # two seeds for the first match, one (the next) for this
        assert game.dice.server_seed == before.next_seed and game.dice.player_seeded
        if first == "toss":
            starts, n, dice = dataclasses.replace(game.dice, used=0).pick(("human", "ai"))
            assert (game.first_by, game.first, n, dice) == ("dice", starts, 0, game.dice)
        else:
            assert (game.first_by, game.first, game.dice.used) == ("choice", first, 1)


def test_a_toss_is_a_coin_flip_in_every_mode() -> None:
    rng = random.Random(11)
    firsts = Counter(new_match(rng, mode="easy", first="toss").game.first for _ in range(400))
    assert firsts["human"] > 150 and firsts["ai"] > 150


def test_only_the_first_game_follows_the_choice() -> None:
    rng = random.Random(4)
    firsts = Counter[str]()
    for _ in range(200):
        match = new_match(rng, mode="medium", first="human")
        firsts[next_game(play_scripted(match, "draw"), rng).game.first] += 1
    assert firsts["human"] > 60 and firsts["ai"] > 60


@pytest.mark.parametrize(
    ("mode", "first", "words"),
    [
        ("adaptive", "human", "an HP match tosses a coin"),
        ("adaptive", "ai", "an HP match tosses a coin"),
        ("easy", "me", "first must be toss, human, ai, got 'me'"),
        ("hard", None, "first must be toss, human, ai, got None"),
    ],
)
def test_a_first_player_that_cannot_be_is_refused(mode: str, first: object, words: str) -> None:
    with pytest.raises(MatchError) as caught:
        new_match(random.Random(0), mode=mode, first=first)
    assert (caught.value.code, caught.value.field) == ("bad_setting", "first")
    assert words in caught.value.message


def test_next_game_draws_the_first_player_again() -> None:
    rng = random.Random(2)
    match, firsts = fresh(), Counter[str]()
    for _ in range(200):
        match = next_game(play_scripted(match, "ai_won"), rng)
        match = dataclasses.replace(match, human_hp=100)  # keep the match alive
        firsts[match.game.first] += 1
    assert firsts["human"] > 60 and firsts["ai"] > 60


# --- the decision rule ---------------------------------------------------------------

TURNS = 20_000


@pytest.mark.parametrize("level", [0, 30, 70, 100])
def test_share_of_perfect_moves_matches_difficulty(
    level: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if level == 100:
        # AI HP is at least 1 while a match is being played, so the difficulty tops out
        # at 99 in play; force 100 to check the rule's upper edge.
        monkeypatch.setattr(match_module, "difficulty", lambda ai_hp: 100)
    match = fresh(first="ai", ai_hp=max(1, 100 - level))
    moves = [choose_ai_move(reseeded(match, level * TURNS + i)) for i in range(TURNS)]
    rolls = [move.roll for move in moves if move.roll is not None]
    assert len(rolls) == TURNS
    assert set(rolls) == set(range(100))  # uniform 0..99: every value turns up
    assert all(move.difficulty == level for move in moves)
    assert all(
        (m.decision == "perfect") == (roll < level) for m, roll in zip(moves, rolls, strict=True)
    )
    assert {m.decision for m in moves} <= {"perfect", "random"}
    share = sum(move.decision == "perfect" for move in moves) / TURNS
    p = level / 100
    # The count of perfect moves is binomial(TURNS, p), so its share has standard
    # deviation sqrt(p(1-p)/TURNS), 0.0032 at p = 0.3 or 0.7; a deviation of four of
    # them happens by chance about once in 16,000 seeds. At 0 and 100 it is exact.
    assert abs(share - p) <= 4 * math.sqrt(p * (1 - p) / TURNS)
    if level in (0, 100):
        assert share == p


def test_perfect_moves_block_and_random_moves_spread() -> None:
    # The human (X) holds a1 and b1 and threatens c1 (cell 2); the AI holds b2.
    match = play_cells(fresh(ai_hp=50), (0, 4, 1))
    moves = [choose_ai_move(reseeded(match, seed)) for seed in range(600)]
    by_decision = {
        decision: {m.cell for m in moves if m.decision == decision}
        for decision in ("perfect", "random")
    }
    assert by_decision == {"perfect": {2}, "random": {2, 3, 5, 6, 7, 8}}


@pytest.mark.parametrize(("mode", "strategy"), list(FIXED_STRATEGIES.items()))
@pytest.mark.parametrize("opening", [(), (4,), (0, 4, 8)])
def test_fixed_modes_play_their_strategy(
    mode: Mode, strategy: str, opening: tuple[int, ...]
) -> None:
    match = play_cells(fresh(first="ai" if len(opening) % 2 == 0 else "human", mode=mode), opening)
    board = match.game.board
    choices = set(strategies.candidates(strategy, board, depth=match.rules.lookahead_depth))
    picked = set()
    for seed in range(200):  # a choice of 9 is missed with chance 9 * (8/9)**200, 5e-10
        move = choose_ai_move(reseeded(match, seed))
        # The decision recorded is the strategy's own name, its candidates its choices.
        assert (move.decision, move.roll, move.difficulty) == (strategy, None, None)
        assert set(move.candidates) == choices and move.cell in choices
        assert move.candidates == tuple(sorted(move.candidates))
        picked.add(move.cell)
    assert picked == choices  # every equal choice turns up


def test_fixed_modes_name_their_strategies() -> None:
    assert FIXED_STRATEGIES == {
        "easy": "random",
        "medium": "heuristic",
        "hard": "lookahead",
        "impossible": "perfect",
    }
    assert set(FIXED_STRATEGIES) == set(MODES) - {"adaptive"}
    assert set(FIXED_STRATEGIES.values()) <= set(strategies.STRATEGY_NAMES)


def test_impossible_mode_never_loses() -> None:
    rng = random.Random(9)
    match = fresh(mode="impossible")
    for _ in range(60):
        while match.game.turn is not None:
            if match.game.turn == "human":
                match = human_move(match, strategies.random_move(match.game.board, rng))
            else:
                match = ai_move(match)
        match = next_game(match, rng)
    assert match.record.wins == 0
    assert match.record.losses > 0


# --- illegal transitions -------------------------------------------------------------


def human_to_move() -> Match:
    return fresh(first="human")


def ai_to_move() -> Match:
    return fresh(first="ai")


def game_ended() -> Match:
    return play_scripted(fresh(), "draw")


def match_ended() -> Match:
    return play_scripted(fresh(human_hp=34), "ai_won")


ACTIONS: dict[str, Callable[[Match], object]] = {
    "human_move": lambda m: human_move(m, 8),
    "choose_ai_move": choose_ai_move,
    "apply_ai_move": lambda m: apply_ai_move(m, AiMove(cell=8, decision="random")),
    "ai_move": ai_move,
    "next_game": lambda m: next_game(m, random.Random(0)),
}


@pytest.mark.parametrize(
    ("state", "action", "code"),
    [
        (ai_to_move, "human_move", "not_your_turn"),
        (human_to_move, "choose_ai_move", "not_your_turn"),
        (human_to_move, "apply_ai_move", "not_your_turn"),
        (human_to_move, "ai_move", "not_your_turn"),
        (human_to_move, "next_game", "game_over"),  # the game has not ended yet
        (game_ended, "human_move", "game_over"),
        (game_ended, "ai_move", "game_over"),
        (match_ended, "human_move", "match_over"),
        (match_ended, "choose_ai_move", "match_over"),
        (match_ended, "apply_ai_move", "match_over"),
        (match_ended, "next_game", "match_over"),
    ],
)
def test_illegal_transitions_raise_coded_errors(
    state: Callable[[], Match], action: str, code: str
) -> None:
    match = state()
    with pytest.raises(MatchError) as caught:
        ACTIONS[action](match)
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(("cell", "code"), [(0, "cell_taken"), (9, "cell_out_of_range")])
def test_bad_cells_raise_coded_errors(cell: object, code: str) -> None:
    match = play_cells(fresh(first="human"), (0, 4))
    with pytest.raises(RuleError) as caught:
        human_move(match, cell)
    assert caught.value.code == code


# --- the clock -----------------------------------------------------------------------


class FakeClock:
    """A nanosecond clock that returns the given readings in turn."""

    def __init__(self, *readings: int) -> None:
        self.readings = list(readings)

    def __call__(self) -> int:
        return self.readings.pop(0)


@pytest.mark.parametrize("mode", MODES)
def test_without_a_clock_think_time_is_zero(mode: str) -> None:
    match = ai_move(fresh(first="ai", mode=mode, ai_hp=50))
    assert match.game.ai_moves[-1].think_us == 0
    assert choose_ai_move(fresh(first="ai", mode=mode)).think_us == 0


@pytest.mark.parametrize("mode", MODES)
def test_think_time_comes_from_the_clock_given(mode: str) -> None:
    clock = FakeClock(0, 5_000)
    match = ai_move(fresh(first="ai", mode=mode), clock=clock)
    assert match.game.ai_moves[-1].think_us == 5
    assert clock.readings == []  # read once before the choice and once after
    move = choose_ai_move(fresh(first="ai", mode=mode), clock=FakeClock(7, 2_999))
    assert move.think_us == 2  # whole microseconds, rounded down


def test_the_clock_does_not_change_the_move() -> None:
    match = fresh(first="ai", ai_hp=50)
    timed = [choose_ai_move(reseeded(match, seed), clock=FakeClock(0, 1_000)) for seed in range(20)]
    plain = [choose_ai_move(reseeded(match, seed)) for seed in range(20)]
    assert [dataclasses.replace(move, think_us=0) for move in timed] == plain
