"""Redis configured as docs/hosting.md says keeps every state a player was shown, through
a SIGKILL under load; /healthz and the start-up log warn of each of the guide's Redis
settings that Redis lacks."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.guide import REDIS_CONF, block, redis_conf
from support.testing import Player, RedisServer, ServerProcess, session_cookie

from webapp.server.store.redis import client as redis_client
from webapp.server.store.redis.client import EVICTS, FSYNC_NO, NO_APPEND_ONLY, NO_MAXMEMORY

PLAYERS = 30
PLAY_SECONDS = 3.0
FAST_PLAYERS = {  # every player on loopback, each moving as fast as it is answered
    "TICTACTOE_RATE_PER_SECOND": "1000",
    "TICTACTOE_RATE_BURST": "1000",
    "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0",
    "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0",
    "TICTACTOE_RATE_PER_ADDRESS": "0",
}


def keep_playing(player: Player, stop: threading.Event, rng: random.Random) -> None:
    """Move, start the next game or match, as fast as answered, until ``stop`` or an error
    (Redis gone)."""
    while not stop.is_set():
        try:
            state = player.wait_for(lambda s: s["turn"] != "ai")
            if state["match"]["over"]:
                event, payload = "new_match", {}
            elif state["turn"] is None:
                event, payload = "next_game", {}
            else:
                empty = [i for i, mark in enumerate(state["board"]) if mark == "."]
                event, payload = "move", {"cell": rng.choice(empty)}
            if not player.call(event, payload).get("ok"):
                return
            player.wait_for(
                lambda s, v=state["version"]: s["version"] > v and s["turn"] != "ai"  # type: ignore[misc]
            )
        except Exception:  # Redis killed: no answer, or an error
            return


def found_again(url: str, cookie: str) -> dict[str, Any]:
    """The state a player's new tab is shown (the server may still be reaching Redis)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            player = Player(url, cookie)
            try:
                return player.wait_for(lambda s: True, timeout=10)
            finally:
                player.close()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@pytest.mark.system
def test_redis_killed_under_load_keeps_every_state_a_player_was_shown(tmp_path: Path) -> None:
    settings = redis_conf(block(REDIS_CONF))
    assert settings["appendonly"] == "yes" and settings["appendfsync"] == "always"
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis", settings=settings)
    url = redis.start()
    server = ServerProcess(tmp_path / "data", {**FAST_PLAYERS, "TICTACTOE_REDIS_URL": url})
    again = RedisServer(tmp_path / "redis", settings=settings, port=redis.port)
    try:
        server.start()
        cookies = [session_cookie(server.url) for _ in range(PLAYERS)]
        players = [Player(server.url, cookie) for cookie in cookies]
        stop = threading.Event()
        threads = [
            threading.Thread(target=keep_playing, args=(player, stop, random.Random(index)))
            for index, player in enumerate(players)
        ]
        for thread in threads:
            thread.start()
        time.sleep(PLAY_SECONDS)
        redis.kill()  # as a crash, the out-of-memory killer or a power cut would
        time.sleep(0.5)
        stop.set()
        for thread in threads:
            thread.join(timeout=15)
        shown = [player.newest() for player in players]
        for player in players:
            player.close()
        assert all(state is not None and state["version"] > 6 for state in shown), (
            "the players did not get to play"
        )
        again.start()  # as the service manager would, with the same settings and files
        for cookie, before in zip(cookies, shown, strict=True):
            assert before is not None
            after = found_again(server.url, cookie)
            assert after["version"] >= before["version"], (after["version"], before["version"])
            if after["version"] == before["version"]:
                assert after["board"] == before["board"]
                assert after["history"] == before["history"]
    finally:
        server.stop()
        redis.stop()
        again.stop()


GUIDES = redis_conf(block(REDIS_CONF))


@pytest.mark.parametrize(
    ("changed", "warned"),
    [
        ({}, []),
        ({"appendonly": "no"}, [NO_APPEND_ONLY]),
        ({"appendfsync": "everysec"}, []),  # the window docs/hosting.md states
        ({"appendfsync": "no"}, [FSYNC_NO]),
        ({"maxmemory": "0"}, [NO_MAXMEMORY]),
        ({"maxmemory-policy": "allkeys-lru"}, [EVICTS]),
        ({"appendonly": "no", "maxmemory": "0"}, [NO_APPEND_ONLY, NO_MAXMEMORY]),
    ],
)
@pytest.mark.system
def test_healthz_and_the_start_up_log_warn_of_each_redis_setting_the_guide_asks(
    tmp_path: Path, changed: dict[str, str], warned: list[str]
) -> None:
    import json
    import urllib.request

    redis = RedisServer(tmp_path, settings=GUIDES | changed)
    server = ServerProcess(tmp_path / "data", {"TICTACTOE_REDIS_URL": redis.start()})
    try:
        server.start()
        with urllib.request.urlopen(server.url + "/healthz") as reply:
            assert reply.status == 200
            health = json.load(reply)
    finally:
        server.stop()
        redis.stop()
    assert health["status"] == "ok"
    assert health.get("warnings", []) == warned
    logged = server.log_tail(100_000)
    for warning in (NO_APPEND_ONLY, FSYNC_NO, NO_MAXMEMORY, EVICTS):
        assert (warning in logged) is (warning in warned), warning  # said at start-up too


class ManagedRedis:
    """A Redis that refuses ``CONFIG``, as managed ones often do, and answers ``INFO``."""

    def __init__(self, info: dict[str, object]) -> None:
        self.info_of = info

    def config_get(self, pattern: str) -> dict[str, str]:
        import redis

        raise redis.ResponseError("unknown command 'CONFIG'")

    def info(self, section: str) -> dict[str, object]:
        return self.info_of


def test_a_redis_that_refuses_config_is_judged_by_its_info() -> None:
    fine = {"aof_enabled": 1, "maxmemory": 1 << 30, "maxmemory_policy": "noeviction"}
    assert redis_client.warnings(ManagedRedis(fine)) == []
    bare = {"aof_enabled": 0, "maxmemory": 0, "maxmemory_policy": "volatile-lru"}
    assert redis_client.warnings(ManagedRedis(bare)) == [NO_APPEND_ONLY, NO_MAXMEMORY, EVICTS]
