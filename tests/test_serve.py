"""The process side: checks before starting, gunicorn's arbiter, workers, signals, the key."""

from __future__ import annotations

import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.testing import (
    HOST,
    Player,
    RawWebSocket,
    ServerProcess,
    free_port,
    healthy,
    refused_start,
    session_cookie,
    wait_until,
)

from webapp.server.process.serve import RespawnPacer

TICTACTOE = str(Path(sys.executable).parent / "tictactoe")
START_LIMIT_SECONDS = 10


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The only line of stderr, which must name the cause; no traceback."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tictactoe serve: error: ")
    return lines[0]


def test_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = refused_start(tmp_path, "--port", str(port))
    assert f"cannot listen on {HOST}:{port}: already in use" in one_error_line(done)


def test_data_dir_that_cannot_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    done = refused_start(tmp_path / "file" / "data", "--port", str(free_port()))
    line = one_error_line(done)
    assert "data dir" in line and "not writable" in line


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory that even root cannot write in (immutable)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    if subprocess.run(["chattr", "+i", str(locked)], capture_output=True).returncode != 0:
        pytest.skip("this filesystem has no immutable attribute")
    yield locked
    subprocess.run(["chattr", "-i", str(locked)], check=True)


def test_unwritable_data_dir_is_one_clear_line(read_only_dir: Path) -> None:
    done = refused_start(read_only_dir, "--port", str(free_port()))
    line = one_error_line(done)
    assert str(read_only_dir) in line and "not writable" in line


@pytest.mark.parametrize("content", ["", "\n", "short"])
def test_empty_or_damaged_key_file_is_one_clear_line(tmp_path: Path, content: str) -> None:
    (tmp_path / "secret_key").write_text(content)
    line = one_error_line(refused_start(tmp_path, "--port", str(free_port())))
    assert "secret key file" in line and "empty or damaged" in line
    assert (tmp_path / "secret_key").read_text() == content  # never replaced silently


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TICTACTOE_PORT", "http"),
        ("TICTACTOE_AI_DELAY_MS", "-1"),
        ("TICTACTOE_TRUST_PROXY", "maybe"),
    ],
)
def test_bad_setting_is_one_clear_line(tmp_path: Path, variable: str, value: str) -> None:
    line = one_error_line(refused_start(tmp_path, **{variable: value}))
    assert f"{variable}={value!r} is not valid" in line


def test_unreachable_redis_is_one_clear_line(tmp_path: Path) -> None:
    url = f"redis://{HOST}:{free_port()}/0"
    done = refused_start(tmp_path, "--port", str(free_port()), TICTACTOE_REDIS_URL=url)
    assert f"cannot reach Redis at {url}" in one_error_line(done)


def test_a_leftover_gevent_websocket_is_one_clear_line() -> None:
    from webapp.server.process.preflight import StartupError, check_websocket_server

    check_websocket_server(lambda name: None)  # not installed: nothing to say
    with pytest.raises(StartupError, match="pip uninstall gevent-websocket"):
        check_websocket_server(lambda name: object())


def test_key_is_created_private(server: ServerProcess) -> None:
    key = server.data_dir / "secret_key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}", key.read_text())
    assert server.data_dir.stat().st_mode & 0o077 == 0


# --- a running arbiter ---------------------------------------------------------------------


def test_one_worker_runs_under_the_arbiter(server: ServerProcess) -> None:
    assert len(server.workers()) == 1
    assert "Starting gunicorn" in server.log_tail()


def wait_for_new_worker(server: ServerProcess, old: set[int], count: int = 1) -> set[int]:
    """Wait until ``count`` workers run, none of them in ``old``."""

    def replaced() -> bool:
        now = set(server.workers())
        return len(now) == count and not now & old

    wait_until(replaced, 20, "a replacement worker")
    wait_until(lambda: healthy(server.url), 10, "the replacement answering")
    return set(server.workers())


def play_one_move(player: Player) -> dict[str, object]:
    """Play the first empty cell and wait for the AI's answer; the state after it."""
    state = player.human_turn()
    assert player.move(str(state["board"]).index(".")) == {"ok": True}
    version = int(state["version"])  # type: ignore[call-overload]
    return player.wait_for(lambda s: s["version"] > version and s["turn"] != "ai")


def test_killed_worker_is_replaced_and_the_player_resumes(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    before = play_one_move(player)
    (worker,) = server.workers()
    os.kill(worker, signal.SIGKILL)
    wait_for_new_worker(server, {worker})
    again = Player(server.url, cookie)
    assert again.wait_for(lambda s: True) == before
    assert f"Worker (pid:{worker}) was sent SIGKILL" in server.log_tail()
    again.close()


def test_a_worker_that_keeps_dying_is_replaced_about_once_a_second(server: ServerProcess) -> None:
    killed: set[int] = set()
    started = time.monotonic()
    while time.monotonic() - started < 4:
        for pid in set(server.workers()) - killed:
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        time.sleep(0.01)
    # Killed at once each time, for 4 s: at most one replacement a second got through.
    assert 2 <= len(killed) <= 6
    wait_until(lambda: healthy(server.url), 10, "a worker answering again")


def test_stuck_worker_is_replaced(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(TICTACTOE_WORKER_TIMEOUT="2")
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    before = play_one_move(player)
    (worker,) = server.workers()
    os.kill(worker, signal.SIGSTOP)  # alive, but it answers no one, the arbiter included
    wait_for_new_worker(server, {worker})
    again = Player(server.url, cookie)
    assert again.wait_for(lambda s: True) == before
    assert "WORKER TIMEOUT" in server.log_tail()
    again.close()


def test_sigterm_with_players_connected_stops_everything(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    players = [Player(server.url, cookie) for _ in range(3)]
    for player in players:
        player.wait_for(lambda s: True)
    processes = server.pids()
    started = time.monotonic()
    assert server.stop(timeout=10) == 0
    assert time.monotonic() - started < 6
    wait_until(lambda: not any(p.connected for p in players), 5, "the sockets closing")
    assert not any(Path(f"/proc/{pid}").exists() for pid in processes)


def test_sigterm_closes_an_idle_websocket_with_a_close_frame(server: ServerProcess) -> None:
    raw = RawWebSocket.joined(server.port, session_cookie(server.url))
    time.sleep(0.5)  # parked, with no greenlet that the worker would wait for
    server.signal(signal.SIGTERM)
    assert raw.close_code() == 1000
    raw.close()


def test_an_idle_keep_alive_connection_does_not_hold_a_stop(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # A reverse proxy keeps connections open between requests. gunicorn would wait for an
    # idle one until its keep-alive timeout or the grace period ends: here two minutes and one.
    server = server_factory(TICTACTOE_STOP_SECONDS="60", TICTACTOE_HEADER_TIMEOUT="120")
    idle = http.client.HTTPConnection(HOST, server.port, timeout=30)
    idle.request("GET", "/healthz")
    reply = idle.getresponse()
    reply.read()
    assert reply.status == 200 and not reply.will_close, "the connection is kept open"
    assert server.process is not None
    server.signal(signal.SIGTERM)
    wait_until(lambda: server.process.poll() is not None, 20, "the server stopping")
    assert server.process.returncode == 0
    with pytest.raises((http.client.HTTPException, OSError)):  # closed by the server
        idle.request("GET", "/healthz")
        idle.getresponse()
    idle.close()


def test_sighup_reloads_the_workers(server: ServerProcess) -> None:
    cookie = session_cookie(server.url)
    player = Player(server.url, cookie)
    before = play_one_move(player)
    old = set(server.workers())
    server.signal(signal.SIGHUP)
    wait_for_new_worker(server, old)
    wait_until(lambda: not player.connected, 10, "the old worker's socket closing")
    again = Player(server.url, cookie)
    assert again.wait_for(lambda s: True) == before
    assert server.process is not None and server.process.poll() is None
    again.close()


def test_twenty_fresh_starts_with_two_workers_share_one_key(tmp_path: Path, redis_url: str) -> None:
    for start in range(20):
        data_dir = tmp_path / f"fresh-{start}"
        env = {"TICTACTOE_REDIS_URL": redis_url, "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0"}
        server = ServerProcess(data_dir, env, ("--workers", "2"))
        server.start()
        try:
            wait_until(lambda s=server: len(s.workers()) == 2, 10, "two workers")  # type: ignore[misc]
            statuses = {urlopen_status(server.url + "/") for _ in range(10)}
            assert statuses == {200}, statuses
            cookie = session_cookie(server.url)
            players = [Player(server.url, cookie) for _ in range(4)]  # over both workers
            for player in players:
                player.close()
            names = sorted(p.name for p in data_dir.iterdir() if "key" in p.name)
            assert names == ["secret_key", "signing_key"]
            keys = {urlopen_text(server.url + "/.well-known/tictactoe-keys.json") for _ in range(6)}
            assert len(keys) == 1, keys  # both workers publish (and sign with) the one key
        finally:
            assert server.stop() == 0


def urlopen_status(url: str) -> int:
    """The status of GET ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def urlopen_text(url: str) -> str:
    """The body of GET ``url``."""
    with urllib.request.urlopen(url, timeout=5) as reply:
        return bytes(reply.read()).decode()


def test_workers_given_a_key_never_write_one(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(
        TICTACTOE_SECRET_KEY=secrets.token_hex(32), TICTACTOE_SIGNING_KEY=secrets.token_hex(32)
    )
    assert urlopen_status(server.url + "/") == 200
    assert not (server.data_dir / "secret_key").exists()
    assert not (server.data_dir / "signing_key").exists()


# --- the respawn pacer, without processes --------------------------------------------------


def test_pacer_starts_the_first_workers_at_once() -> None:
    waits: list[float] = []
    pacer = RespawnPacer(1.0, clock=lambda: 100.0, sleep=waits.append)
    for _ in range(4):
        pacer.before_fork()
    assert waits == []


def test_pacer_spaces_replacements_a_second_apart() -> None:
    now = [100.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    pacer = RespawnPacer(1.0, clock=lambda: now[0], sleep=sleep)
    pacer.before_fork()
    for _ in range(3):
        now[0] += 0.25  # the worker died a quarter of a second after it started
        pacer.worker_died()
        pacer.before_fork()
    assert waits == [0.75, 0.75, 0.75]


def test_idle_websockets_count_among_a_workers_connections(
    server_factory: Callable[..., ServerProcess],
) -> None:
    server = server_factory(TICTACTOE_WORKER_CONNECTIONS="10")  # the least it takes
    cookies = [session_cookie(server.url) for _ in range(2)]  # 8 sockets a player at most
    held = [Player(server.url, cookies[n % 2]) for n in range(10)]
    for player in held:
        assert player.wait_for(lambda state: state["version"] >= 0)
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        urllib.request.urlopen(server.url + "/healthz", timeout=1.5)  # waits to be accepted
    held.pop().close()
    wait_until(lambda: healthy(server.url), 5, "a place given back by a closed websocket")
    for player in held:
        assert player.connected
        player.close()


def test_a_text_message_that_is_not_utf8_closes_with_1007(server: ServerProcess) -> None:
    raw = RawWebSocket.joined(server.port, session_cookie(server.url))
    raw.sock.sendall(RawWebSocket.header(0x1, 4) + b"42\xff\xfe")
    assert raw.close_code() == 1007
    raw.close()
    player = Player(server.url, session_cookie(server.url))  # others are served as before
    assert player.wait_for(lambda state: state["version"] >= 0)
    player.close()
