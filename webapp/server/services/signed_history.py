"""Finished games with their signed records, served as they are stored.

A game against the AI is signed once, when it ends, and its signed record is stored
beside it (store/sqlite/history.py, store/redis/history.py); every answer that shows it (the
``history_game`` event, ``GET /history/games.json``, a shared game's page) serves those
bytes, never signing again. A game stored before signatures were kept, or signed by a
key that is no longer published (neither the current key nor a listed fallback), is
signed with the current key on its first request and that signature is kept. After a
key rotation the stored signatures stay: they verify through the fallback keys that
``/.well-known/tictactoe-keys.json`` publishes.
"""

from __future__ import annotations

from typing import Any

from webapp.game.history import Entry, kind_of
from webapp.game.signed import Data
from webapp.server.store.history import HistoryStore, Signed
from webapp.server.store.signing import Signer


def signed_record(history: HistoryStore, signer: Signer, stored: Signed) -> Data | None:
    """The stored game's signed record (None for a game with a friend): as stored, or
    signed now, and kept, if it has none that a published key made."""
    entry, signed = stored
    if kind_of(entry) != "ai":  # the server played no part: nothing to sign
        return None
    if signed is not None and signed.get("key") in signer.keys:
        return signed
    signed = signer.sign(entry["record"])
    history.keep_signed(entry["id"], signed)
    return signed


def signed_games(history: HistoryStore, signer: Signer, player: str) -> list[dict[str, Any]]:
    """The player's stored games, newest first, each with its ``signed_record``."""
    return [
        {**stored[0], "signed_record": signed_record(history, signer, stored)}
        for stored in history.signed_games(player)
    ]


def signed_game(
    history: HistoryStore, signer: Signer, game_id: str
) -> tuple[str, Entry, Data | None] | None:
    """A game by its share id: its player, the game and its signed record; None if unknown."""
    found = history.signed_game(game_id)
    if found is None:
        return None
    player, stored = found
    return player, stored[0], signed_record(history, signer, stored)
