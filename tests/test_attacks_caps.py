"""Caps that an attacker cannot turn against others: the rooms one address may open, and
whose games go when all players' history reaches its cap.

One address opening rooms as fast as its new players allow would fill the cap on open
rooms, and then every other player's "Play a friend" is refused; a player playing many
games would push an idle player's history out, lifetime figures and all.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from support.live import Actions, browser, connect, make_app, player_of
from support.testing import (
    ServerProcess,
    cookie_from,
    local_room_from,
    new_room_from,
    request_from,
    wait_until,
)

from webapp.server.app import create_app

pytestmark = pytest.mark.attack  # real servers under hostile clients

ATTACKER, OTHER = "127.0.0.2", "127.0.0.3"
STORES = ["sqlite", "redis"]


def test_one_address_opening_rooms_is_refused_past_its_hourly_share(
    server_factory: Any,
) -> None:
    server: ServerProcess = server_factory(TICTACTOE_NEW_ROOMS_PER_HOUR="4")
    cookies = [cookie_from(ATTACKER, server.url) for _ in range(3)]
    made = [new_room_from(ATTACKER, server.url, cookie) for cookie in cookies for _ in range(2)]
    assert [status for status, _, _ in made] == [303] * 4 + [429] * 2, made
    assert {code for _, code, _ in made[4:]} == {"too_many_new_rooms"}
    assert all(0 < int(wait) <= 3600 for _, _, wait in made[4:])
    # A room on one device is a new room too: refused the same way, with a clear ack.
    ack = local_room_from(ATTACKER, server.port, cookies[2])
    assert ack["error"]["code"] == "too_many_new_rooms", ack
    assert 0 < ack["error"]["retry_after"] <= 3600  # the seconds left in the hour
    # Everyone else still opens rooms: the cap on all rooms is far from full.
    status, room, _ = new_room_from(OTHER, server.url, cookie_from(OTHER, server.url))
    assert status == 303 and room

    def open_rooms() -> int:  # /healthz counts at most once every 1.5 s
        return int(
            json.loads(request_from(OTHER, server.url, "/healthz")[2])["usage"]["rooms"]["used"]
        )

    wait_until(lambda: open_rooms() == 5, 10, "five rooms open, as answered")


def test_every_process_counts_an_addresss_new_rooms_together(
    tmp_path: Path, redis_url: str
) -> None:
    settings = {"DATA_DIR": str(tmp_path), "REDIS_URL": redis_url, "NEW_ROOMS_PER_HOUR": 2}
    first, second = (create_app({"TESTING": True, **settings}) for _ in range(2))
    origin, attacker = {"Origin": "http://localhost"}, {"REMOTE_ADDR": ATTACKER}
    statuses = []
    for app in (first, second, first):
        web = app.test_client()
        web.get("/", environ_base=attacker)
        statuses.append(web.post("/r", headers=origin, environ_base=attacker).status_code)
    assert statuses == [303, 303, 429]
    assert browser(second).post("/r", headers=origin).status_code == 303


def test_an_ipv6_host_counts_its_new_rooms_by_its_64(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "NEW_ROOMS_PER_HOUR": 1})
    statuses = []
    for address in ("2001:db8::1", "2001:db8::2:3", "2001:db8:0:1::1"):
        web, environ = app.test_client(), {"REMOTE_ADDR": address}
        web.get("/", environ_base=environ)
        reply = web.post("/r", headers={"Origin": "http://localhost"}, environ_base=environ)
        statuses.append(reply.status_code)
    assert statuses == [303, 429, 303]  # the same /64, then the next one


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
