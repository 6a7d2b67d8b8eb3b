"""A player's finished games as the ``history`` and ``history_game`` events answer them:
the list with lifetime figures, skill and calibration, and one game whole with its review.

The games are stored by the match and room services as they end (store/history.py).
"""

from __future__ import annotations

from typing import Any

from webapp.game.history import reviewed, summary, totals_from, under_way
from webapp.game.match import Match
from webapp.game.rules import MatchError
from webapp.server.protocol.vocabulary import ErrorCode
from webapp.server.services.signed_history import signed_record
from webapp.server.services.targets import figures
from webapp.server.store.history import HistoryStore
from webapp.server.store.signing import Signer


def history_of(
    history: HistoryStore | None, player: str, match: Match | None = None
) -> dict[str, Any]:
    """The player's finished games (newest first), lifetime figures, skill estimate,
    the calibration of their targeted matches, and the id of the newest game of
    ``match`` (theirs now) while it is under way."""
    if history is None:
        empty = totals_from({}).to_dict()
        return {"games": [], "totals": empty, "under_way": None, **figures([])}
    entries = history.games(player)
    games = [summary(entry) for entry in entries]
    totals = totals_from(history.counters(player)).to_dict()
    now = under_way(entries, match) if match else None
    return {"games": games, "totals": totals, "under_way": now, **figures(entries)}


def history_game(
    history: HistoryStore | None, signer: Signer | None, player: str, game_id: object
) -> dict[str, Any]:
    """One of the player's finished games, whole, with its review; a game against the
    AI with its signed record as stored (services/signed_history.py)."""
    found = history.signed_game(game_id) if history and isinstance(game_id, str) else None
    if history is None or found is None or found[0] != player:
        raise MatchError(ErrorCode.GAME_NOT_FOUND, "no such game in your history")
    entry = found[1][0]
    # A game with a friend has no dice and no signature: the server played no part.
    signed = signed_record(history, signer, found[1]) if signer else None
    return {"game": entry, "signed_record": signed, "review": reviewed(entry)}
