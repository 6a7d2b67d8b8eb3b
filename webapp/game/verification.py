"""A game's record as players download it, and its check against the dice, the rules and
the engine (docs/fairness.md).

The page checks the dice arithmetic alone; ``verify`` also replays every move and
recomputes each candidate set, so a record whose AI chose among the wrong moves fails
even when its dice add up.

A game of any variant is checked on its own board: its rules name the variant off
classic (``Rules.to_dict``), and a fixed level there rolls against its chance of a
perfect move (``rules.level_difficulty``) as an HP match does against its difficulty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from . import strategies
from .board import RuleError
from .fairness import FIRST_DRAW, Dice, commitment, number
from .game import FIRST_BY, Game, Side, setup_board
from .match import Match, difficulty
from .rules import FIXED_STRATEGIES, Rules, level_difficulty
from .variant import CLASSIC, Variant

KIND = "tictactoe-hp-game"
FORMAT = 5
# 1: release 0.4, whose records have no first_by, player_seeded or next_commitment;
# 2: without "hinted" on the player's moves; 3: without "promise" (a targeted match's);
# 4: without "practice" (a practice game was told by its first_by "position").
FORMATS = (1, 2, 3, 4, 5)
Data = dict[str, Any]


def game_record(match: Match) -> Data:
    """The current game of ``match`` as its downloadable record; the server seed is
    revealed once the game is over."""
    game = match.game
    over = game.turn is None
    ai_moves = iter(game.ai_moves)
    moves: list[Data] = []
    for ply, (side, cell) in enumerate(game.history):
        if side == "human":
            moves.append({"by": "human", "cell": cell, "hinted": ply in game.hinted})
            continue
        move = next(ai_moves).to_dict()
        del move["think_us"]
        moves.append({"by": "ai", **move})
    dice = game.dice
    return {
        "kind": KIND,
        "format": FORMAT,
        "mode": match.mode,
        "rules": match.rules.to_dict(),
        "locked": match.locked,
        "promise": match.promise.to_dict() if match.promise else None,
        "game": match.game_number,
        "ai_hp": _ai_hp_during(match),
        "first": game.first,
        "first_by": game.first_by,
        "practice": is_practice(game),
        "setup": list(game.setup),
        "moves": moves,
        "status": game.status,
        "dice": {
            "commitment": dice.commitment,
            "client_seed": dice.client_seed,
            "server_seed": dice.server_seed if over else None,
            "player_seeded": dice.player_seeded,
            "next_commitment": commitment(match.next_seed) if match.next_seed else None,
        }
        if dice.committed
        else None,
    }


def is_practice(game: Game) -> bool:
    """Whether ``game`` is a practice game: only practice begins from a position."""
    return game.practice


def _ai_hp_during(match: Match) -> int | None:
    """The AI's HP while the current game was played: scoring a game changes it."""
    if not match.adaptive:
        return None
    change = match.last_hp_change if match.game.turn is None else None
    return match.ai_hp - (change[1] if change else 0)


class Mismatch(ValueError):
    """The first thing in a game record that the dice, the rules or the engine contradict."""


@dataclass(frozen=True)
class Verified:
    """A record that checked out: its game's number, how many AI moves it holds,
    whether it is a practice game, with the position it was set up from, and the
    variant it was played on."""

    game: int
    ai_moves: int
    practice: bool = False
    setup: tuple[int, ...] = ()
    variant: Variant = CLASSIC


def verify(record: object) -> Verified:
    """Check a finished game's record; raise ``Mismatch`` naming the first problem."""
    try:
        return _verify(record)
    except Mismatch:
        raise
    except RuleError as err:
        raise Mismatch(err.message) from err
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise Mismatch(f"the record is not a game record: {err!r}") from err


def _verify(record: Any) -> Verified:
    if record.get("kind") != KIND or record.get("format") not in FORMATS:
        formats = " or ".join(map(str, FORMATS))
        raise Mismatch(f"not a game record of format {formats} (kind {KIND!r})")
    dice = record["dice"]
    if dice is None:
        raise Mismatch("this game began before verifiable dice: there is nothing to verify")
    seed, client, game = dice["server_seed"], dice["client_seed"], record["game"]
    if seed is None:
        raise Mismatch("the server seed is not revealed yet: the game is not over")
    if commitment(seed) != dice["commitment"]:
        raise Mismatch("the server seed does not match the commitment shown before the game")

    def draw(n: int, k: int) -> int:
        return number(seed, client, game, n) % k

    starts = _first(record, draw)
    rules = Rules.from_dict(record["rules"])
    setup = tuple(int(cell) for cell in record.get("setup", ()))
    practice = _practice(record, setup)
    board = setup_board(setup, rules.variant)
    start = Game(first=starts, dice=Dice(seed, client, game), board=board)
    played, count = _replay(record, rules, start, draw)
    if record["status"] != played.status:
        raise Mismatch(f"the game ended {played.status!r}, the record says {record['status']!r}")
    return Verified(game, count, practice, setup, rules.variant)


def _practice(record: Any, setup: tuple[int, ...]) -> bool:
    """Whether the record is a practice game's. Said since format 5, and then checked: a
    game of a match begins from the empty board, and a practice game's position, not the
    dice nor a choice, decides who starts. Before, a position or first_by tells it."""
    by_position = record.get("first_by") == "position"
    if "practice" not in record:
        return by_position or bool(setup)
    practice = record["practice"]
    if not isinstance(practice, bool):
        raise Mismatch(f"the record's practice {practice!r} is neither true nor false")
    if setup and not practice:
        raise Mismatch("the record is not a practice game's, yet it begins from a position")
    if practice != by_position:
        says = "is" if practice else "is not"
        raise Mismatch(f"the record {says} a practice game's, but its first_by says otherwise")
    return practice


def _first(record: Any, draw: Any) -> Side:
    """Who starts: number 0 of the dice, unless the record says the player chose it (or a
    practice position set it), when number 0 is not drawn at all."""
    first_by = record.get("first_by", "dice")  # format 1 drew it every time
    if first_by not in FIRST_BY:
        raise Mismatch(f"unknown first_by {first_by!r}")
    if record["first"] not in ("human", "ai"):
        raise Mismatch(f"unknown first player {record['first']!r}")
    if first_by != "dice":
        return cast(Side, record["first"])
    starts: Side = ("human", "ai")[draw(FIRST_DRAW, 2)]
    if record["first"] != starts:
        raise Mismatch(f"the dice say the {starts} starts, the record says the {record['first']}")
    return starts


def _replay(record: Any, rules: Rules, game: Game, draw: Any) -> tuple[Game, int]:
    """Play the record's moves, checking each AI move; the game at the end, AI moves seen."""
    variant = rules.variant
    adaptive = record["mode"] == "adaptive"
    fixed = None if adaptive else level_difficulty(variant, record["mode"])
    rolls = adaptive or fixed is not None  # a roll decides each move, against a level
    level = _level(record) if adaptive else fixed or 0
    next_n, count = FIRST_DRAW + 1, 0
    for index, move in enumerate(record["moves"], 1):
        board, mover = game.board, game.turn
        if mover is None:
            raise Mismatch(f"move {index} comes after the game was over")
        if move["by"] != mover:
            raise Mismatch(f"move {index} is the {move['by']}'s, but it was the {mover}'s turn")
        if move["by"] == "ai":
            count += 1
            where = f"AI move {count} at {variant.cell_name(move['cell'])}"
            if rolls:
                next_n = _check_roll(move, where, next_n, level, draw)
            elif move["decision"] != FIXED_STRATEGIES[record["mode"]]:
                raise Mismatch(f"{where}: {record['mode']} mode does not play {move['decision']!r}")
            expected = strategies.candidates(move["decision"], board, depth=rules.lookahead_depth)
            if tuple(move["candidates"]) != expected:
                raise Mismatch(
                    f"{where}: the candidates {move['candidates']} are not the"
                    f" {move['decision']} moves {list(expected)}"
                )
            if move["pick_n"] != next_n:
                raise Mismatch(f"{where}: its pick is stream number {move['pick_n']}, not {next_n}")
            picked = expected[draw(next_n, len(expected))]
            if move["cell"] != picked:
                raise Mismatch(f"{where}: the dice pick {variant.cell_name(picked)}")
            next_n += 1
        game = game.play(mover, move["cell"])
    return game, count


def _level(record: Any) -> int:
    locked = record["locked"]
    return difficulty(record["ai_hp"]) if locked is None else int(locked)


def _check_roll(move: Any, where: str, n: int, level: int, draw: Any) -> int:
    """Check an adaptive move's roll and decision; the next stream number."""
    if move["roll_n"] != n:
        raise Mismatch(f"{where}: its roll is stream number {move['roll_n']}, not {n}")
    roll = draw(n, 100)
    if move["roll"] != roll:
        raise Mismatch(f"{where}: the dice give roll {roll}, the record says {move['roll']}")
    if move["difficulty"] != level:
        raise Mismatch(f"{where}: the difficulty was {level}, the record says {move['difficulty']}")
    decision = "perfect" if roll < level else "random"
    if move["decision"] != decision:
        raise Mismatch(f"{where}: roll {roll} against {level} means a {decision} move")
    return n + 1
