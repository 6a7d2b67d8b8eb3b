"""Shared fixtures: the app in-process, protocol clients, and a real server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_socketio import SocketIO, SocketIOTestClient

from webapp.app import create_app
from webapp.board import Board

# The published counts of the whole game tree, which the engine must reproduce.
TREE_STATS = {
    "positions": 5_478,
    "positions_symmetric": 765,
    "terminal": 958,
    "terminal_symmetric": 138,
    "games": 255_168,
    "x_wins": 131_184,
    "o_wins": 77_904,
    "draws": 46_080,
    "tree_nodes": 549_946,
}
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"


@cache
def reachable_positions() -> dict[str, Board]:
    """Every position reachable from the empty board by legal moves (breadth first)."""
    seen = {Board().cells: Board()}
    layer = [Board()]
    while layer:
        following = []
        for board in layer:
            for cell in board.legal_moves():
                child = board.apply_move(cell)
                if child.cells not in seen:
                    seen[child.cells] = child
                    following.append(child)
        layer = following
    return seen


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    """The app with a temp data dir, no AI pause, a seeded generator and room for bursts."""
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 7, "RATE_BURST": 10_000}
    return create_app({"TESTING": True, **settings})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A Flask test client that has loaded the page, so it holds a session cookie."""
    flask_client = app.test_client()
    assert flask_client.get("/").status_code == 200
    return flask_client


@pytest.fixture
def socket_client(app: Flask, client: FlaskClient) -> Iterator[SocketIOTestClient]:
    """A Socket.IO test client sharing the Flask client's cookies (the same player)."""
    connected = connect(app, client)
    yield connected
    if connected.is_connected():
        connected.disconnect()


def connect(app: Flask, client: FlaskClient) -> SocketIOTestClient:
    """Open one more socket for the player behind ``client``."""
    socketio: SocketIO = app.extensions["socketio"]
    return socketio.test_client(app, flask_test_client=client)


def player_of(client: FlaskClient) -> str:
    """The player id in the client's session cookie."""
    with client.session_transaction() as sess:
        return str(sess["player"])


def states(sock: SocketIOTestClient) -> list[dict[str, Any]]:
    """The ``state`` snapshots received since the last call, oldest first."""
    return [e["args"][0] for e in sock.get_received() if e["name"] == "state"]


class Actions:
    """Small helpers to drive one player through the protocol."""

    def __init__(self, sock: SocketIOTestClient) -> None:
        self.sock = sock
        self.state: dict[str, Any] = {}
        self.refresh()

    def refresh(self) -> dict[str, Any]:
        """Read pending snapshots and keep the newest."""
        for snapshot in states(self.sock):
            self.state = snapshot
        return self.state

    def emit(self, event: str, payload: object = None) -> dict[str, Any]:
        """Send one event and return its acknowledgement."""
        args = () if payload is None else (payload,)
        ack = self.sock.emit(event, *args, callback=True)
        self.refresh()
        return ack  # type: ignore[no-any-return]

    def new_match(self, **settings: object) -> dict[str, Any]:
        """Start a new match; returns the ack."""
        return self.emit("new_match", settings)

    def play(self, cells: list[int]) -> dict[str, Any]:
        """Play ``cells`` in turn (the AI replies between them); returns the last state."""
        for cell in cells:
            ack = self.emit("move", {"cell": cell})
            assert ack == {"ok": True}, ack
        return self.state

    def play_out(self, choose: Callable[[dict[str, Any]], int] | None = None) -> dict[str, Any]:
        """Finish the current game, playing the first empty cell (or ``choose``'s pick)."""
        while self.state["turn"] == "human":
            pick = choose(self.state) if choose else self.state["board"].index(".")
            self.play([pick])
        return self.state


@pytest.fixture
def play(socket_client: SocketIOTestClient) -> Actions:
    """Protocol actions for the ``socket_client`` player."""
    return Actions(socket_client)


# --- a real server process ------------------------------------------------------


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """``tictactoe serve`` in a child process on a fixed port and data dir."""

    def __init__(self, data_dir: Path, env: dict[str, str], args: tuple[str, ...] = ()) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.env = {
            **os.environ,
            "TICTACTOE_DATA_DIR": str(data_dir),
            "TICTACTOE_AI_DELAY_MS": "0",
            **env,
        }
        self.args = args
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    def start(self) -> None:
        """Start the server and wait until it answers /healthz."""
        command = [str(Path(sys.executable).parent / "tictactoe"), "serve"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), *self.args]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not become healthy in 20 s")

    def kill(self) -> None:
        """Kill -9 the server, as a crash would."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> None:
        """Kill the server and start it again on the same port and data dir."""
        self.kill()
        self.start()

    def stop(self) -> None:
        """Stop the server politely, then firmly."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def server_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., ServerProcess]]:
    """Start real servers with extra arguments and environment; all are stopped afterwards."""
    started: list[ServerProcess] = []

    def start(*args: str, **env: str) -> ServerProcess:
        server = ServerProcess(tmp_path_factory.mktemp("server"), env, args)
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(server_factory: Callable[..., ServerProcess]) -> ServerProcess:
    """A real server process on a free port with a temp data dir and no AI pause."""
    return server_factory()


# --- the browser ----------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium, headless, with no background traffic."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where the suite writes screenshots for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
