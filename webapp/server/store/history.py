"""Where finished games live: apart from the live match, written once when a game ends.

Each player keeps their newest ``TICTACTOE_HISTORY_PER_PLAYER`` games and a set of
lifetime counters (webapp/game/history.py). A game is stored under a key of its own
(its server seed's commitment), so the process whose compare-and-set write ended the
game stores it, and a second attempt, or the same game ended again, changes nothing. Each game also
has a random id, which its share link names. A player's history goes with them when
they are idle for ``TICTACTOE_IDLE_DAYS``, or when they ask for it to be deleted.

All players together keep at most ``TICTACTOE_MAX_HISTORY_GAMES``. Past it, each game
stored deletes one game, the oldest of the player with the most games stored (of those
with as many, the one idle the longest): whoever grows the history pays for it, and an
idle player loses games only once they have more than the busy ones. No player is taken
below ``TICTACTOE_HISTORY_FLOOR`` games (their newest), and a player's lifetime counters
are never deleted for the cap. When every player is down to the floor, games are kept
past the cap until idle players expire (``/healthz`` shows the share over 1); the
database's ceiling (``TICTACTOE_MAX_DATA_MB``) still holds.

SQLite keeps them in store/sqlite/history.py, Redis in store/redis/history.py; this module holds
the interface they both follow and picks one.
"""

from __future__ import annotations

from typing import Any, Protocol

from webapp.game.history import Entry
from webapp.game.signed import Data
from webapp.server.store.interface import Signed
from webapp.server.store.redis.history import RedisHistory
from webapp.server.store.sqlite.history import SQLiteHistory

__all__ = ["HistoryStore", "Signed", "open_history"]


class HistoryStore(Protocol):
    """Finished games and lifetime counters, by player."""

    def add(self, player: str, key: str, entry: Entry, signed: Data | None = None) -> bool:
        """Store a finished game once (False if ``key`` is stored already), with its
        signed record if it has one, count it, and drop the player's oldest games past
        their cap, and past the budget of all players' games the oldest of the players
        with the most (never below the floor)."""

    def games(self, player: str) -> list[Entry]:
        """The player's stored games, newest first."""

    def game(self, game_id: str) -> tuple[str, Entry] | None:
        """A game by its share id, with its player; None if unknown."""

    def signed_games(self, player: str) -> list[Signed]:
        """The player's stored games, newest first, each with its stored signed record."""

    def signed_game(self, game_id: str) -> tuple[str, Signed] | None:
        """A game by its share id, with its player and its stored signed record."""

    def keep_signed(self, game_id: str, signed: Data) -> bool:
        """Store the signed record of a game stored without one; False if it is gone."""

    def counters(self, player: str) -> dict[str, int]:
        """The player's lifetime counters."""

    def forget(self, player: str) -> int:
        """Delete everything stored about the player's games; return how many games."""

    def prune(self) -> int:
        """Delete what expiry alone does not; return how many games."""

    def count(self) -> int:
        """How many finished games are stored, all players together."""

    def close(self) -> None:
        """Release the store's resources."""


def open_history(config: dict[str, Any]) -> SQLiteHistory | RedisHistory:
    """History where the matches are: Redis when ``REDIS_URL`` is set, else SQLite."""
    per_player, budget = int(config["HISTORY_PER_PLAYER"]), int(config["MAX_HISTORY_GAMES"])
    idle = float(config["IDLE_DAYS"]) * 86400
    floor = int(config["HISTORY_FLOOR"])
    if config["REDIS_URL"]:
        url = config["REDIS_URL"]
        return RedisHistory(
            url, per_player=per_player, idle_seconds=idle, budget=budget, floor=floor
        )
    store = SQLiteHistory(
        config["DATA_DIR"], per_player=per_player, idle_seconds=idle, budget=budget, floor=floor
    )
    store.prune()
    return store
