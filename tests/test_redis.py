"""Several server processes sharing one Redis: store, message queue, crash of one process."""

from __future__ import annotations

import contextlib
import random
import secrets
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from support.testing import (
    Player,
    RawWebSocket,
    Refused,
    ServerProcess,
    early_in_a_clock_minute,
    session_cookie,
)

from webapp.game.match import new_match
from webapp.server.limits.shared_counts import RedisTally
from webapp.server.store.matches import RedisStore


@pytest.fixture
def cluster(
    server_factory: Callable[..., ServerProcess], redis_url: str
) -> Callable[..., list[ServerProcess]]:
    """Start ``count`` server processes on one Redis, one secret key and one signing key."""
    key, signing_key = secrets.token_hex(16), secrets.token_hex(32)

    def start(count: int = 2, **env: str) -> list[ServerProcess]:
        shared = {
            "TICTACTOE_REDIS_URL": redis_url,
            "TICTACTOE_SECRET_KEY": key,
            "TICTACTOE_SIGNING_KEY": signing_key,
            **env,
        }
        return [server_factory(**shared) for _ in range(count)]

    return start


def test_both_sockets_on_two_processes_receive_every_state(
    cluster: Callable[..., list[ServerProcess]],
) -> None:
    a, b = cluster(2)
    cookie = session_cookie(a.url)
    on_a, on_b = Player(a.url, cookie), Player(b.url, cookie)
    state = on_a.human_turn()
    assert on_b.human_turn()["version"] == state["version"]
    assert on_a.move(state["board"].index(".")) == {"ok": True}
    after = on_a.wait_for(lambda s: s["version"] > state["version"] and s["turn"] != "ai")
    assert on_b.wait_for(lambda s: s["version"] == after["version"]) == after
    versions_b = [s["version"] for s in on_b.states if s["version"] > state["version"]]
    assert versions_b == list(range(state["version"] + 1, after["version"] + 1))
    on_a.close()
    on_b.close()


def test_move_through_a_reply_pushed_to_b(cluster: Callable[..., list[ServerProcess]]) -> None:
    a, b = cluster(2, TICTACTOE_AI_DELAY_MS="200")
    cookie = session_cookie(b.url)
    on_a, on_b = Player(a.url, cookie), Player(b.url, cookie)
    state = on_a.human_turn()
    cell = state["board"].index(".")
    assert on_a.move(cell) == {"ok": True}
    replied = on_b.wait_for(lambda s: s["version"] == state["version"] + 2)
    assert replied["history"][-2] == {"by": "human", "cell": cell}
    assert replied["history"][-1]["by"] == "ai"
    assert (
        len([h for h in replied["history"] if h["by"] == "ai"])
        == len([h for h in state["history"] if h["by"] == "ai"]) + 1
    )  # the reply was chosen once, although two processes saw the state
    on_a.close()
    on_b.close()


def test_kill_one_process_player_finishes_on_the_other(
    cluster: Callable[..., list[ServerProcess]],
) -> None:
    a, b = cluster(2, TICTACTOE_AI_DELAY_MS="300")
    cookie = session_cookie(a.url)
    on_a = Player(a.url, cookie)
    state = on_a.human_turn()
    assert on_a.move(state["board"].index(".")) == {"ok": True}
    a.kill()  # the AI reply was still pending inside process A
    on_b = Player(b.url, cookie)
    state = on_b.human_turn()  # B sees the AI to move with nothing pending, and replies
    while state["status"] == "playing":
        version = state["version"]
        assert on_b.move(state["board"].index(".")) == {"ok": True}
        state = on_b.wait_for(
            lambda s, v=version: s["version"] > v and s["turn"] != "ai"  # type: ignore[misc]
        )
    assert state["status"] in {"human_won", "ai_won", "draw"}
    on_b.close()


def test_racing_moves_on_two_processes_exactly_one_wins(
    cluster: Callable[..., list[ServerProcess]],
) -> None:
    a, b = cluster(2, TICTACTOE_AI_DELAY_MS="2000")
    cookie = session_cookie(a.url)
    on_a, on_b = Player(a.url, cookie), Player(b.url, cookie)
    state = on_a.human_turn()
    on_b.wait_for(lambda s: s["version"] == state["version"])
    empty = [i for i, c in enumerate(state["board"]) if c == "."]
    acks: list[Any] = []

    # Both moves are made on the state both tabs show, as the page sends them.
    made_on = state["version"]
    threads = [
        threading.Thread(
            target=lambda p=p, c=c: acks.append(p.call("move", {"cell": c, "version": made_on}))
        )
        for p, c in ((on_a, empty[0]), (on_b, empty[1]))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(ack["ok"] for ack in acks) == [False, True]
    refused = next(ack for ack in acks if not ack["ok"])
    assert refused["error"]["code"] in {"not_your_turn", "cell_taken", "stale_version"}
    on_a.close()
    on_b.close()


def test_redis_store_semantics(redis_url: str) -> None:
    store = RedisStore(redis_url, idle_seconds=60)
    first = new_match(random.Random(1))
    assert store.load("p") is None
    assert store.save("p", first, expected=None)
    assert not store.save("p", first, expected=None)
    assert store.load("p") == first
    newer = new_match(random.Random(2), version=first.version)
    assert store.save("p", newer, expected=first.version)
    assert not store.save("p", newer, expected=first.version)
    assert store.load("p") == newer
    ttl = redis.Redis.from_url(redis_url).ttl("tictactoe:match:p")
    assert 0 < ttl <= 60


def test_data_dir_is_not_needed_for_matches(
    cluster: Callable[..., list[ServerProcess]], tmp_path: Path
) -> None:
    (a,) = cluster(1)
    cookie = session_cookie(a.url)
    Player(a.url, cookie).close()
    assert not (a.data_dir / "matches.sqlite3").exists()


def test_redis_tally_keeps_cooldowns_and_counts_per_window(redis_url: str) -> None:
    now = [1_000.0]
    tally = RedisTally(redis_url, clock=lambda: now[0])
    assert tally.cooldown_left("p") == 0.0
    tally.cool("p", 5.0)
    assert 4.0 < tally.cooldown_left("p") <= 5.0
    assert [tally.bump("k", 60.0) for _ in range(2)] == [(1, 20.0), (2, 20.0)]
    now[0] = 1_030.0  # the next window counts from one again
    assert tally.bump("k", 60.0) == (1, 50.0)
    keys = redis.Redis.from_url(redis_url).keys("tictactoe:tally:k:*")
    assert all(0 < redis.Redis.from_url(redis_url).ttl(key) <= 61 for key in keys)


def test_a_player_cut_off_by_one_process_is_kept_out_by_the_other(
    cluster: Callable[..., list[ServerProcess]],
) -> None:
    a, b = cluster(2)
    cookie = session_cookie(a.url)
    raw = RawWebSocket.joined(a.port, cookie)
    with contextlib.suppress(OSError):
        for _ in range(20):
            raw.sock.sendall(RawWebSocket.frame('42["hint",{}]') * 100)
    raw.close_code()  # read until process a hangs up on the flood
    with pytest.raises(Refused) as refused:
        Player(b.url, cookie)
    assert refused.value.data["code"] == "cooldown"
    Player(b.url, session_cookie(b.url)).close()  # other players are not kept out


def test_new_players_are_counted_by_all_processes_together(
    cluster: Callable[..., list[ServerProcess]],
) -> None:
    a, b = cluster(2, TICTACTOE_NEW_PLAYERS_PER_MINUTE="2")
    early_in_a_clock_minute(5)  # the three new players in one minute's count
    session_cookie(a.url)
    session_cookie(b.url)
    for server in (a, b):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "/")
        assert refused.value.code == 429


# --- hosts that must agree on their keys ---------------------------------------------


def public_half(signing_key: str) -> str:
    """A signing key's public half, as TICTACTOE_SIGNING_KEY_FALLBACKS lists it."""
    from webapp.server.store.signing import Signer

    return Signer(bytes.fromhex(signing_key)).public.hex()


def refused(tmp_path: Path, **env: str) -> str:
    """``tictactoe serve`` with ``env`` refusing to start: its error line (after the
    warnings about this Redis)."""
    from support.testing import refused_start

    *_, line = refused_start(tmp_path / "refused", **env).stderr.strip().splitlines()
    assert line.startswith("tictactoe serve: error: ")
    return line


def test_a_host_with_a_signing_key_the_others_do_not_know_refuses_to_start(
    server_factory: Callable[..., ServerProcess], redis_url: str, tmp_path: Path
) -> None:
    key = secrets.token_hex(16)
    first = server_factory(TICTACTOE_REDIS_URL=redis_url, TICTACTOE_SECRET_KEY=key)
    # The guide's mistake: the second host left to make its own signing key.
    line = refused(tmp_path, TICTACTOE_REDIS_URL=redis_url, TICTACTOE_SECRET_KEY=key)
    assert "with another TICTACTOE_SIGNING_KEY" in line
    assert f"pid {first.workers()[0]}" in line
    stored = b"".join(redis.Redis.from_url(redis_url).get(k) or b"" for k in heartbeats(redis_url))
    signing_key = (first.data_dir / "signing_key").read_text().strip()
    assert key.encode() not in stored and signing_key.encode() not in stored  # fingerprints
    assert public_half(signing_key).encode() not in stored


def test_a_host_with_another_secret_key_refuses_to_start(
    server_factory: Callable[..., ServerProcess], redis_url: str, tmp_path: Path
) -> None:
    signing = secrets.token_hex(32)
    shared = {"TICTACTOE_REDIS_URL": redis_url, "TICTACTOE_SIGNING_KEY": signing}
    server_factory(TICTACTOE_SECRET_KEY=secrets.token_hex(16), **shared)
    line = refused(tmp_path, TICTACTOE_SECRET_KEY=secrets.token_hex(16), **shared)
    assert "with another TICTACTOE_SECRET_KEY" in line


def test_a_rotation_of_the_signing_key_starts_host_by_host(
    server_factory: Callable[..., ServerProcess], redis_url: str, tmp_path: Path
) -> None:
    old, new = secrets.token_hex(32), secrets.token_hex(32)
    shared = {"TICTACTOE_REDIS_URL": redis_url, "TICTACTOE_SECRET_KEY": secrets.token_hex(16)}
    server_factory(TICTACTOE_SIGNING_KEY=old, **shared)
    # the new key, with the old one's public half: it knows the running host's
    server_factory(
        TICTACTOE_SIGNING_KEY=new, TICTACTOE_SIGNING_KEY_FALLBACKS=public_half(old), **shared
    )
    # a host still on the old key: the new host knows its key, so it may start
    server_factory(TICTACTOE_SIGNING_KEY=old, **shared)
    # but not one on a third key that no host knows
    line = refused(tmp_path, TICTACTOE_SIGNING_KEY=secrets.token_hex(32), **shared)
    assert "TICTACTOE_SIGNING_KEY_FALLBACKS" in line


def test_a_host_that_has_gone_holds_no_other_host_back(
    server_factory: Callable[..., ServerProcess], redis_url: str
) -> None:
    """Its fingerprints leave with its heartbeat: stopped, or killed on this host."""
    shared = {"TICTACTOE_REDIS_URL": redis_url, "TICTACTOE_SECRET_KEY": secrets.token_hex(16)}
    server_factory(**shared).stop()
    killed = server_factory(**shared)
    killed.kill()
    assert heartbeats(redis_url)  # still there, for up to 15 s
    server_factory(**shared)  # a signing key of its own: started


def heartbeats(url: str) -> list[bytes]:
    """The heartbeat keys in Redis."""
    return list(redis.Redis.from_url(url).scan_iter(match="tictactoe:server:*"))
