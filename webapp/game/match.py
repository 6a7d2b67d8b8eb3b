"""The HP match: rules, difficulty, the AI's move policy and scoring, as pure values.

A match is a series of games between a human and the AI. In adaptive mode both
sides have hit points; the AI's difficulty is ``100 - AI HP`` (or the difficulty the
player locked) and on each of its turns it rolls 0..99: under the difficulty it plays
the perfect move, otherwise a random one. So the more the AI loses, the better it
plays. The fixed modes use one strategy throughout and keep only a win/loss/draw record.

Every random choice of a game (who starts, each roll, each pick among equal moves) is
drawn from the game's committed dice stream (``fairness.Dice``); a ``random.Random``
passed in only draws each game's secret server seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, cast, get_args

from . import strategies
from .board import Board, Cell, Mark, RuleError, check_cell
from .fairness import SERVER_CLIENT_SEED, Dice, check_client_seed, new_server_seed
from .promise import Promise

Mode = Literal["adaptive", "easy", "medium", "hard", "impossible"]
Side = Literal["human", "ai"]
Status = Literal["playing", "human_won", "ai_won", "draw"]
FirstBy = Literal["dice", "choice", "position"]
FIRST_BY: tuple[FirstBy, ...] = get_args(FirstBy)
"""What decided who starts: the dice's number 0, the player's choice, or the position a
practice game begins from (where the side to move is the player)."""
MODES: tuple[Mode, ...] = get_args(Mode)
Clock = Callable[[], int]
"""Nanoseconds from an arbitrary start, such as ``time.perf_counter_ns``."""

# The strategy each fixed mode plays; its moves are recorded under the same name.
FIXED_STRATEGIES: dict[str, str] = {
    "easy": "random",
    "medium": "heuristic",
    "hard": "lookahead",
    "impossible": "perfect",
}


class MatchError(RuleError):
    """An illegal match transition or setting; ``code`` is stable for clients, and
    ``field`` names the rule a refused setting is about."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(code, message)
        self.field = field


@dataclass(frozen=True)
class RuleField:
    """One number of the HP rules: its field, its command-line flag, its words and range.

    ``low`` and ``high`` bound it; a ``high`` of None means up to ``max_hp``.
    """

    name: str
    flag: str
    label: str
    low: int
    high: int | None


MAX_HP_LIMIT = 1000
RULE_FIELDS: tuple[RuleField, ...] = (
    RuleField("max_hp", "--max-hp", "the most HP either side can have", 1, MAX_HP_LIMIT),
    RuleField("start_human_hp", "--human-hp", "your starting HP", 1, None),
    RuleField("start_ai_hp", "--ai-hp", "the AI's starting HP", 1, None),
    RuleField("human_win_human_heal", "--heal-on-win", "HP you heal when you win", 0, None),
    RuleField("human_win_ai_damage", "--ai-damage-on-win", "HP the AI loses when you win", 1, None),
    RuleField("ai_win_human_damage", "--damage-on-loss", "HP you lose when the AI wins", 1, None),
    RuleField("draw_human_damage", "--damage-on-draw", "HP you lose on a draw", 0, None),
    RuleField("draw_ai_damage", "--ai-damage-on-draw", "HP the AI loses on a draw", 0, None),
)


@dataclass(frozen=True)
class Rules:
    """Every number of the HP mechanic in one place; defaults follow the original game.

    Each is checked when the rules are made (``RULE_FIELDS`` gives the ranges), and every
    game must change some HP, so that every match ends: a win and a loss always do, and
    a draw must cost at least one side something.
    """

    start_human_hp: int = 100
    start_ai_hp: int = 100
    max_hp: int = 100
    human_win_ai_damage: int = 10
    human_win_human_heal: int = 10
    ai_win_human_damage: int = 34
    draw_ai_damage: int = 2
    draw_human_damage: int = 10
    lookahead_depth: int = 2

    def __post_init__(self) -> None:
        for rule in RULE_FIELDS:
            value = getattr(self, rule.name)
            high = self.max_hp if rule.high is None else rule.high
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not rule.low <= value <= high
            ):
                raise MatchError(
                    "bad_setting",
                    f"{rule.label} must be an integer from {rule.low} to {high}, got {value!r}",
                    field=rule.name,
                )
        if self.draw_human_damage == 0 and self.draw_ai_damage == 0:
            raise MatchError(
                "bad_setting",
                "a draw must cost you or the AI at least 1 HP, or a match could go on for ever",
            )
        if not 1 <= self.lookahead_depth <= 9:
            raise MatchError("bad_setting", "lookahead_depth must be from 1 to 9")

    def to_dict(self) -> dict[str, int]:
        """As JSON-compatible data, in the order of the fields."""
        return {
            "start_human_hp": self.start_human_hp,
            "start_ai_hp": self.start_ai_hp,
            "max_hp": self.max_hp,
            "human_win_ai_damage": self.human_win_ai_damage,
            "human_win_human_heal": self.human_win_human_heal,
            "ai_win_human_damage": self.ai_win_human_damage,
            "draw_ai_damage": self.draw_ai_damage,
            "draw_human_damage": self.draw_human_damage,
            "lookahead_depth": self.lookahead_depth,
        }


# Named rule sets, each tuned with game/odds.py to keep a promise (tests check them):
# classic is the original game; gentle lets a player who moves at random win at least 5%
# of matches; fair lets a perfect player win at least 99% and a random one under 1%;
# brutal lets even a perfect player win at most 60%.
PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "gentle": Rules(human_win_ai_damage=20, ai_win_human_damage=20, draw_human_damage=5),
    "fair": Rules(draw_human_damage=5),
    "brutal": Rules(draw_human_damage=15),
}


MAX_GAMES = 100  # the longest a match may possibly last under rules a player chooses
# The most (player HP, AI HP) states a match may pass through: it bounds the work of
# finding the longest match and of the exact odds (game/odds.py); the hardest rule set a
# search found takes about 5 ms of CPU per player (bench/odds.py, docs/performance.md).
MAX_STATES = 5000
PAUSE_EVERY = 256  # states walked between two calls of a caller's ``pause``


Pause = Callable[[], object]
"""Called now and then by long walks, so that a server can let others run meanwhile."""


class TooManyStates(MatchError):
    """Rules whose matches pass through more than ``MAX_STATES`` HP states."""


def no_pause() -> None:
    """Pause for no one: what a walk does unless its caller says otherwise."""


def reachable_rows(rules: Rules) -> list[int]:
    """The (player HP, AI HP) states a match under ``rules`` can pass through, one int
    per AI HP (index), bit ``h`` set for each player HP ``h`` reachable with it.

    A loss (and a draw that costs the AI nothing) keeps the AI's HP and lowers the
    player's, so a row is closed under those shifts down; a win moves a row to a lower
    AI HP, shifted up by the heal and capped at the maximum, and a draw that costs the AI
    something shifts it down to another row. The AI's HP never rises (the checks in
    ``Rules``), so the rows are done from the start's AI HP down, each complete before it
    moves on: a few operations on ints per AI HP, however many states there are.
    """
    top, heal = rules.max_hp, rules.human_win_human_heal
    win_damage, draw_ai = rules.human_win_ai_damage, rules.draw_ai_damage
    alive = (1 << (top + 1)) - 2  # player HPs 1..top
    rows = [0] * (rules.start_ai_hp + 1)
    rows[rules.start_ai_hp] = 1 << rules.start_human_hp
    same_row = [rules.ai_win_human_damage]
    if draw_ai == 0:
        same_row.append(rules.draw_human_damage)
    for ai in range(rules.start_ai_hp, 0, -1):
        row = rows[ai]
        if not row:
            continue
        for shift in same_row:
            row = _closed(row, shift, top)
        row = rows[ai] = row & alive
        if ai > win_damage:
            healed = row << heal
            if healed >> (top + 1):  # some heals stop at the maximum HP
                healed = (healed & alive) | (1 << top)
            rows[ai - win_damage] |= healed
        if 0 < draw_ai < ai:
            rows[ai - draw_ai] |= (row >> rules.draw_human_damage) & alive
    return rows


def _closed(row: int, shift: int, top: int) -> int:
    """``row`` with each bit also moved down by every multiple of ``shift``: the span
    doubles each time, so it takes about log2(top / shift) steps."""
    span = shift
    while span <= top:
        row |= row >> span
        span *= 2
    return row


@lru_cache(maxsize=4096)
def count_states(rules: Rules) -> int:
    """How many (player HP, AI HP) states a match under ``rules`` can pass through,
    counted without visiting them (``reachable_rows``): a rule set with too many costs
    about a millisecond to refuse, and one asked again nothing."""
    return sum(row.bit_count() for row in reachable_rows(rules))


def _player_hps(row: int) -> Iterator[int]:
    """The player HPs of a row, lowest first."""
    while row:
        low = row & -row
        yield low.bit_length() - 1
        row ^= low


@lru_cache(maxsize=1024)
def longest_match(rules: Rules, *, pause: Pause = no_pause) -> int:
    """The most games a match under ``rules`` can last, whatever happens in each game.

    Over the reachable states only, from the lowest AI HP up and, in each, the lowest
    player HP up: every state a game leads to is done before the state itself.
    """
    top, heal = rules.max_hp, rules.human_win_human_heal
    win_damage, loss_damage = rules.human_win_ai_damage, rules.ai_win_human_damage
    draw_human, draw_ai = rules.draw_human_damage, rules.draw_ai_damage
    rows = reachable_rows(rules)
    longest: list[dict[int, int]] = [{} for _ in rows]
    done = 0
    for ai, row in enumerate(rows):
        here = longest[ai]
        for human in _player_hps(row):
            most = 0
            if ai > win_damage:
                most = longest[ai - win_damage][min(top, human + heal)]
            if human > loss_damage:
                most = max(most, here[human - loss_damage])
            if human > draw_human and ai > draw_ai:
                most = max(most, longest[ai - draw_ai][human - draw_human])
            here[human] = most + 1
            done += 1
            if done % PAUSE_EVERY == 0:
                pause()
    return longest[rules.start_ai_hp][rules.start_human_hp]


def rules_from(preset: str = "classic", *, pause: Pause = no_pause, **numbers: object) -> Rules:
    """A preset's rules with some numbers changed (None leaves one as it is); refused if
    a match under them could pass through over ``MAX_STATES`` HP states (counted first,
    without walking them) or last over ``MAX_GAMES`` games. ``pause`` is called now and
    then during that check."""
    if preset not in PRESETS:
        names = ", ".join(PRESETS)
        raise MatchError("bad_setting", f"preset must be one of {names}, got {preset!r}")
    known = {rule.name for rule in RULE_FIELDS}
    unknown = sorted(set(numbers) - known)
    if unknown:
        raise MatchError("bad_setting", f"unknown rule {unknown[0]!r}: use {', '.join(known)}")
    changes = {name: value for name, value in numbers.items() if value is not None}
    rules = dataclasses.replace(PRESETS[preset], **cast(dict[str, Any], changes))
    if count_states(rules) > MAX_STATES:
        raise TooManyStates(
            "bad_setting",
            f"under these rules a match could pass through more than {MAX_STATES}"
            " different HP states, too many to work out its odds: raise a damage or"
            " lower the most HP",
        )
    games = longest_match(rules, pause=pause)
    if games > MAX_GAMES:
        raise MatchError(
            "bad_setting",
            f"under these rules a match could last {games} games, and at most {MAX_GAMES}"
            " are allowed: raise a damage or lower a heal",
        )
    return rules


@dataclass(frozen=True)
class Record:
    """Games won, lost and drawn by the human."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    def to_dict(self) -> dict[str, int]:
        """As JSON-compatible data."""
        return {"wins": self.wins, "losses": self.losses, "draws": self.draws}


@dataclass(frozen=True)
class AiMove:
    """One AI move and why it was chosen: the roll against the difficulty, or the strategy;
    the sorted cells it picked among; and the dice stream's numbers that decided both."""

    cell: Cell
    decision: str
    roll: int | None = None
    difficulty: int | None = None
    think_us: int = 0
    roll_n: int | None = None
    candidates: tuple[Cell, ...] = ()
    pick_n: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """As JSON-compatible data (written out: it runs twice on every AI move)."""
        return {
            "cell": self.cell,
            "decision": self.decision,
            "roll": self.roll,
            "difficulty": self.difficulty,
            "think_us": self.think_us,
            "roll_n": self.roll_n,
            "candidates": list(self.candidates),
            "pick_n": self.pick_n,
        }


@dataclass(frozen=True)
class Game:
    """One game of a match: who plays X, its dice and the moves so far.

    ``setup`` is a position the game began from (a practice game), played before it and
    not part of its ``history``; ``board`` includes it. ``first_by`` says what decided
    ``first``: only "dice" draws number 0 of the stream; otherwise it is left unused.
    """

    first: Side
    dice: Dice
    history: tuple[tuple[Side, Cell], ...] = ()
    ai_moves: tuple[AiMove, ...] = ()
    board: Board = field(default_factory=Board)
    setup: tuple[Cell, ...] = ()
    first_by: FirstBy = "dice"
    mistake: Cell | None = None
    """In a practice game from a reviewed game: the move the player made at the position
    after ``setup``, the mistake being practised."""
    hinted: tuple[int, ...] = ()
    """The plies (indices into ``history``) at which the player was shown hints before
    moving, in an HP match (``hint_shown``): such moves say nothing about their skill."""

    def mark_of(self, side: Side) -> Mark:
        """The mark ``side`` plays in this game: the first player is X."""
        return "X" if side == self.first else "O"

    @property
    def turn(self) -> Side | None:
        """Whose move it is, or None once the game is over."""
        if self.board.is_over():
            return None
        return self.first if self.board.to_move == "X" else _opponent(self.first)

    @property
    def status(self) -> Status:
        """Playing, or who won, or a draw."""
        outcome = self.board.outcome()
        if outcome is None:
            return "playing"
        if outcome.winner is None:
            return "draw"
        return "human_won" if outcome.winner == self.mark_of("human") else "ai_won"

    def play(self, side: Side, cell: object, ai_move: AiMove | None = None) -> Game:
        """The game after ``side`` plays ``cell``."""
        board = self.board.apply_move(cell)
        played = (*self.history, (side, check_cell(cell)))
        if ai_move is None:
            return Game(
                self.first,
                self.dice,
                played,
                self.ai_moves,
                board,
                self.setup,
                self.first_by,
                self.mistake,
                self.hinted,
            )
        # The dice move on past the numbers this move drew.
        used = self.dice.used if ai_move.pick_n is None else ai_move.pick_n + 1
        dice = self.dice if used == self.dice.used else self.dice.with_used(used)
        moves = (*self.ai_moves, ai_move)
        return Game(
            self.first,
            dice,
            played,
            moves,
            board,
            self.setup,
            self.first_by,
            self.mistake,
            self.hinted,
        )


def start_game(
    server_seed: str,
    client_seed: str | None,
    number: int,
    *,
    first: Side | None = None,
    first_by: FirstBy = "choice",
    setup: tuple[Cell, ...] = (),
    player_seeded: bool = True,
) -> Game:
    """Game ``number`` of a match on ``server_seed``; the dice's number 0 draws who starts
    unless ``first`` is given (chosen, or set by the position), when number 0 is left
    unused: the server never draws seeds again to meet a choice.

    Without a ``client_seed`` the game is played on the server's own (``server``); then,
    or when ``player_seeded`` is False (the seed was not committed to before the client
    seed came), its dice say that the player did not seed it.
    """
    seeded = client_seed is not None and player_seeded
    dice = Dice(
        server_seed,
        SERVER_CLIENT_SEED if client_seed is None else check_client_seed(client_seed),
        number,
        player_seeded=seeded,
    )
    board = setup_board(setup)
    if first is not None:
        return Game(first, dice.with_used(1), board=board, setup=setup, first_by=first_by)
    starts, _, dice = dice.pick(("human", "ai"))
    return Game(first=cast(Side, starts), dice=dice, board=board, setup=setup)


def setup_board(setup: tuple[Cell, ...]) -> Board:
    """The board after the ``setup`` moves, from the empty board."""
    board = Board()
    for cell in setup:
        board = board.apply_move(cell)
    return board


def _opponent(side: Side) -> Side:
    return "ai" if side == "human" else "human"


@dataclass(frozen=True)
class Match:
    """The whole state of one player's match; every transition returns a new value."""

    mode: Mode
    rules: Rules
    human_hp: int
    ai_hp: int
    game: Game
    game_number: int = 1
    record: Record = Record()
    last_hp_change: tuple[int, int] | None = None
    version: int = 1
    locked: int | None = None
    next_seed: str | None = None
    """The secret server seed of the game that follows this one (the next game, a new
    match's first, or practice): committed to while this game is played, so before any
    client seed of that game exists. None only in a match loaded from an older release,
    until the server gives it one."""
    promise: Promise | None = None
    """What a match started from a target promised (webapp/game/promise.py): kept from
    its first game to its last; None in any other match."""

    @property
    def adaptive(self) -> bool:
        """True in the HP mode."""
        return self.mode == "adaptive"

    @property
    def difficulty(self) -> int | None:
        """Chance in percent that the AI plays perfectly (adaptive mode only): the locked
        difficulty, else the AI's HP's."""
        if not self.adaptive:
            return None
        return difficulty(self.ai_hp) if self.locked is None else self.locked

    @property
    def winner(self) -> Side | None:
        """Who won the match, once one side's HP has run out."""
        if not self.adaptive:
            return None
        if self.human_hp <= 0:
            return "ai"
        return "human" if self.ai_hp <= 0 else None

    @property
    def over(self) -> bool:
        """True once the match has a winner; only a new match can follow."""
        return self.winner is not None

    @property
    def games_finished(self) -> int:
        """Games of this match that have ended."""
        return self.game_number - (0 if self.game.turn is None else 1)


def difficulty(ai_hp: int) -> int:
    """``100 - AI HP``, clamped to 0..100."""
    return max(0, min(100, 100 - ai_hp))


def hp_after_game(rules: Rules, human_hp: int, ai_hp: int, status: Status) -> tuple[int, int]:
    """Both sides' HP after a game ends with ``status``; healing stops at max HP."""
    if status == "human_won":
        human_hp = min(rules.max_hp, human_hp + rules.human_win_human_heal)
        ai_hp -= rules.human_win_ai_damage
    elif status == "ai_won":
        human_hp -= rules.ai_win_human_damage
    elif status == "draw":
        human_hp -= rules.draw_human_damage
        ai_hp -= rules.draw_ai_damage
    return human_hp, ai_hp


FIRST_CHOICES = ("toss", "human", "ai")
"""Who starts a new match's first game: a coin toss, or the side the player chose."""


def check_start(mode: str, first: object) -> Mode:
    """``mode`` as a mode, or refused (``bad_setting``) with a first player that no new
    match starts with."""
    if mode not in MODES:
        raise MatchError("bad_setting", f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if first not in FIRST_CHOICES:
        choices = ", ".join(FIRST_CHOICES)
        raise MatchError("bad_setting", f"first must be {choices}, got {first!r}", field="first")
    if mode == "adaptive" and first != "toss":
        raise MatchError("bad_setting", "an HP match tosses a coin for who starts", field="first")
    return mode


def new_match(
    rng: random.Random,
    *,
    mode: str = "adaptive",
    rules: Rules | None = None,
    client_seed: str | None = None,
    version: int = 0,
    first: object = "toss",
    server_seed: str | None = None,
    promise: Promise | None = None,
) -> Match:
    """A fresh match; ``version`` is the one it replaces, so versions keep growing.

    Its first game is played on ``server_seed``, the seed the match it replaces had
    committed to, with the player's ``client_seed``; without one ``rng`` draws it, and
    the game is not player-seeded. ``rng`` also draws the seed after it. ``first``
    chooses who starts its first game in a fixed mode; an HP match tosses a coin.
    ``promise`` is what an HP match started from a target promises.
    """
    chosen_mode = check_start(mode, first)
    if promise is not None and mode != "adaptive":
        raise MatchError("bad_setting", "only an HP match has a chance of winning to promise")
    chosen = rules or Rules()
    starts = None if first == "toss" else cast(Side, first)
    game = start_game(
        server_seed or new_server_seed(rng),
        client_seed,
        1,
        first=starts,
        player_seeded=server_seed is not None,
    )
    return Match(
        mode=chosen_mode,
        rules=chosen,
        human_hp=chosen.start_human_hp,
        ai_hp=chosen.start_ai_hp,
        game=game,
        version=version + 1,
        next_seed=new_server_seed(rng),
        promise=promise,
    )


def _bump(match: Match, **changes: Any) -> Match:
    return dataclasses.replace(match, version=match.version + 1, **changes)


def _check_playing(match: Match, side: Side) -> None:
    if match.over:
        raise MatchError("match_over", "the match is over: start a new match")
    turn = match.game.turn
    if turn is None:
        raise MatchError("game_over", "this game is over: start the next game")
    if turn != side:
        raise MatchError("not_your_turn", f"it is not the {side}'s turn: wait for the {turn}")


def human_move(match: Match, cell: object) -> Match:
    """The match after the human plays ``cell``, scored if that ends the game."""
    check_cell(cell)
    _check_playing(match, "human")
    return _after_move(match, match.game.play("human", cell))


def _no_clock() -> int:
    return 0


def choose_ai_move(match: Match, *, clock: Clock = _no_clock) -> AiMove:
    """The AI's next move with its decision record, drawn from the game's dice, without
    applying it.

    ``clock`` times the choice for the record's ``think_us``; without one it is 0.
    """
    _check_playing(match, "ai")
    board, dice = match.game.board, match.game.dice
    started = clock()
    if match.adaptive:
        level = cast(int, match.difficulty)
        roll, roll_n, dice = dice.draw(100)
        decision = "perfect" if roll < level else "random"
        extra: dict[str, int] = {"roll": roll, "difficulty": level, "roll_n": roll_n}
    else:
        decision, extra = FIXED_STRATEGIES[match.mode], {}
    options = strategies.candidates(decision, board, depth=match.rules.lookahead_depth)
    cell, pick_n, _ = dice.pick(options)
    think_us = (clock() - started) // 1000
    return AiMove(
        cell=cell,
        decision=decision,
        think_us=think_us,
        candidates=options,
        pick_n=pick_n,
        **extra,
    )


def apply_ai_move(match: Match, move: AiMove) -> Match:
    """The match after the AI plays ``move``, scored if that ends the game."""
    _check_playing(match, "ai")
    return _after_move(match, match.game.play("ai", move.cell, move))


def ai_move(match: Match, *, clock: Clock = _no_clock) -> Match:
    """Choose and play the AI's move."""
    return apply_ai_move(match, choose_ai_move(match, clock=clock))


def lock_difficulty(match: Match) -> Match:
    """The match with the AI kept at its current difficulty until the match ends."""
    if not match.adaptive:
        raise MatchError("bad_setting", "only an adaptive match has a difficulty to lock")
    if match.over:
        raise MatchError("match_over", "the match is over: start a new match")
    if match.locked is not None:
        return match
    return _bump(match, locked=match.difficulty)


def hint_shown(match: Match) -> Match:
    """The match with the player's coming move marked as made with hints shown, when it
    is their move in an HP match (a fixed mode keeps no such marks: it has take-backs);
    otherwise, or when marked already, the match itself."""
    game = match.game
    ply = len(game.history)
    if not match.adaptive or match.over or game.turn != "human" or ply in game.hinted:
        return match
    return _bump(match, game=dataclasses.replace(game, hinted=(*game.hinted, ply)))


def saw_position(match: Match, version: int) -> bool:
    """Whether a state of version ``version`` showed the position ``match`` is at now,
    for a move made on it: the current version, or the one before when the change since
    was only the hints' mark (which is not shown), or a change after it at that ply."""
    if version == match.version:
        return True
    return version == match.version - 1 and len(match.game.history) in match.game.hinted


def take_back(match: Match) -> Match:
    """Undo the human's last move and the AI's reply to it, in a game still under way in
    a fixed mode (never in an HP match, where it would void the stakes). The dice go back
    to where they were, so the AI answers the same way again. A finished game stays
    finished: it has been counted and kept, once."""
    if match.adaptive:
        raise MatchError("not_allowed", "an HP match has no take-back: it would void the stakes")
    game = match.game
    if game.turn is None:
        raise MatchError("not_allowed", "this game is over: a finished game cannot be taken back")
    sides = [side for side, _ in game.history]
    if "human" not in sides:
        raise MatchError("not_allowed", "there is no move of yours to take back")
    cut = len(sides) - 1 - sides[::-1].index("human")
    kept_ai = sides[:cut].count("ai")
    removed = game.ai_moves[kept_ai:]
    used = removed[0].pick_n if removed and removed[0].pick_n is not None else game.dice.used
    board = setup_board(game.setup)
    for _, cell in game.history[:cut]:
        board = board.apply_move(cell)
    earlier = dataclasses.replace(
        game,
        history=game.history[:cut],
        ai_moves=game.ai_moves[:kept_ai],
        hinted=tuple(ply for ply in game.hinted if ply <= cut),
        board=board,
        dice=game.dice.with_used(used),
    )
    return _bump(match, game=earlier)


def practice_match(
    rng: random.Random,
    setup: tuple[Cell, ...],
    *,
    mistake: Cell | None = None,
    client_seed: str | None = None,
    server_seed: str | None = None,
) -> Match:
    """A practice game from the position after ``setup``, the human to move, against the
    AI's perfect play: a fixed mode, so no HP is at stake. Its seeds are as
    ``new_match``'s; the position, not the dice, decides who played X. ``mistake`` is the
    move the player made there in the game reviewed (``Game.mistake``)."""
    board = setup_board(setup)
    if board.is_over():
        raise MatchError("bad_setting", "that position is already over: nothing to practise")
    check_mistake(board, mistake)
    human_plays_x = board.to_move == "X"
    first: Side = "human" if human_plays_x else "ai"
    game = start_game(
        server_seed or new_server_seed(rng),
        client_seed,
        1,
        first=first,
        first_by="position",
        setup=setup,
        player_seeded=server_seed is not None,
    )
    game = dataclasses.replace(game, mistake=mistake)
    rules = Rules()
    return Match(
        "impossible",
        rules,
        rules.start_human_hp,
        rules.start_ai_hp,
        game,
        version=1,
        next_seed=new_server_seed(rng),
    )


def check_mistake(board: Board, mistake: object) -> None:
    """Refuse a practised mistake that is not a move the player could make on ``board``."""
    if mistake is None:
        return
    legal = isinstance(mistake, int) and not isinstance(mistake, bool)
    if not legal or mistake not in board.legal_moves():
        raise MatchError("bad_setting", f"the mistake must be an empty cell, got {mistake!r}")


def _after_move(match: Match, game: Game) -> Match:
    status = game.status
    if status == "playing":
        return _bump(match, game=game)
    return _bump(score_game(match, status), game=game)


def score_game(match: Match, status: Status) -> Match:
    """The match with a finished game counted: record, and HP in adaptive mode."""
    record = Record(
        wins=match.record.wins + (status == "human_won"),
        losses=match.record.losses + (status == "ai_won"),
        draws=match.record.draws + (status == "draw"),
    )
    if not match.adaptive:
        return dataclasses.replace(match, record=record)
    human_hp, ai_hp = hp_after_game(match.rules, match.human_hp, match.ai_hp, status)
    change = (human_hp - match.human_hp, ai_hp - match.ai_hp)
    return dataclasses.replace(
        match, record=record, human_hp=human_hp, ai_hp=ai_hp, last_hp_change=change
    )


def next_game(match: Match, rng: random.Random, *, client_seed: str | None = None) -> Match:
    """Start the next game once the current one is over, on the server seed committed to
    during it, and ``client_seed``; its dice draw who starts, and ``rng`` the seed after.

    Without a ``client_seed`` it keeps the last game's, which the server knew before it
    committed: that game is not player-seeded, and neither is one whose client seed is
    the last game's again.
    """
    if match.over:
        raise MatchError("match_over", "the match is over: start a new match")
    if match.game.turn is not None:
        raise MatchError("game_over", "the current game is not over yet")
    number = match.game_number + 1
    previous = match.game.dice.client_seed
    seed = previous if client_seed is None else client_seed
    game = start_game(
        match.next_seed or new_server_seed(rng),
        seed,
        number,
        player_seeded=match.next_seed is not None and seed != previous,
    )
    return _bump(match, game=game, game_number=number, next_seed=new_server_seed(rng))


def with_next_seed(match: Match, rng: random.Random) -> Match:
    """The match with a new secret seed for the game after this one, from ``rng``."""
    return _bump(match, next_seed=new_server_seed(rng))


def reseeded(match: Match, rng: random.Random) -> Match:
    """The match with every seed not yet revealed replaced by a fresh one from ``rng``:
    the seed of a game under way (whose dice can then no longer be verified), and the
    next game's. For matches brought back from a backup, whose seeds may since have been
    revealed."""
    game = match.game
    if game.turn is not None:
        dice = dataclasses.replace(game.dice, server_seed=new_server_seed(rng), committed=False)
        game = dataclasses.replace(game, dice=dice)
    return _bump(match, game=game, next_seed=new_server_seed(rng))
