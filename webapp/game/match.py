"""The HP match: a series of games against the AI, and its transitions, as pure values.

In adaptive mode both sides have hit points; the AI's difficulty is ``100 - AI HP`` (or
the difficulty the player locked), so the more the AI loses, the better it plays
(game/game.py rolls against it). Each game's result changes the HP by the match's rules
(game/rules.py). Every transition returns a new match with a higher version; a
``random.Random`` passed in only draws each game's secret server seed.

A match is played on its rules' variant (classic unless said); a practice game is
classic only.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any, cast

from .board import Cell
from .fairness import new_server_seed
from .game import (
    AiMove,
    Clock,
    Game,
    Side,
    Status,
    ai_choice,
    check_mistake,
    no_clock,
    setup_board,
    start_game,
)
from .promise import Promise
from .rules import MODES, MatchError, Mode, Rules, level_difficulty
from .variant import CLASSIC, Variant


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
        """Chance in percent that the AI plays perfectly, in adaptive mode only.

        The locked difficulty, else the AI's HP's.
        """
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
    """``mode`` as a mode; refused (``bad_setting``) if it or ``first`` cannot start a match."""
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
        variant=chosen.variant,
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
    match.rules.variant.check_cell(cell)
    _check_playing(match, "human")
    return _after_move(match, match.game.play("human", cell))


def choose_ai_move(match: Match, *, clock: Clock = no_clock) -> AiMove:
    """The AI's next move with its decision record (``game.ai_choice``), without playing it."""
    _check_playing(match, "ai")
    chance = (
        match.difficulty if match.adaptive else level_difficulty(match.game.variant, match.mode)
    )
    return ai_choice(match.game, match.mode, chance, match.rules.lookahead_depth, clock=clock)


def apply_ai_move(match: Match, move: AiMove) -> Match:
    """The match after the AI plays ``move``, scored if that ends the game."""
    _check_playing(match, "ai")
    return _after_move(match, match.game.play("ai", move.cell, move))


def ai_move(match: Match, *, clock: Clock = no_clock) -> Match:
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
    """The match with the player's coming move marked as made with hints shown.

    Only when it is their move in an HP match (a fixed mode keeps no such marks: it has
    take-backs); otherwise, or when marked already, the match itself.
    """
    game = match.game
    ply = len(game.history)
    if not match.adaptive or match.over or game.turn != "human" or ply in game.hinted:
        return match
    return _bump(match, game=dataclasses.replace(game, hinted=(*game.hinted, ply)))


def saw_position(match: Match, version: int) -> bool:
    """Whether a state of version ``version`` showed the position ``match`` is at now.

    That is, for a move made on it: the current version, or the one before when the
    change since was only the hints' mark (which is not shown), or a change after it at
    that ply.
    """
    if version == match.version:
        return True
    return version == match.version - 1 and len(match.game.history) in match.game.hinted


def take_back(match: Match) -> Match:
    """Undo the human's last move and the AI's reply to it, in a fixed mode's game under way.

    Never in an HP match, where it would void the stakes. The dice go back to where they
    were, so the AI answers the same way again. A finished game stays finished: it has
    been counted and kept, once; but a practice game, neither counted nor kept, can be
    taken back even after a move that lost it at once.
    """
    if match.adaptive:
        raise MatchError("not_allowed", "an HP match has no take-back: it would void the stakes")
    game = match.game
    if game.turn is None and not game.practice:
        raise MatchError("not_allowed", "this game is over: a finished game cannot be taken back")
    sides = [side for side, _ in game.history]
    if "human" not in sides:
        raise MatchError("not_allowed", "there is no move of yours to take back")
    cut = len(sides) - 1 - sides[::-1].index("human")
    kept_ai = sides[:cut].count("ai")
    removed = game.ai_moves[kept_ai:]
    # The dice go back to the first number the removed AI move drew: its roll on a
    # variant's level, else its pick.
    drawn = [n for n in (removed[0].roll_n, removed[0].pick_n) if n is not None] if removed else []
    used = drawn[0] if drawn else game.dice.used
    board = setup_board(game.setup, game.variant)
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
    variant: Variant = CLASSIC,
) -> Match:
    """A practice game from the position after ``setup`` on ``variant`` against the AI's
    perfect play.

    The human is to move; a fixed mode, so no HP is at stake. Its seeds are as
    ``new_match``'s; the position, not the dice, decides who played X. ``mistake`` is the
    move the player made there in the game reviewed (``Game.mistake``)."""
    board = setup_board(setup, variant)
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
        variant=variant,
    )
    game = dataclasses.replace(game, mistake=mistake)
    rules = Rules(variant=variant)
    return Match(
        "impossible",
        rules,
        rules.start_human_hp,
        rules.start_ai_hp,
        game,
        version=1,
        next_seed=new_server_seed(rng),
    )


def practice_again(match: Match, rng: random.Random, *, client_seed: str | None = None) -> Match:
    """A finished practice game's position again, with its mistake, on the seed committed
    to during it: as starting that practice anew, and the match's next version."""
    game = match.game
    fresh = practice_match(
        rng,
        game.setup,
        mistake=game.mistake,
        client_seed=client_seed,
        server_seed=match.next_seed or None,
        variant=game.variant,
    )
    return dataclasses.replace(fresh, version=match.version + 1)


def _after_move(match: Match, game: Game) -> Match:
    status = game.status
    if status == "playing" or game.practice:  # practice keeps no record: nothing at stake
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
    """Start the next game once the current one is over, on the seed committed to during it.

    It is played with ``client_seed``; its dice draw who starts, and ``rng`` the seed
    after.

    Without a ``client_seed`` it keeps the last game's, which the server knew before it
    committed: that game is not player-seeded, and neither is one whose client seed is
    the last game's again.

    After a practice game, the next is the same position again (``practice_again``).
    """
    if match.over:
        raise MatchError("match_over", "the match is over: start a new match")
    if match.game.turn is not None:
        raise MatchError("game_over", "the current game is not over yet")
    if match.game.practice:
        return practice_again(match, rng, client_seed=client_seed)
    number = match.game_number + 1
    previous = match.game.dice.client_seed
    seed = previous if client_seed is None else client_seed
    game = start_game(
        match.next_seed or new_server_seed(rng),
        seed,
        number,
        player_seeded=match.next_seed is not None and seed != previous,
        variant=match.rules.variant,
    )
    return _bump(match, game=game, game_number=number, next_seed=new_server_seed(rng))


def with_next_seed(match: Match, rng: random.Random) -> Match:
    """The match with a new secret seed for the game after this one, from ``rng``."""
    return _bump(match, next_seed=new_server_seed(rng))


def reseeded(match: Match, rng: random.Random) -> Match:
    """The match with every seed not yet revealed replaced by a fresh one from ``rng``.

    They are the seed of a game under way (whose dice can then no longer be verified),
    and the next game's. For matches brought back from a backup, whose seeds may since
    have been revealed.
    """
    game = match.game
    if game.turn is not None:
        dice = dataclasses.replace(game.dice, server_seed=new_server_seed(rng), committed=False)
        game = dataclasses.replace(game, dice=dice)
    return _bump(match, game=game, next_seed=new_server_seed(rng))
