"""Training as the Train page asks for it: the cards due, an answer to one, and puzzles.

Cards come from the player's History (every mistake and blunder of theirs, by the review)
when the page asks, and from each game as it ends (``with_cards``). When a card comes
back is the ``fsrs`` package's schedule: a new card is due at once; the answer given
while it is due is reviewed by the scheduler (``Good`` when the move is among the best
cells, ``Again`` when not) and sets its next time. A failed card comes back in the same
session until it is found (it stays due while its latest answer failed, and the page asks
again); those answers are logged but leave the schedule alone, so the card then comes
back when the schedule says (a day later at the least). The clock is an argument: the tests set it.

A puzzle is picked near the player's puzzle rating; their answer moves both ratings by
Glicko-2 (webapp/game/glicko.py): a solve at the first try is the player's win.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, cast

from fsrs import Card as Schedule
from fsrs import Rating as Grade
from fsrs import Scheduler

from webapp.game.board import Board, RuleError
from webapp.game.glicko import Rating
from webapp.game.glicko import solved as rated
from webapp.game.history import Entry
from webapp.game.training import Card, by_day, cards_of, drawn, puzzle_named, puzzles_on, streak
from webapp.game.variant import variant_named
from webapp.server.store.bounded import LastUsed
from webapp.server.store.history import HistoryStore
from webapp.server.store.training import TrainingStore

log = logging.getLogger("webapp.server.training")
DAY = 86400.0
CHART_DAYS = 14
READS_KEPT = 4096  # players whose History's last whole read is remembered
# No learning steps: every review sets a whole number of days (a failed card: one day);
# no fuzz, so that a card comes back on the day the schedule says.
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


class TrainingError(RuleError):
    """Bad input to training: nothing changed."""


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _day(seconds: float) -> int:
    return int(seconds // DAY)


def _cell(text: object, variant: str, board: str) -> int:
    """A cell of ``board`` (of ``variant``) that may be played, given as its index or its
    name (``b2``, ``d4``, ``2:b2``); a clear error otherwise."""
    shape = variant_named(variant)
    try:
        cell = shape.parse_cell(text[:8]) if isinstance(text, str) else shape.check_cell(text)
    except RuleError:
        second = shape.board_cells if shape.boards > 1 else 0  # b2, or 2:b2 on several
        example = shape.cell_name(second + shape.columns + 1)
        said = f"“{str(text)[:8]}” is not a cell: type one such as {example}"
        raise TrainingError("cell_out_of_range", said) from None
    if cell not in Board(board, shape).legal_moves():
        name = shape.cell_name(cell)
        if board.replace("/", "")[cell] == ".":  # Notakto: a board already dead
            raise TrainingError("dead_board", f"{name} is on a dead board: choose a live one")
        raise TrainingError("cell_taken", f"{name} is taken: choose an empty cell")
    return cell


def new_row(card: Card, now: float) -> dict[str, Any]:
    """A card as first stored: due now."""
    schedule = Schedule(card_id=zlib.crc32(card.key.encode()), due=_when(now))
    return {"card": card.to_dict(), "schedule": schedule.to_dict()}


class Training:
    """Cards, answers and puzzles for each player, on a store."""

    def __init__(
        self,
        store: TrainingStore,
        games: Callable[[str], list[Entry]] | None = None,
        counted: Callable[[str], int] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store, self.games, self.counted, self.clock = store, games, counted, clock
        # Each player's count of games stored when their History was last read whole: it
        # is read again only once another game was stored (``counted``, a cheap read).
        self.read_at: LastUsed[str, int] = LastUsed(READS_KEPT)

    def _collect_history(self, player: str, now: float) -> None:
        """Make cards of the player's whole History, unless no game was stored since it
        was last read in this process (each game's cards are made as it ends; this reads
        the games stored before, or whose cards could not be stored then)."""
        if self.games is None:
            return
        count = None if self.counted is None else self.counted(player)
        if count is not None and self.read_at.get(player) == count:
            self.read_at.touch(player)
            return
        self.collect(player, self.games(player), now)
        if count is not None:
            self.read_at.put(player, count)

    def collect(self, player: str, entries: Iterable[Entry], now: float) -> int:
        """Make a card of each of the player's slips in ``entries`` not yet a card;
        return how many were new."""
        rows = {key: new_row(card, now) for key, card in cards_of(entries).items()}
        return self.store.put_cards(player, rows, replace=False) if rows else 0

    def due(self, player: str, now: float) -> list[dict[str, Any]]:
        """The cards due now, the longest due first, each as the page shows it: those
        the schedule says, and those whose latest answer failed (until found, even after
        a reload of the page)."""
        latest = {answer["key"]: answer["passed"] for answer in self.store.answers(player)}
        rows = self.store.cards(player).values()
        due = [
            row
            for row in rows
            if datetime.fromisoformat(row["schedule"]["due"]) <= _when(now)
            or latest.get(row["card"]["key"]) is False
        ]
        due.sort(key=lambda row: (row["schedule"]["due"], row["card"]["key"]))
        return [_shown(row["card"]) for row in due]

    def state(self, player: str, now: float) -> dict[str, Any]:
        """What the Train page shows: the cards due, how many there are, the streak, the
        chart's days and the puzzle rating."""
        self._collect_history(player, now)
        answers = self.store.answers(player)
        days = [(_day(a["at"]), bool(a["passed"])) for a in answers if a.get("scheduled")]
        rating = self.store.rating(f"player:{player}")
        return {
            "due": self.due(player, now),
            "cards": len(self.store.cards(player)),
            "streak": streak((day for day, _ in days), _day(now)),
            "chart": by_day(days, _day(now), CHART_DAYS),
            "today": _day(now),
            "rating": round(Rating.from_dict(rating).rating if rating else Rating().rating),
        }

    def answer(self, player: str, key: object, cell: object, now: float) -> dict[str, Any]:
        """The answer to one card: passed or not, the best cells, and whether the
        schedule took it (the card was due), with the card's next time."""
        row = self.store.cards(player).get(key) if isinstance(key, str) else None
        if row is None:
            raise TrainingError("game_not_found", "no such card among yours")
        card = Card.from_dict(row["card"])
        chosen = _cell(cell, card.variant, card.board)
        passed = card.passes(chosen)
        schedule = Schedule.from_dict(row["schedule"])
        scheduled = schedule.due <= _when(now)
        if scheduled:
            grade = Grade.Good if passed else Grade.Again
            schedule, _ = SCHEDULER.review_card(schedule, grade, _when(now))
            self.store.put_cards(
                player, {card.key: {**row, "schedule": schedule.to_dict()}}, replace=True
            )
        self.store.answered(
            player, {"at": now, "key": card.key, "passed": passed, "scheduled": scheduled}
        )
        return {
            "key": card.key,
            "passed": passed,
            "best": list(card.best),
            "scheduled": scheduled,
            "next": schedule.due.timestamp(),
        }

    def puzzle(
        self, player: str, done: Iterable[str] = (), variant: str = "classic"
    ) -> dict[str, Any]:
        """The puzzle of ``variant`` nearest the player's rating, among those not in
        ``done``."""
        mine = self.store.rating(f"player:{player}")
        level = Rating.from_dict(mine).rating if mine else Rating().rating
        skip, offered = set(done), puzzles_on(variant)
        choices = [p for p in offered if p.key not in skip] or list(offered)

        def distance(puzzle: Any) -> tuple[float, int]:
            stored = self.store.rating(f"puzzle:{puzzle.key}")
            mixed = zlib.crc32(f"{player}:{puzzle.key}".encode())  # ties: each player's own order
            return abs((stored or Rating().to_dict())["rating"] - level), mixed

        best = min(choices[:: max(1, len(choices) // 64)], key=distance)
        return best.to_dict()

    def solve(self, player: str, key: object, cell: object, *, first_try: bool) -> dict[str, Any]:
        """The answer to a puzzle: solved or not, its answer when solved, both ratings."""
        puzzle = puzzle_named(key) if isinstance(key, str) else None
        if puzzle is None:
            raise TrainingError("game_not_found", "no such puzzle")
        chosen = _cell(cell, puzzle.variant, puzzle.board)
        found = chosen in puzzle.answer
        mine, its = f"player:{player}", f"puzzle:{puzzle.key}"
        before = [self.store.rating(owner) for owner in (mine, its)]
        player_rating, puzzle_rating = (Rating.from_dict(r) if r else Rating() for r in before)
        if first_try:  # only the first try is rated: a later solve changes nothing
            player_rating, puzzle_rating = rated(player_rating, puzzle_rating, first_try=found)
            self.store.put_ratings({mine: player_rating.to_dict(), its: puzzle_rating.to_dict()})
        return {
            "key": puzzle.key,
            "solved": found,
            "answer": list(puzzle.answer) if found else [],
            "theme": puzzle.theme,
            "rating": round(player_rating.rating),
            "puzzle_rating": round(puzzle_rating.rating),
        }

    def export(self, player: str) -> dict[str, Any]:
        """Everything stored about the player's training, for "Your data"."""
        return {
            "cards": list(self.store.cards(player).values()),
            "answers": self.store.answers(player),
            "rating": self.store.rating(f"player:{player}"),
        }


def _shown(card: dict[str, Any]) -> dict[str, Any]:
    """A card as the page asks it: the position and the move played, not the answer."""
    shown = ("key", "variant", "board", "to_move", "played", "verdict", "game", "ply")
    return {**{key: card[key] for key in shown}, **drawn(card["variant"], card["board"])}


class HistoryWithCards:
    """The history store, also making cards of each game stored as it ends."""

    def __init__(self, history: Any, training: Training, clock: Callable[[], float]) -> None:
        self._history, self._training, self._clock = history, training, clock

    def add(self, player: str, key: str, entry: Entry, signed: Any = None) -> bool:
        """Store the game (the history's ``add``), then its slips as cards."""
        stored = bool(self._history.add(player, key, entry, signed))
        if stored:
            try:
                self._training.collect(player, [entry], self._clock())
            except Exception as err:  # the game is stored: its cards come with the next visit
                log.warning("a game's cards were not stored: %s", type(err).__name__)
        return stored

    def __getattr__(self, name: str) -> Any:
        return getattr(self._history, name)


def with_cards(history: HistoryStore, training: Training) -> HistoryStore:
    """``history`` making cards of each game stored (the rest is the history's own)."""
    return cast(HistoryStore, HistoryWithCards(history, training, training.clock))
