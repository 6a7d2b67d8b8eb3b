"""Paid work against a real server: the lab's and the odds' budgets belong to the client
address as well as to the connection, and work whose socket closed stops.

Bounded in size and time, loopback only: the attackers come from 127.0.9.x, the
bystanders from 127.0.0.1 and 127.0.8.1. Nothing here compares times: the worker's CPU
stops growing, asks are refused or answered.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.testing import (
    HARD_RULES,
    Player,
    RawWebSocket,
    ServerProcess,
    session_cookie,
)

pytestmark = pytest.mark.attack  # real servers under hostile clients

ATTACKER = "127.0.9.1"
OTHER = "127.0.8.1"
LAST_STEP = {"board": ".........", "start": 1_649_836, "size": 1}  # plain minimax: ~2 s
ALPHABETA_LAST = {"board": ".........", "prune": True, "start": 70_288, "size": 1}
CALL_SECONDS = 10.0
IDLE_CPU = 0.2  # CPU seconds a worker with nothing to do stays under in a 2 s window


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of ``pids`` together, from /proc."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / 100  # clock ticks: 100 a second on Linux


def answer(raw: RawWebSocket, ack: int) -> dict[str, Any]:
    """The acknowledgement numbered ``ack`` (what came before it is passed over)."""
    raw.sock.settimeout(CALL_SECONDS)
    for text in raw.texts():
        if text.startswith(f"43{ack}["):
            found: dict[str, Any] = json.loads(text[len(f"43{ack}") :])[0]
            return found
    raise AssertionError(f"the server closed the socket before answering {ack}")


def ask(raw: RawWebSocket, event: str, payload: dict[str, Any], ack: int = 1) -> dict[str, Any]:
    """Send ``event`` and wait for its acknowledgement."""
    raw.send_text(f"42{ack}" + json.dumps([event, payload]))
    return answer(raw, ack)


def settled(pids: list[int], seconds: float) -> bool:
    """Whether, within ``seconds``, a 2 s window passes in which ``pids`` together use less
    than IDLE_CPU of CPU."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = cpu_seconds(pids)
        time.sleep(2.0)
        if cpu_seconds(pids) - before < IDLE_CPU:
            return True
    return False


def test_lab_work_stops_when_its_sockets_close(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # 16 players' sockets from one address each jump to the last step of the empty
    # board's plain minimax (about 2 s of work each, at a quarter of the process: some
    # two minutes of work in all), then hang up. The work used to outlive them: the
    # worker went on at a quarter of a core for minutes. All 16 are let in at once, so
    # that it is the work under way that must stop, not only the work waiting in line.
    server = server_factory(
        TICTACTOE_NEW_PLAYERS_PER_MINUTE="0", TICTACTOE_PAID_AT_ONCE_PER_ADDRESS="16"
    )
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda s: True)

    def cached_odds() -> None:
        ack = bystander.client.call("odds", {"preset": "classic"}, timeout=CALL_SECONDS)
        assert ack["ok"], ack

    cached_odds()  # from the cache from here on
    workers = server.workers()
    assert settled(workers, 20), "the worker was busy before the attack"
    cookies = [session_cookie(server.url) for _ in range(16)]
    sockets = [RawWebSocket.joined(server.port, cookie, source=ATTACKER) for cookie in cookies]
    before = cpu_seconds(workers)
    for raw in sockets:
        raw.send_text("421" + json.dumps(["lab_page", LAST_STEP]))
    deadline = time.monotonic() + 20
    while cpu_seconds(workers) - before < 0.5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cpu_seconds(workers) - before >= 0.5, "the attack did not start any work"
    for raw in sockets:
        raw.close()
    assert settled(workers, 20), "the work went on after its sockets closed"
    assert "Traceback" not in server.log_tail(1 << 20)  # stopped work is no error
    cached_odds()
    assert bystander.connected
    bystander.close()


def test_a_new_socket_from_an_address_that_spent_its_lab_budget_gets_no_new_one(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Budgets of 1 ms (a second): the first jump through the alpha-beta trace (tens of
    # milliseconds of work) leaves its connection and its address in debt for long.
    server = server_factory(
        TICTACTOE_NEW_PLAYERS_PER_MINUTE="0",
        TICTACTOE_LAB_MS_PER_SECOND="1",
        TICTACTOE_LAB_BURST_MS="1",
        TICTACTOE_LAB_MS_PER_ADDRESS="1",
    )
    first = RawWebSocket.joined(server.port, session_cookie(server.url), source=ATTACKER)
    assert ask(first, "lab_page", ALPHABETA_LAST)["ok"]
    first.close()
    fresh = RawWebSocket.joined(server.port, session_cookie(server.url), source=ATTACKER)
    refused = ask(fresh, "lab_page", ALPHABETA_LAST)
    assert refused["error"]["code"] == "rate_limited", refused
    assert "network" in refused["error"]["message"]
    fresh.close()
    other = RawWebSocket.joined(server.port, session_cookie(server.url), source=OTHER)
    assert ask(other, "lab_page", ALPHABETA_LAST)["ok"]
    other.close()


def test_a_new_socket_from_an_address_that_spent_its_odds_budget_gets_no_new_one(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory(
        TICTACTOE_NEW_PLAYERS_PER_MINUTE="0",
        TICTACTOE_ODDS_MS_PER_SECOND="1",
        TICTACTOE_ODDS_BURST_MS="1",
        TICTACTOE_ODDS_MS_PER_ADDRESS="1",
    )
    # Tens of milliseconds of work each, new to this server.
    sets = [{"rules": {**HARD_RULES, "start_human_hp": hp}} for hp in (181, 182, 183)]
    first = RawWebSocket.joined(server.port, session_cookie(server.url), source=ATTACKER)
    assert ask(first, "odds", sets[0])["ok"]
    first.close()
    fresh = RawWebSocket.joined(server.port, session_cookie(server.url), source=ATTACKER)
    refused = ask(fresh, "odds", sets[1])
    assert refused["error"]["code"] == "rate_limited", refused
    fresh.close()
    other = RawWebSocket.joined(server.port, session_cookie(server.url), source=OTHER)
    assert ask(other, "odds", sets[1])["ok"]
    other.close()


def test_sockets_asking_at_once_from_one_address_share_its_budget(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Eight sockets from one address ask at the same moment, none in debt yet: all but
    # the answers the address may have under way at once (2) find its budget spent.
    server = server_factory(
        TICTACTOE_NEW_PLAYERS_PER_MINUTE="0",
        TICTACTOE_LAB_MS_PER_SECOND="1",
        TICTACTOE_LAB_BURST_MS="1",
        TICTACTOE_LAB_MS_PER_ADDRESS="1",
    )
    cookies = [session_cookie(server.url) for _ in range(8)]
    sockets = [RawWebSocket.joined(server.port, cookie, source=ATTACKER) for cookie in cookies]
    for raw in sockets:
        raw.send_text("421" + json.dumps(["lab_page", ALPHABETA_LAST]))
    answers = [answer(raw, 1) for raw in sockets]
    for raw in sockets:
        raw.close()
    codes = [found["error"]["code"] if not found["ok"] else "ok" for found in answers]
    assert codes.count("ok") <= 2, codes
    assert codes.count("rate_limited") >= 6, codes
