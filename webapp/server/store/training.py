"""Where training lives: each player's cards (a mistake and its schedule), their answers,
and the ratings of players and puzzles (Glicko-2).

A card is stored under its key (webapp/game/training.py) with its place in the schedule
(the ``fsrs`` package's card, as its ``to_dict`` writes it); an answer is one line of
the player's log (when, which card, passed or not, whether the schedule took it), which
the page's chart and streak read. A rating is stored under its owner: ``player:<id>``
or ``puzzle:<key>``. A player's cards, answers and rating go with their history: when
they ask for their data to be deleted, or when idle for ``TICTACTOE_IDLE_DAYS``.

These are new tables in the matches' SQLite file (created when the store opens, so a
file of 0.5.0 opens as it was and gains them) and new keys in Redis; nothing stored
before changes. SQLite keeps them in store/sqlite/training.py, Redis in
store/redis/training.py.
"""

from __future__ import annotations

from typing import Any, Protocol

from webapp.server.store.redis.training import RedisTraining
from webapp.server.store.sqlite.training import SQLiteTraining

Row = dict[str, Any]  # a stored card: {"card": Card.to_dict(), "schedule": fsrs Card.to_dict()}
Answer = dict[str, Any]  # {"at": seconds, "key": card key, "passed": bool, "scheduled": bool}


class TrainingStore(Protocol):
    """Cards, answers and ratings, by player."""

    def cards(self, player: str) -> dict[str, Row]:
        """The player's cards by key."""

    def put_cards(self, player: str, rows: dict[str, Row], *, replace: bool) -> int:
        """Store cards by key (``replace``: over those stored, else only new ones);
        return how many were written."""

    def answered(self, player: str, answer: Answer) -> None:
        """Add one answer to the player's log (its newest ``ANSWERS_KEPT`` kept:
        webapp/game/training.py)."""

    def answers(self, player: str) -> list[Answer]:
        """The player's answers, oldest first."""

    def rating(self, owner: str) -> dict[str, float] | None:
        """A stored rating (``player:<id>`` or ``puzzle:<key>``), or None."""

    def put_ratings(self, ratings: dict[str, dict[str, float]]) -> None:
        """Store ratings by owner, together."""

    def forget(self, player: str) -> int:
        """Delete the player's cards, answers and rating; return how many cards."""

    def prune(self) -> int:
        """Delete idle players' training; return how many cards."""

    def close(self) -> None:
        """Release the store's resources."""


def open_training(config: dict[str, Any]) -> SQLiteTraining | RedisTraining:
    """Training where the matches are: Redis when ``REDIS_URL`` is set, else SQLite."""
    idle = float(config["IDLE_DAYS"]) * 86400
    if config["REDIS_URL"]:
        return RedisTraining(config["REDIS_URL"], idle_seconds=idle)
    store = SQLiteTraining(config["DATA_DIR"], idle_seconds=idle)
    store.prune()
    return store
