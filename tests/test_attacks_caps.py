"""Caps that an attacker cannot turn against others: whose games go when all players'
history reaches its cap.

A player playing many games would push an idle player's history out, lifetime figures
and all.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.live import Actions, browser, connect, make_app, player_of

ATTACKER, OTHER = "127.0.0.2", "127.0.0.3"
STORES = ["sqlite", "redis"]


# --- history ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", STORES)
def test_an_idle_players_history_outlives_an_attacker_past_the_cap(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = make_app(kind, tmp_path, request, MAX_HISTORY_GAMES=50, HISTORY_FLOOR=10)
    history = app.extensions["history"]
    victim, attacker = browser(app), browser(app)
    Actions(connect(app, victim)).finish_games(20)
    kept = history.games(player_of(victim))
    totals = history.counters(player_of(victim))
    assert len(kept) == 20
    time.sleep(1.1)  # Redis orders players by whole seconds: the victim is idle the longest
    Actions(connect(app, attacker)).finish_games(40)
    # The attacker grew the history the most: their own oldest games went.
    assert history.games(player_of(victim)) == kept
    assert history.counters(player_of(victim)) == totals
    assert len(history.games(player_of(attacker))) == 30
    # Spread over players with fewer games each, the attack takes the victim's oldest
    # games, down to the floor and no further, and never their lifetime figures.
    for _ in range(4):
        Actions(connect(app, browser(app))).finish_games(12)
    left = history.games(player_of(victim))
    assert len(left) == 10 and left == kept[:10]
    assert history.counters(player_of(victim)) == totals
