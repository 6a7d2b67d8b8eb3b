"""One game of a match: who plays X, its dice, its moves, and the AI's choice of move.

Every random choice of a game (who starts, each roll, each pick among equal moves) is
drawn from the game's committed dice stream (``fairness.Dice``). In an HP match the AI
rolls 0..99 on each of its turns: under the difficulty it plays the perfect move,
otherwise a random one; a fixed mode plays its strategy, or on a variant other than
classic rolls against its level's fixed chance (rules.py's ``level_difficulty``).

On every variant the first player is X and the second O; in Notakto, where both place
X on the boards, these name the roles (``Board.to_move``), not the marks drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from . import strategies
from .board import Board, Cell, Mark
from .fairness import SERVER_CLIENT_SEED, Dice, check_client_seed
from .rules import FIXED_STRATEGIES, MatchError, Mode
from .variant import CLASSIC, Variant

Side = Literal["human", "ai"]
Status = Literal["playing", "human_won", "ai_won", "draw"]
FirstBy = Literal["dice", "choice", "position"]
FIRST_BY: tuple[FirstBy, ...] = get_args(FirstBy)
"""What decided who starts: the dice's number 0, the player's choice, or the position a
practice game begins from (where the side to move is the player)."""
Clock = Callable[[], int]
"""Nanoseconds from an arbitrary start, such as ``time.perf_counter_ns``."""


@dataclass(frozen=True)
class AiMove:
    """One AI move and why it was chosen.

    The roll against the difficulty, or the strategy; the sorted cells it picked among;
    and the dice stream's numbers that decided both.
    """

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

    @property
    def variant(self) -> Variant:
        """The rule set the game is played under."""
        return self.board.variant

    @property
    def practice(self) -> bool:
        """Whether this is a practice game: only practice begins from a position."""
        return self.first_by == "position"

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
        played = (*self.history, (side, self.variant.check_cell(cell)))
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
    variant: Variant = CLASSIC,
) -> Game:
    """Game ``number`` of a match on ``server_seed`` and ``variant``, its dice and who
    starts it.

    The dice's number 0 draws who starts unless ``first`` is given (chosen, or set by
    the position), when number 0 is left unused: the server never draws seeds again to
    meet a choice.

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
    board = setup_board(setup, variant)
    if first is not None:
        return Game(first, dice.with_used(1), board=board, setup=setup, first_by=first_by)
    starts, _, dice = dice.pick(("human", "ai"))
    return Game(first=cast(Side, starts), dice=dice, board=board, setup=setup)


def setup_board(setup: tuple[Cell, ...], variant: Variant = CLASSIC) -> Board:
    """The board after the ``setup`` moves, from the empty board of ``variant``."""
    board = Board.empty(variant)
    for cell in setup:
        board = board.apply_move(cell)
    return board


def _opponent(side: Side) -> Side:
    return "ai" if side == "human" else "human"


def check_mistake(board: Board, mistake: object) -> None:
    """Refuse a practised mistake that is not a move the player could make on ``board``."""
    if mistake is None:
        return
    legal = isinstance(mistake, int) and not isinstance(mistake, bool)
    if not legal or mistake not in board.legal_moves():
        raise MatchError("bad_setting", f"the mistake must be an empty cell, got {mistake!r}")


def no_clock() -> int:
    """A clock that always reads 0: the AI's moves then record no thinking time."""
    return 0


def ai_choice(
    game: Game, mode: Mode, difficulty: int | None, depth: int, *, clock: Clock = no_clock
) -> AiMove:
    """The AI's next move in ``game`` with its decision record, drawn from its dice.

    With a ``difficulty`` (an HP match, or a fixed level off classic) it rolls 0..99:
    under the difficulty it plays the perfect move, otherwise a random one; without one it
    plays ``mode``'s strategy. The
    lookahead strategy looks ``depth`` plies ahead. ``clock`` times the choice for the
    record's ``think_us``; without one it is 0.
    """
    board, dice = game.board, game.dice
    started = clock()
    if difficulty is not None:
        roll, roll_n, dice = dice.draw(100)
        decision = "perfect" if roll < difficulty else "random"
        extra: dict[str, int] = {"roll": roll, "difficulty": difficulty, "roll_n": roll_n}
    else:
        decision, extra = FIXED_STRATEGIES[mode], {}
    options = strategies.candidates(decision, board, depth=depth)
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
