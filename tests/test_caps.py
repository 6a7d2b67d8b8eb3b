"""Caps on open sockets, per player (tabs) and per client address, shared through Redis."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask_socketio import ConnectionRefusedError
from support.live import connect
from support.testing import Player, Refused, ServerProcess, session_cookie

from webapp.server.app import create_app
from webapp.server.events.connect import SocketCaps
from webapp.server.limits.presence import LocalPresence, RedisPresence


@pytest.mark.server
def test_a_player_may_open_eight_tabs_and_not_a_ninth(app: Flask) -> None:
    client = app.test_client()
    client.get("/")
    tabs = [connect(app, client) for _ in range(8)]
    assert all(tab.is_connected() for tab in tabs)
    assert not connect(app, client).is_connected()
    tabs[0].disconnect()
    assert connect(app, client).is_connected()  # a closed tab frees its place


@pytest.mark.server
def test_one_address_is_capped_across_players(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "TESTING": True}
    app = create_app({**settings, "MAX_SOCKETS_PER_ADDRESS": 3})
    players = [app.test_client() for _ in range(4)]
    for player in players:
        player.get("/")
    sockets = [connect(app, player) for player in players]
    assert [sock.is_connected() for sock in sockets] == [True, True, True, False]


@pytest.mark.server
def test_no_cap_per_address_when_zero(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "TESTING": True}
    app = create_app({**settings, "MAX_SOCKETS_PER_ADDRESS": 0})
    players = [app.test_client() for _ in range(20)]
    for player in players:
        player.get("/")
    assert all(connect(app, player).is_connected() for player in players)


def test_local_presence_counts_and_caps() -> None:
    presence = LocalPresence()
    assert presence.join("k", "a", 2) and presence.join("k", "b", 2)
    assert not presence.join("k", "c", 2)
    assert presence.join("k", "a", 2)  # the same socket again is not one more
    presence.leave("k", "a")
    assert presence.count("k") == 1 and presence.join("k", "c", 2)


def test_redis_presence_forgets_the_sockets_of_a_dead_process(redis_url: str) -> None:
    now = [1000.0]
    dead = RedisPresence(redis_url, ttl=60, clock=lambda: now[0])
    assert dead.join("player:p", "a", 2) and dead.join("player:p", "b", 2)
    alive = RedisPresence(redis_url, ttl=60, clock=lambda: now[0])
    assert not alive.join("player:p", "c", 2)  # shared: the cap counts both processes
    now[0] += 30
    alive.join("player:x", "z", 0)
    alive.renew()  # a live process renews its own; the dead one renews nothing
    now[0] += 31
    assert alive.count("player:p") == 0 and alive.count("player:x") == 1
    assert alive.join("player:p", "c", 2)


def test_the_page_is_told_why_a_tab_is_refused(server_factory: object) -> None:
    server: ServerProcess = server_factory(TICTACTOE_MAX_SOCKETS_PER_PLAYER="2")  # type: ignore[operator]
    cookie = session_cookie(server.url)
    tabs = [Player(server.url, cookie) for _ in range(2)]
    with pytest.raises(Refused) as refused:
        Player(server.url, cookie)
    assert refused.value.data == {"code": "too_many_sockets"}
    assert "too many tabs" in str(refused.value)
    tabs[0].close()
    Player(server.url, cookie).close()
    tabs[1].close()


def test_an_ipv6_host_cannot_step_around_the_address_cap_within_its_64() -> None:
    caps = SocketCaps(LocalPresence(), per_player=8, per_address=1)
    caps.join("p1", "2001:db8:0:1::1", "s1")
    with pytest.raises(ConnectionRefusedError):
        caps.join("p2", "2001:db8:0:1::2", "s2")  # another address of the same /64
    caps.join("p3", "2001:db8:0:2::1", "s3")  # another /64 is another client
    caps.leave("p1", "2001:db8:0:1::1", "s1")
    caps.join("p2", "2001:db8:0:1::2", "s2")
