"""A player with many finished games in their history, stored as a server stores them,
for the tests and the bench that ask for a whole history; and the player id a session
cookie names."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

from webapp.game.history import upgrade_entry
from webapp.server.store.history import HistoryStore
from webapp.server.store.signing import Signer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
STORED = FIXTURES / "history-0.5.0.dev0-hints.jsonl"  # two games against the AI


def fixture_games() -> list[dict[str, Any]]:
    """Games against the AI as an earlier release stored them, in today's format."""
    return [upgrade_entry(json.loads(line)) for line in STORED.read_text().splitlines()]


def stock(
    history: HistoryStore,
    signer: Signer | None,
    player: str,
    count: int,
    *,
    ended: float = 2e9,
    first: int = 0,
) -> list[str]:
    """Store ``count`` finished games for ``player`` (numbered from ``first``), signed as
    a game's end signs them (unsigned, as before signatures were stored, if ``signer`` is
    None); their ids."""
    games, ids = fixture_games(), []
    for index in range(first, first + count):
        game_id = f"{player[:8]}-{index:013d}".ljust(22, "x")[:22]
        entry = {**games[index % len(games)], "id": game_id, "ended": ended + index}
        signed = [signer.sign(entry["record"])] if signer else []
        assert history.add(player, f"game:{player}:{index}", entry, *signed)
        ids.append(game_id)
    return ids


def player_of(cookie: str) -> str:
    """The player id in a Flask session cookie (signed, not encrypted: its payload reads)."""
    value = cookie.split("=", 1)[1].split(";", 1)[0]
    compressed = value.startswith(".")
    data = value.lstrip(".").split(".", 1)[0]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return str(json.loads(zlib.decompress(raw) if compressed else raw)["player"])
