"""A new match's rules check is paced by its own work, never by other players'.

``new_match`` checks its rules (how long a match under them can last) in slices that
let the other connections run between them, the slices of all such walks together on
``TICTACTOE_ODDS_SHARE`` of the process's time. Players who start new matches at once
while others play must each get their answer: the check's own work is a millisecond,
whatever the others' moves have cost the process before and meanwhile.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.testing import Player, ServerProcess, session_cookie

from webapp.server.limits.paid_work import PAUSE_SECONDS, Slices

# Many players from one address, each playing fast: none of them is an abuser here.
BUSY_ENV = {
    "TICTACTOE_RATE_PER_SECOND": "1000",
    "TICTACTOE_RATE_BURST": "2000",
    "TICTACTOE_RATE_PER_ADDRESS": "0",
    "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0",
    "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0",
    # A small share, so that the others' moves, if they were counted, would spend it.
    "TICTACTOE_ODDS_SHARE": "0.02",
}
PLAYING = 4
STARTING = 16
# The worker's CPU time spent on the others' moves before the new matches: over the
# share's burst (0.2 s of work), as a busy process's is within a second.
BUSY_CPU_SECONDS = 0.6


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def play_until(player: Player, stop: threading.Event) -> None:
    """Play random moves (and the next game, the next match) until ``stop``."""
    while not stop.is_set():
        state = player.wait_for(lambda s: s["turn"] != "ai")
        if state["turn"] is None:
            player.call("next_game" if not state["match"]["over"] else "new_match", {})
            continue
        cells = [i for i, mark in enumerate(state["board"]) if mark == "."]
        version = state["version"]
        if player.call("move", {"cell": random.choice(cells), "version": version})["ok"]:
            player.wait_for(lambda s, seen=version: s["version"] > seen and s["turn"] != "ai")


def in_threads(work: list[Callable[[], Any]]) -> list[Any]:
    """Run each of ``work`` in a thread of its own; their results, or what they raised."""
    results: list[Any] = [None] * len(work)

    def run(index: int) -> None:
        try:
            results[index] = work[index]()
        except Exception as err:
            results[index] = err

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(work))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_new_matches_started_together_under_load_are_all_answered(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory(**BUSY_ENV)
    players = [Player(server.url, session_cookie(server.url)) for _ in range(PLAYING + STARTING)]
    busy, starting = players[:PLAYING], players[PLAYING:]
    for player in players:
        player.wait_for(lambda s: True)
    stop = threading.Event()
    load = [threading.Thread(target=play_until, args=(p, stop), daemon=True) for p in busy]
    for thread in load:
        thread.start()
    try:
        deadline = time.monotonic() + 30
        while cpu_seconds(server.workers()[0]) < BUSY_CPU_SECONDS:
            assert time.monotonic() < deadline, "the players' moves took no CPU time"
            time.sleep(0.1)
        # Rules no match has had yet, so each check walks and pauses. Each ack is waited
        # for at most Player.call's 5 s: one never answered raises TimeoutError.
        acks = in_threads([lambda p=p: p.call("new_match", {"human_hp": 99}) for p in starting])
        acks += in_threads([lambda p=p: p.call("new_match", {"human_hp": 98}) for p in starting])
    finally:
        stop.set()
        for thread in load:
            thread.join(10)
        connected = [player.connected for player in players]
        for player in players:
            player.close()
    assert acks == [{"ok": True}] * (2 * STARTING)
    assert all(connected)


def test_a_walk_counts_only_its_own_work() -> None:
    now = [0.0]  # the thread's CPU time
    slept: list[float] = []
    slices = Slices(slept.append, share=0.25, work_clock=lambda: now[0], clock=lambda: 0.0)
    now[0] += 10.0  # the other players' events, before any walk

    def walk_of(seconds: float) -> None:
        for _ in range(3):
            now[0] += seconds
            slices()

    walk_of(0.003)  # a walk its caller did not start: counted from its first pause
    slices.walk(lambda: walk_of(0.003))
    beside = threading.Thread(target=slices.walk, args=(lambda: walk_of(0.004),))
    beside.start()  # a walk in a greenlet (here a thread) of its own, started meanwhile
    beside.join(5)
    assert slept == [PAUSE_SECONDS] * 8  # its own slices only, within the share's burst
    now[0] += 10.0
    slices.start()  # as the turn's walks are measured for a connection's budget
    walk_of(0.003)
    assert slices.stop() == pytest.approx(0.009)
