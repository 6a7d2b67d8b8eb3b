"""A player's finished games as stored history, and the lifetime figures kept beside them.

When a game ends, its entry is made once from the match at that moment: the game's
downloadable record (moves, the AI's decisions, the dice; webapp/game/verification.py),
the HP before and after, and whether it ended the match. The lifetime figures are
counters that each entry adds to (``increments``), so they outlive the entries a cap
drops; the longest run of games without a loss is kept as the current run and its best.

A game played with a friend in a room is an entry of its own kind (``"kind": "friend"``):
the moves, whose each was, and the result, for each of its two players. It is counted in
figures of its own (``friend:<result>``), never in those against the AI, and like every
entry it falls under the player's cap. A game cut short, because a player left it under
way, is kept too, with the moves played, as a forfeit (``"forfeit"``: who left): a win
for the one who stayed, a loss for the one who left. Entries stored before kinds existed (0.4.0) are
all games against the AI.

Every entry names the variant played (``"variant"``, variant.py's name, ``classic`` too);
its review, its winning line and the practice from its first mistake are that variant's.
Entries stored before variants came (format 4 and earlier) are all classic games. The
record of a game against the AI stays as signed: its rules name a variant only off
classic (``Rules.to_dict``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from .board import Board, Mark
from .match import Match, difficulty
from .review import MoveReview, review
from .review import summary as review_summary
from .rules import MODES
from .variant import CLASSIC, Variant, variant_named
from .verification import game_record

SCHEMA = 5
"""1: release 0.4 on; 2: an HP game's record marks each of the player's moves "hinted"
(true or false), the moves made with hints shown; 3: the record of a game against the AI
says what its match promised (``"promise"``, None unless started from a target); 4: a
game with a friend says who forfeited it by leaving (``"forfeit"``, None when no one
did); 5: every entry names its variant (``"variant"``). ``upgrade_entry`` reads every
earlier format."""
RESULTS = ("win", "draw", "loss")
FRIEND = "friend"  # the kind, and the record's mode, of a game played with a friend
Entry = dict[str, Any]
Kind = Literal["ai", "friend"]


def kind_of(entry: Entry) -> Kind:
    """Whether the game was against the AI or with a friend (entries of 0.4.0: the AI)."""
    return "friend" if entry.get("kind") == FRIEND else "ai"


def variant_of(entry: Entry) -> Variant:
    """The variant the game was played on (an entry before format 5: classic)."""
    return variant_named(entry.get("variant", CLASSIC.name))


def friend_game(
    cells: tuple[int, ...],
    *,
    mine: Mark,
    result: str,
    resigned: str | None,
    game: int,
    game_id: str,
    ended: float,
    forfeit: str | None = None,
    variant: Variant = CLASSIC,
) -> Entry:
    """The entry, for one of its players, of a game with a friend on ``variant``:
    ``mine`` is the mark they played (the first player's X, the second's O, in Notakto
    too), ``result`` theirs, ``resigned`` who resigned and ``forfeit`` who left it under
    way ("human", "friend", None)."""
    if result not in RESULTS:
        raise ValueError(f"result must be one of {', '.join(RESULTS)}")

    def by(ply: int) -> str:
        return "human" if ("X" if ply % 2 == 0 else "O") == mine else FRIEND

    return {
        "format": SCHEMA,
        "kind": FRIEND,
        "variant": variant.name,
        "id": game_id,
        "ended": ended,
        "result": result,
        "hp_before": None,
        "hp_after": None,
        "match_over": False,
        "match_winner": None,
        "resigned": resigned,
        "forfeit": forfeit,
        "record": {
            "mode": FRIEND,
            "game": game,
            "first": "human" if mine == "X" else FRIEND,
            "locked": None,
            "moves": [{"cell": cell, "by": by(ply)} for ply, cell in enumerate(cells)],
        },
    }


def upgrade_entry(entry: Entry) -> Entry:
    """The entry in the current format. A format 1 game against the AI did not record
    hints, so each of the player's moves says ``"hinted": None``: not known; a game
    stored before format 3 was in no targeted match, so its record promises nothing; a
    game with a friend stored before format 4 was played out, forfeited by no one; a
    game stored before format 5 was classic."""
    stored = entry.get("format", 1)
    if stored >= SCHEMA:
        return entry
    entry = {**entry, "variant": CLASSIC.name}
    if kind_of(entry) == "friend":
        return {**entry, "format": SCHEMA, "forfeit": entry.get("forfeit")}
    record = entry["record"]
    if stored < 2:
        moves = [
            {**move, "hinted": None} if move["by"] == "human" else move for move in record["moves"]
        ]
        record = {**record, "moves": moves}
    if stored < 3:
        record = {**record, "promise": None}
    return {**entry, "format": SCHEMA, "record": record}


def result_of(status: str) -> str:
    """The player's result from a game's status."""
    return {"human_won": "win", "ai_won": "loss", "draw": "draw"}[status]


def finished_game(match: Match, *, game_id: str, ended: float) -> Entry:
    """The history entry of the game that has just ended in ``match``."""
    if match.game.turn is not None:
        raise ValueError("the game is not over")
    change = match.last_hp_change if match.adaptive else None
    after = {"human": match.human_hp, "ai": match.ai_hp} if match.adaptive else None
    before = (
        {"human": match.human_hp - change[0], "ai": match.ai_hp - change[1]}
        if change and after
        else None
    )
    return {
        "format": SCHEMA,
        "variant": match.rules.variant.name,
        "id": game_id,
        "ended": ended,
        "result": result_of(match.game.status),
        "hp_before": before,
        "hp_after": after,
        "match_over": match.over,
        "match_winner": match.winner,
        "record": game_record(match),
    }


def game_key(match: Match) -> str:
    """What the history stores the current game under: the game itself, whichever change
    ended it, so one game is one entry and counts once (its server seed is its own)."""
    return f"game:{match.game.dice.commitment}"


def under_way(entries: list[Entry], match: Match) -> str | None:
    """The id of the newest game of ``entries`` (newest first) if it belongs to ``match``,
    the player's match now, and that match is not over: its match is under way. Any
    other unfinished match was abandoned for a newer one."""
    newest = next((entry for entry in entries if kind_of(entry) == "ai"), None)
    dice = newest["record"].get("dice") if newest and not match.over else None
    if newest is None or not dice:
        return None
    now = match.game.dice.commitment
    # The game shown now is that game, finished, or the next one of the same match,
    # played on the seed committed to during it (a new match's first game is game 1).
    same = dice.get("commitment") == now
    after = dice.get("next_commitment") == now and match.game_number == newest["record"]["game"] + 1
    return str(newest["id"]) if same or after else None


def summary(entry: Entry) -> dict[str, Any]:
    """What the History list shows of one game: when, mode, result, length, and what a
    targeted match promised."""
    record = entry["record"]
    if kind_of(entry) == "friend":
        return {
            "id": entry["id"],
            "kind": FRIEND,
            "variant": variant_of(entry).name,
            "ended": entry["ended"],
            "mode": FRIEND,
            "result": entry["result"],
            "moves": len(record["moves"]),
            "first": record["first"],
            "match_over": False,
            "game": record["game"],
            "resigned": entry.get("resigned"),
            "forfeit": entry.get("forfeit"),
        }
    return {
        "id": entry["id"],
        "kind": "ai",
        "variant": variant_of(entry).name,
        "ended": entry["ended"],
        "mode": record["mode"],
        "result": entry["result"],
        "moves": len(record["moves"]),
        "first": record["first"],
        "match_over": entry["match_over"],
        "game": record["game"],
        "hp_before": entry["hp_before"],
        "hp_after": entry["hp_after"],
        "max_hp": record["rules"]["max_hp"],
        "difficulty_before": _difficulty(entry["hp_before"], record["locked"]),
        "difficulty_after": _difficulty(entry["hp_after"], record["locked"]),
        "promise": record.get("promise"),
    }


def _difficulty(hp: dict[str, int] | None, locked: int | None) -> int | None:
    if hp is None:
        return None
    return difficulty(hp["ai"]) if locked is None else locked


def increments(entry: Entry) -> dict[str, int]:
    """The lifetime counters this game adds one to (a friend's game: ``friend:<result>``)."""
    counts = {f"{entry['record']['mode']}:{entry['result']}": 1}
    if kind_of(entry) == "friend":
        return counts
    if entry["match_over"]:
        counts["matches_won" if entry["match_winner"] == "human" else "matches_lost"] = 1
    return counts


@dataclass(frozen=True)
class Totals:
    """Lifetime figures: each mode's wins, draws and losses, matches won and lost, and
    the longest run of games without a loss (and the run now under way)."""

    by_mode: dict[str, dict[str, int]] = field(default_factory=dict)
    matches_won: int = 0
    matches_lost: int = 0
    unbeaten: int = 0
    longest_unbeaten: int = 0
    with_friends: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the page shows."""
        return {
            "by_mode": self.by_mode,
            "with_friends": self.with_friends,
            "matches_won": self.matches_won,
            "matches_lost": self.matches_lost,
            "unbeaten": self.unbeaten,
            "longest_unbeaten": self.longest_unbeaten,
        }


def totals_from(counters: dict[str, int]) -> Totals:
    """The figures from a store's counters (as ``increments`` and the run keep them)."""
    by_mode: dict[str, dict[str, int]] = {
        mode: {result: counters.get(f"{mode}:{result}", 0) for result in RESULTS}
        for mode in MODES
        if any(counters.get(f"{mode}:{result}") for result in RESULTS)
    }
    return Totals(
        by_mode=by_mode,
        matches_won=counters.get("matches_won", 0),
        matches_lost=counters.get("matches_lost", 0),
        unbeaten=counters.get("unbeaten", 0),
        longest_unbeaten=counters.get("longest_unbeaten", 0),
        with_friends={result: counters.get(f"{FRIEND}:{result}", 0) for result in RESULTS},
    )


def counted(counters: dict[str, int], entry: Entry) -> dict[str, int]:
    """The counters with ``entry`` added: its increments, and the run without a loss."""
    found = dict(counters)
    for name, n in increments(entry).items():
        found[name] = found.get(name, 0) + n
    if kind_of(entry) == "friend":
        return found  # the run without a loss is against the AI
    run = 0 if entry["result"] == "loss" else found.get("unbeaten", 0) + 1
    found["unbeaten"] = run
    found["longest_unbeaten"] = max(run, found.get("longest_unbeaten", 0))
    return found


def games_counted(counters: dict[str, int]) -> int:
    """How many games the counters have counted: never fewer than are stored, since a
    game is counted as it is stored and its counters are deleted only with it."""
    return sum(n for name, n in counters.items() if ":" in name)  # "<mode>:<result>"


def reviewed(entry: Entry) -> dict[str, Any]:
    """The game's review by perfect play, from the player's side: each move (who made
    it, and for the AI its decision), its verdict, the AI's gifts, and one summary line;
    the variant's board (its shape, and in Notakto the boards dead after each move).
    """
    record = entry["record"]
    moves = record["moves"]
    variant = variant_of(entry)
    judged = review((move["cell"] for move in moves), variant)
    if kind_of(entry) == "friend":  # a gift is the AI's random move: a friend gives none
        judged = tuple(dataclasses.replace(judgement, gift=None) for judgement in judged)
    mark: Mark = "X" if record["first"] == "human" else "O"
    found = []
    board = Board.empty(variant)
    for move, judgement in zip(moves, judged, strict=True):
        line = {**judgement.to_dict(), "by": move["by"], "decision": move.get("decision")}
        if move["by"] != "ai":
            line.pop("gift", None)  # a gift is the AI's to give
        board = board.apply_move(judgement.cell)
        if variant.notakto:
            live = board.position.live_boards()
            line["dead"] = [b for b in range(variant.boards) if b not in live]
        found.append(line)
    return {
        "moves": found,
        "summary": review_summary(judged, mark),
        "mark": mark,
        "winning_line": final_line(judged, variant),
        "can_practise": kind_of(entry) != "friend" and first_mistake(entry) is not None,
        "variant": {
            "name": variant.name,
            "rows": variant.rows,
            "columns": variant.columns,
            "boards": variant.boards,
            "notakto": variant.notakto,
        },
    }


def final_line(judged: tuple[MoveReview, ...], variant: Variant = CLASSIC) -> list[int] | None:
    """The cells in a row that ended the game (``k`` of them), or None for a draw, a game
    cut short or a Notakto game (its end kills a board: no one owns a line)."""
    board = Board.empty(variant)
    for judgement in judged:
        board = board.apply_move(judgement.cell)
    outcome = board.outcome()
    line = outcome.line if outcome else None
    return list(line) if line else None


def first_mistake(entry: Entry) -> tuple[tuple[int, ...], int] | None:
    """The moves before the player's first mistake or blunder in the game, and that
    mistake, or None if they made none: the position to practise from (the player to
    move), and the move they made there."""
    record = entry["record"]
    cells = [move["cell"] for move in record["moves"]]
    judged = review(cells, variant_of(entry))
    for index, (move, judged_move) in enumerate(zip(record["moves"], judged, strict=True)):
        if move["by"] == "human" and judged_move.gave_away:
            return tuple(record.get("setup", [])) + tuple(cells[:index]), cells[index]
    return None
