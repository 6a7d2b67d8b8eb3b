"""Hostile clients against a real server: each attack slows only the attacker.

Bounded in size and time, loopback only. What must hold is functional: the attacker is
refused or cut, and every call of a bystander beside it is answered, within a bound of
seconds that a busy machine keeps. How much the attack slows others, in milliseconds
against a quiet baseline, is bench/attack.py's measure (docs/security.md), not a test's.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import queue
import random
import socket
import threading
import time
import urllib.request
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.live import Actions, connect, states
from support.testing import (
    Player,
    RawWebSocket,
    Refused,
    ServerProcess,
    hard_rule_sets,
    odds_flood,
    rss_kb,
    session_cookie,
    timed_calls,
)

from webapp.server.app import create_app

pytestmark = pytest.mark.attack

MB = 1 << 20
TOO_BIG = 1009
PROTOCOL_ERROR = 1002
PROBE_SECONDS = 2.0
ANSWER_SECONDS = 5.0  # each bystander's call is answered within this, busy machine or not
PAUSE_SECONDS = 0.07  # between a bystander's calls: well under the 20 events/s limit


@pytest.fixture
def bystander(server: ServerProcess) -> Iterator[Player]:
    """Another player, who should not notice the attack."""
    player = Player(server.url, session_cookie(server.url))
    player.wait_for(lambda s: True)
    yield player
    player.close()


def hints_answered(player: Player) -> list[float]:
    """The durations of ``hint`` round trips over a short while, each answered."""
    return timed_calls(lambda: answered_hint(player), PROBE_SECONDS, pause=PAUSE_SECONDS)


def answered_hint(player: Player) -> None:
    """Ask for a hint and check that it is answered."""
    assert player.call("hint")["ok"]


def get(url: str) -> None:
    """GET ``url`` and read the answer."""
    with urllib.request.urlopen(url, timeout=30) as reply:
        reply.read()


def health_answered(url: str) -> list[float]:
    """The durations of /healthz over a short while, each answered."""
    return timed_calls(lambda: get(url + "/healthz"), PROBE_SECONDS)


def all_answered(calls: list[float]) -> bool:
    """Whether there were calls and each was answered within ``ANSWER_SECONDS``."""
    return bool(calls) and max(calls) < ANSWER_SECONDS


def test_huge_frame_is_refused_from_its_header(server: ServerProcess) -> None:
    before = rss_kb(server.pids())
    attacker = RawWebSocket(server.port)
    assert attacker.status == 101
    attacker.sock.sendall(RawWebSocket.header(0x1, 8 << 30))  # announces 8 GB, sends none
    assert attacker.close_code() == TOO_BIG
    assert rss_kb(server.pids()) - before < 20 * 1024


def test_a_compressed_frame_that_inflates_past_the_limit_is_refused_uninflated(
    server: ServerProcess,
) -> None:
    # simple-websocket accepts permessage-deflate whenever a client offers it (browsers
    # do) and counts a message's size only after inflating what each read brought: 64 KB
    # of deflated zeros would become 64 MB in the server before it was refused.
    before = rss_kb(server.pids())
    attacker = RawWebSocket(server.port, extensions="permessage-deflate")
    assert attacker.status == 101
    assert b"permessage-deflate" not in attacker.head.lower()  # compression not agreed
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = squeezer.compress(b"4" + b"\0" * (64 * MB)) + squeezer.flush(zlib.Z_SYNC_FLUSH)[:-4]
    assert len(bomb) < 100 * 1024
    with contextlib.suppress(OSError):
        attacker.sock.sendall(RawWebSocket.header(0x1, len(bomb), compressed=True) + bomb)
    assert attacker.close_code() == PROTOCOL_ERROR
    assert rss_kb(server.pids()) - before < 20 * 1024


def test_fragments_adding_up_past_the_limit_are_refused(server: ServerProcess) -> None:
    attacker = RawWebSocket(server.port)
    chunk = b"4" + b"x" * 999
    attacker.sock.sendall(RawWebSocket.header(0x1, len(chunk), fin=False) + chunk)
    for _ in range(9):  # 10 KB in all, over the 3 KB a message may take
        attacker.sock.sendall(RawWebSocket.header(0x0, len(chunk), fin=False) + chunk)
    assert attacker.close_code() == TOO_BIG


def test_a_message_within_the_limit_still_works(server: ServerProcess) -> None:
    client = RawWebSocket(server.port)
    opcode, payload = next(client.frames())
    assert opcode == 0x1 and payload.startswith(b"0{")  # Engine.IO's open packet
    client.send_text("40")  # Socket.IO's connect, refused for want of a session cookie
    opcode, payload = next(client.frames())
    assert opcode == 0x1 and payload.startswith(b"44") and b"no_session" in payload
    client.close()


def send_64_mb(port: int, codes: list[int | None]) -> None:
    """Send a whole 64 MB frame as fast as the server takes it; record the close code."""
    attacker = RawWebSocket(port)
    try:
        attacker.sock.sendall(RawWebSocket.header(0x1, 64 * MB))
        block = b"x" * MB
        for _ in range(64):
            attacker.sock.sendall(block)
    except OSError:
        pass  # refused before the payload was read: the server hung up
    codes.append(attacker.close_code())


def test_64_mb_frame_does_not_slow_other_players(server: ServerProcess, bystander: Player) -> None:
    codes: list[int | None] = []
    attack = threading.Thread(target=send_64_mb, args=(server.port, codes))
    attack.start()
    during_hints, during_health = hints_answered(bystander), health_answered(server.url)
    attack.join(60)
    assert codes in ([TOO_BIG], [None])  # refused at its header (or hung up on)
    assert all_answered(during_hints), during_hints
    assert all_answered(during_health), during_health


# --- floods ----------------------------------------------------------------------------------


def hung_up(raw: RawWebSocket) -> bool:
    """Whether the server closes the connection within a few seconds (frame, FIN or reset)."""
    raw.sock.settimeout(5)
    try:
        for _ in raw.frames():
            pass
    except TimeoutError:
        return False
    except OSError:
        return True  # reset: the server hung up on what we were still sending
    return True


def flood(server: ServerProcess, cookie: str, seconds: float, report: dict[str, int]) -> None:
    """Send events as fast as the server takes them for ``seconds``, reconnecting when cut."""
    batch = RawWebSocket.frame('42["hint",{}]') * 500
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            raw = RawWebSocket.joined(server.port, cookie)
            while time.monotonic() < deadline:
                raw.sock.sendall(batch)
                report["sent"] = report.get("sent", 0) + 500
        except OSError:
            report["cut"] = report.get("cut", 0) + 1
            time.sleep(0.05)


def test_a_ten_second_flood_slows_only_the_flooder(
    server: ServerProcess, bystander: Player
) -> None:
    rss_before = rss_kb(server.pids())
    report: dict[str, int] = {}
    attacker = threading.Thread(target=flood, args=(server, session_cookie(server.url), 10, report))
    attacker.start()
    during: dict[str, list[float]] = {}

    def probe(name: str, call: Callable[[], object]) -> None:
        during[name] = []
        while attacker.is_alive():
            during[name] += timed_calls(call, 1.0, pause=PAUSE_SECONDS)

    probes = [
        threading.Thread(target=probe, args=("hints", lambda: answered_hint(bystander))),
        threading.Thread(target=probe, args=("health", lambda: get(server.url + "/healthz"))),
    ]
    for thread in probes:
        thread.start()
    attacker.join()
    for thread in probes:
        thread.join()
    assert report.get("cut", 0) >= 1, report  # the flooder was disconnected, again and again
    assert all_answered(during["hints"]), during["hints"]
    assert all_answered(during["health"]), during["health"]
    assert rss_kb(server.pids()) - rss_before < 50 * 1024
    assert bystander.connected


def spread(sockets: list[RawWebSocket], seconds: float, report: dict[str, int]) -> None:
    """Send from every socket at 19 events a second, just under each one's own rate."""
    frame = RawWebSocket.frame('421["hint",{}]')  # with an ack id, so that it is answered
    started = tick = time.monotonic()
    while time.monotonic() < started + seconds:
        for raw in sockets:
            with contextlib.suppress(OSError):
                raw.sock.sendall(frame)
                report["sent"] = report.get("sent", 0) + 1
        tick += 1 / 19
        time.sleep(max(0.0, tick - time.monotonic()))


def test_many_sockets_from_one_address_share_one_budget(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # 16 players with 8 tabs each from another address, each socket under its own rate:
    # about 2,400 events a second together, far over the 100 that one address may send.
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda s: True)
    sockets = [
        RawWebSocket.joined(server.port, cookie, source="127.0.0.2")
        for cookie in (session_cookie(server.url) for _ in range(16))
        for _ in range(8)
    ]
    report: dict[str, int] = {}
    started = time.monotonic()
    attacker = threading.Thread(target=spread, args=(sockets, 6.0, report))
    attacker.start()
    time.sleep(0.5)
    during = hints_answered(bystander)
    attacker.join()
    answered = 0
    for raw in sockets:
        raw.sock.settimeout(0.01)
        with contextlib.suppress(OSError):
            for text in raw.texts():
                answered += text.startswith("431[")
    elapsed = time.monotonic() - started
    for raw in sockets:
        raw.close()
    # The address's events were handled at its shared rate (2 s of burst), the rest wait.
    assert answered <= 100 * elapsed + 200 + 50, (answered, elapsed, report)
    assert report["sent"] > 5 * answered, (answered, report)
    assert all_answered(during), during
    assert bystander.connected
    bystander.close()


def test_a_player_cut_off_for_flooding_waits_out_a_cooldown(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    raw = RawWebSocket.joined(server.port, cookie)
    with contextlib.suppress(OSError):
        for _ in range(20):
            raw.sock.sendall(RawWebSocket.frame('42["hint",{}]') * 100)
    assert hung_up(raw)
    with pytest.raises(Refused) as refused:
        Player(server.url, cookie)
    assert refused.value.data["code"] == "cooldown"
    Player(server.url, session_cookie(server.url)).close()  # other players are not kept out


def test_unreadable_packets_get_a_problem_then_a_disconnect(server: ServerProcess) -> None:
    raw = RawWebSocket.joined(server.port, session_cookie(server.url))
    raw.send_text("42[broken")
    problem = next(text for text in raw.texts() if text.startswith("42"))
    assert json.loads(problem[2:]) == [
        "problem",
        {"code": "bad_packet", "message": "unreadable packet"},
    ]
    log_before = len(server.log_tail(1 << 20))
    with contextlib.suppress(OSError):
        for _ in range(200):
            raw.send_text("42[broken")
    assert hung_up(raw)
    log = server.log_tail(1 << 20)[log_before:]
    assert log.count("unreadable packets") <= 2 and "Traceback" not in log
    assert len(log) < 2000


# --- reserved names ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["connect", "disconnect", "connect_error", "*"])
def test_reserved_event_names_are_unknown_events(play: Actions, name: str) -> None:
    before = play.state["version"]
    ack = play.emit(name, {})
    assert ack["ok"] is False and ack["error"]["code"] == "unknown_event"
    assert states(play.sock) == [] and play.state["version"] == before


def test_a_disconnect_event_does_not_reset_the_rate_limit(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_PER_SECOND": 1.0}
    app = create_app({"TESTING": True, **settings, "RATE_BURST": 4})
    client = app.test_client()
    client.get("/")
    sock = connect(app, client)
    codes = []
    for name in ("hint", "disconnect", "hint", "disconnect", "hint", "hint"):
        ack = sock.emit(name, {}, callback=True)
        codes.append(ack.get("error", {}).get("code"))
    assert codes[-1] == "rate_limited" and "rate_limited" in codes[3:]


# --- slow clients ------------------------------------------------------------------------------


def test_slow_request_heads_are_cut_off_and_others_are_served(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory(TICTACTOE_HEADER_TIMEOUT="2")
    slow = []
    for _ in range(200):  # each sends its head a byte at a time, never finishing
        conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        slow.append(conn)
    get(server.url + "/")  # served meanwhile
    deadline = time.monotonic() + 8
    still_open = len(slow)
    while still_open and time.monotonic() < deadline:
        still_open = 0
        for conn in slow:
            with contextlib.suppress(OSError):
                conn.sendall(b"X")  # a trickle that would keep an unlimited server waiting
                conn.settimeout(0.01)
                try:
                    still_open += conn.recv(1) != b""
                except TimeoutError:
                    still_open += 1
        time.sleep(0.5)
    assert still_open == 0
    get(server.url + "/healthz")


def test_a_connection_that_never_joins_is_closed(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory(TICTACTOE_HANDSHAKE_TIMEOUT="1")
    raw = RawWebSocket(server.port)  # opens Engine.IO, never sends Socket.IO's connect
    assert raw.close_code() == 1000
    assert raw.sock.recv(1) == b""  # and the server hung up, not waiting for our reply


def test_idle_players_are_never_dropped(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(TICTACTOE_HEADER_TIMEOUT="1", TICTACTOE_HANDSHAKE_TIMEOUT="1")
    player = Player(server.url, session_cookie(server.url))
    time.sleep(4)  # several header and handshake timeouts pass
    assert player.connected and player.call("hint")["ok"]
    player.close()


def test_requests_that_are_not_http_do_not_fill_the_log(server: ServerProcess) -> None:
    before = len(server.log_tail(1 << 24))
    for _ in range(300):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn:
            conn.sendall(b"NOT HTTP " + b"x" * 4000 + b"\r\n\r\n")
            assert conn.recv(64).startswith(b"HTTP/1.1 400")
    grown = server.log_tail(1 << 24)[before:]
    assert len(grown) < 2000, len(grown)
    assert grown.count("bad HTTP requests") == 1
    get(server.url + "/healthz")


Round = tuple[list[float], dict[str, int]]  # the bystander's calls, the flood's report


def odds_flood_round(
    bystander: Player,
    server: ServerProcess,
    cookies: list[str],
    payloads: list[dict[str, Any]],
    event: str = "odds",
    probe: Callable[[], object] | None = None,
) -> Round:
    """The durations of the bystander's ``hint`` (or ``probe``) calls, each answered, while
    each of ``cookies`` sends ``event`` with ``payloads`` (odds of new rule sets, or new
    targets) for 5 s from a child process; and the flood's report."""
    ask = probe or (lambda: answered_hint(bystander))
    spawn = multiprocessing.get_context("spawn")
    told = spawn.Queue()
    flood = spawn.Process(
        target=odds_flood, args=(server.port, cookies, payloads, 5.0, told, event)
    )
    flood.start()
    try:
        assert told.get(timeout=30) == "started"
        during: list[float] = []
        while flood.is_alive():
            during += timed_calls(ask, 0.5, pause=PAUSE_SECONDS)
            with contextlib.suppress(queue.Empty):
                report = told.get_nowait()
                break
        else:
            report = told.get(timeout=30)
    finally:
        flood.join(30)
        flood.kill()
    return during, report


def others_answered(one_round: Callable[[int], Round], *, answered: int) -> None:
    """One round of ``one_round``: every call of the bystander was answered within
    ``ANSWER_SECONDS``, and the flooders have ``answered`` answers at least, if slowly."""
    during, report = one_round(0)
    assert report["answered"] >= answered, report  # the askers are answered, if slowly
    assert all_answered(during), (during, report)


def on_new_servers(
    server_factory: Callable[..., ServerProcess], payloads: list[dict[str, Any]], event: str
) -> Callable[[int], Round]:
    """A round on a new server (nothing cached or counted yet): 16 connections, from
    addresses of their own, send ``event`` with ``payloads`` in the round's own order
    while a bystander asks for hints."""

    def one_round(seed: int) -> Round:
        server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
        bystander = Player(server.url, session_cookie(server.url))
        bystander.wait_for(lambda s: True)
        cookies = [session_cookie(server.url) for _ in range(16)]
        shuffled = list(payloads)
        random.Random(seed).shuffle(shuffled)
        found = odds_flood_round(bystander, server, cookies, shuffled, event=event)
        assert bystander.connected
        bystander.close()
        return found

    return one_round


def test_sixteen_connections_asking_for_odds_slow_only_themselves(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Each from an address of its own, so that only the odds' own limits hold them back;
    # bench/attack.py measures how little the bystander is slowed.
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda s: True)
    cookies = [session_cookie(server.url) for _ in range(16)]

    def one_round(n: int) -> Round:
        ai_hp = 1000 - 10 * n  # new rule sets each round
        sets = [{"rules": numbers} for numbers in hard_rule_sets(150, ai_hps=(ai_hp,))]
        return odds_flood_round(bystander, server, cookies, sets)

    others_answered(one_round, answered=16)
    assert bystander.connected
    bystander.close()


def test_sixteen_connections_asking_for_targets_slow_only_themselves(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # As the odds above, but each of 16 connections previews every target from 0 to 1, in
    # its own order: the tunes, none done before in a new server, take the odds' budget
    # and share.
    targets = [{"target": n / 100, "check": True} for n in range(101)] * 3
    one_round = on_new_servers(server_factory, targets, "new_match")
    others_answered(one_round, answered=16)


def test_sixteen_connections_opening_the_lab_slow_only_themselves(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Each of 16 connections (from addresses of their own) opens the empty board's root in
    # the lab again and again, its costliest node (over 16,000 positions searched), as fast
    # as the rate limit lets it. Its work pauses and is paid from the connection's budget,
    # so a bystander's hint is served as quickly as before.
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda s: True)
    cookies = [session_cookie(server.url) for _ in range(16)]
    opened = [{"board": ".........", "scoring": scoring} for scoring in ("depth", "result")]

    def one_round(n: int) -> Round:
        return odds_flood_round(bystander, server, cookies, opened * 1000, event="lab_children")

    others_answered(one_round, answered=16)
    assert bystander.connected
    bystander.close()


def costly_counts() -> list[dict[str, Any]]:
    """``lab_counts`` of positions with 7 to 9 empty cells at depth limits of 3 and 4, each
    scoring: none shipped, each counted on demand (up to some tens of milliseconds)."""
    boards = [".........", *(f"{'.' * x}X{'.' * (8 - x)}" for x in range(9))]
    for x in range(9):
        for o in range(9):
            if o != x:
                cells = ["."] * 9
                cells[x], cells[o] = "X", "O"
                boards.append("".join(cells))
    return [
        {"board": board, "scoring": scoring, "depth": depth}
        for depth in (4, 3)
        for board in boards
        for scoring in ("share", "depth", "result", "empties")
    ]


def test_sixteen_connections_counting_the_lab_slow_only_themselves(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Each of 16 connections asks for the counts of positions not asked for before, at
    # depth limits the server counts on demand: eight searches per answer, some tens of
    # milliseconds. They pause and keep to the process's share as the lab's other answers
    # do, so a bystander's hint is served as quickly as before.
    one_round = on_new_servers(server_factory, costly_counts(), "lab_counts")
    others_answered(one_round, answered=16)


def test_connections_jumping_through_the_lab_do_not_hold_up_others_odds(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # Each of 8 connections (from addresses of their own) jumps to the last step of the
    # empty board's plain minimax, then back to the first: a whole search each time, about
    # 2 s of work, paused to keep to the process's share. Another player asking for the
    # odds of the classic rules (answered from the cache, in a millisecond) took 29 to 34 s
    # when each answer held the turn until it was done; now the walks take turns at each
    # pause.
    server = server_factory(TICTACTOE_NEW_PLAYERS_PER_MINUTE="0")
    bystander = Player(server.url, session_cookie(server.url))
    bystander.wait_for(lambda s: True)

    def odds() -> None:
        ack = bystander.client.call("odds", {"preset": "classic"}, timeout=60)
        assert ack["ok"], ack

    odds()  # cached from here on
    cookies = [session_cookie(server.url) for _ in range(8)]
    jumps = [{"board": ".........", "start": start, "size": 1} for start in (1_649_836, 0)]

    def one_round(n: int) -> Round:
        return odds_flood_round(
            bystander, server, cookies, jumps * 20, event="lab_page", probe=odds
        )

    others_answered(one_round, answered=0)
    assert bystander.connected
    bystander.close()
