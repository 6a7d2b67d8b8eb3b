"""Helpers that the tests and the benchmarks share: ports, server and Redis processes, a
protocol client, percentiles, and the game-tree facts the engine must reproduce.

Nothing here runs in production. The protocol client needs python-socketio's client
(the ``test`` extra), imported only when a ``Player`` is made.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from http.cookiejar import CookieJar
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from webapp import __version__
from webapp.game.board import Board
from webapp.game.rules import MatchError, rules_from
from webapp.server.store import books

if TYPE_CHECKING:
    pass

HOST = "127.0.0.1"
START_SECONDS = 30.0

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


# Ports handed to the tests' servers: below the kernel's ephemeral ports (32768 up), which
# it gives to every outgoing connection and to a bind of port 0, and a range of its own
# for each pytest-xdist worker. A port the kernel chose for one worker's probe could be
# chosen for another's before the first server bound it: the second test would then
# talk to the first one's server, with its settings, until it stopped.
PORTS_FROM = 20_000
PORTS_PER_WORKER = 1_500
_next_port = itertools.count(random.randrange(PORTS_PER_WORKER))  # two runs at once differ


def early_in_a_clock_minute(seconds: float = 15.0) -> None:
    """Wait, if need be, for a clock minute with ``seconds`` still to run: the counts per
    minute (new players, whole histories, the Train page's requests) start again with
    each one, and a test that counts up to a limit must not straddle two."""
    left = 60 - time.time() % 60
    if left < seconds:
        time.sleep(left + 0.05)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now, not handed out before in this
    run (until the worker's range wraps), nor to any other worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    first = PORTS_FROM + (int(worker) if worker.isdigit() else 0) * PORTS_PER_WORKER
    for _ in range(PORTS_PER_WORKER):
        port = first + next(_next_port) % PORTS_PER_WORKER
        with socket.socket() as probe:
            try:
                probe.bind((HOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port from {first} to {first + PORTS_PER_WORKER - 1}")


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def wait_until(ready: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``ready`` until it is true; raise TimeoutError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {seconds:g} s")
        time.sleep(0.05)


# --- processes -----------------------------------------------------------------------


class Processes:
    """The server and Redis processes the tests have started, counted for the run's
    summary; refused, with ``refused`` saying why, while a test of the in-process tier
    runs (tests/conftest.py sets it)."""

    started: ClassVar[dict[str, int]] = {}
    refused: ClassVar[str | None] = None

    @classmethod
    def starting(cls, kind: str) -> None:
        """Count one more ``kind`` (server, redis), or refuse it in an in-process test."""
        if cls.refused is not None:
            raise RuntimeError(f"a {kind} process in an in-process test: {cls.refused}")
        cls.started[kind] = cls.started.get(kind, 0) + 1


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, from /proc."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return tree


def healthy(url: str) -> bool:
    """Whether the server at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def answering(url: str) -> bool:
    """Whether the server at ``url`` answers its health check at all (503 included)."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


@cache
def built_books() -> Path:
    """Every variant's opening book, built once for the test run (about 10 s) in a data
    dir of its own, shared by the run's parallel workers: the first builds it under a
    lock, the others wait and copy. The dir is named by the code that builds the books,
    so a change to it builds them again."""
    import fcntl
    import hashlib
    import tempfile

    from webapp.game import book, position, solver, variant
    from webapp.server.process.preflight import open_books

    code = b"".join(Path(m.__file__ or "").read_bytes() for m in (book, position, solver, variant))
    tag = hashlib.sha256(code).hexdigest()[:16]
    data_dir = Path(tempfile.gettempdir()) / f"tictactoe-test-books-{os.getuid()}-{tag}"
    data_dir.mkdir(mode=0o700, exist_ok=True)
    with open(data_dir / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done = data_dir / "built"
        if not done.exists():
            open_books(data_dir)
            done.touch()
    return data_dir / books.BOOKS_DIR


def seed_books(data_dir: Path) -> None:
    """Give a new data dir the books a first start would build, so that the server loads
    them instead (as every later start of a real server does)."""
    if not (data_dir / books.BOOKS_DIR).exists():
        shutil.copytree(built_books(), data_dir / books.BOOKS_DIR)


class ServerProcess:
    """``tictactoe serve`` (or any ``command``) in a child process on a port and data dir."""

    def __init__(
        self,
        data_dir: Path,
        env: Mapping[str, str] | None = None,
        args: tuple[str, ...] = (),
        *,
        command: list[str] | None = None,
        port: int | None = None,
        url: str | None = None,
    ) -> None:
        self.port = port or free_port()
        self.url = url or f"http://{HOST}:{self.port}"
        self.data_dir = data_dir
        self.env = {
            **os.environ,
            "TICTACTOE_DATA_DIR": str(data_dir),
            "TICTACTOE_AI_DELAY_MS": "0",
            **(env or {}),
        }
        tictactoe = str(Path(sys.executable).parent / "tictactoe")
        default = [tictactoe, "serve", "--host", HOST, "--port", str(self.port)]
        self.command = [*(command or default), *args]
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    def start(
        self, *, seconds: float = START_SECONDS, ready: Callable[[str], bool] = healthy
    ) -> None:
        """Start the server and wait until it answers /healthz (``ready``: until that says
        so, e.g. ``answering`` for a server that may start failing)."""
        Processes.starting("server")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        seed_books(self.data_dir)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + seconds
        while not ready(self.url):
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"server did not answer in {seconds:g} s: {self.log_tail()}")
            time.sleep(0.05)

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's output."""
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def pids(self) -> list[int]:
        """The server's processes: the arbiter and its workers."""
        return process_tree(self.process.pid) if self.process else []

    def workers(self) -> list[int]:
        """The worker processes, without the arbiter."""
        return self.pids()[1:]

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the server (the arbiter)."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signum)

    def kill(self) -> None:
        """Kill -9 the server and all its workers, as a crash of the host would."""
        if self.process and self.process.poll() is None:
            for pid in reversed(self.pids()):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> None:
        """Kill the server and start it again on the same port and data dir."""
        self.kill()
        self.start()

    def stop(self, timeout: float = 10) -> int | None:
        """Stop the server politely, then firmly; return its exit status."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode if self.process else None

    def stop_soon(self) -> None:
        """Ask the server to stop, politely, without waiting: a test done with it goes on
        while it winds down (its worker sleeps up to a second between looks at the
        signal). ``Stopping.wait`` waits for all of them at the end of the run."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            # Those gone are reaped now, the rest at the end.
            going = [s for s in Stopping.pending if s.process and s.process.poll() is None]
            Stopping.pending[:] = [*going, self]


class Stopping:
    """Servers asked to stop by ``stop_soon``, not yet seen gone."""

    pending: ClassVar[list[ServerProcess]] = []

    @classmethod
    def wait(cls, timeout: float = 10) -> None:
        """Wait for each pending server to end, killing those that outlast ``timeout``."""
        while cls.pending:
            server = cls.pending.pop()
            try:
                if server.process is not None:
                    server.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                server.kill()


class RedisServer:
    """A private redis-server on a free port, by default without persistence.

    ``bind`` adds addresses to loopback's; with ``protected`` off it answers clients on
    them without a password, as Redis shared by hosts on a private network must.
    ``settings`` are more of redis.conf's lines (``{"appendonly": "yes"}``), laid over
    these; ``password`` sets ``requirepass`` and goes in the URL. Started again on the
    same ``port`` and ``workdir``, it finds what it kept.
    """

    def __init__(
        self,
        workdir: Path,
        *,
        bind: tuple[str, ...] = (),
        protected: bool = True,
        settings: Mapping[str, str] | None = None,
        password: str | None = None,
        port: int | None = None,
    ) -> None:
        self.port = port or free_port()
        self.workdir = workdir
        auth = f":{urllib.parse.quote(password, safe='')}@" if password else ""
        self.url = f"redis://{auth}{HOST}:{self.port}/0"
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        options = {"save": "", "appendonly": "no", **(settings or {})}
        if password:
            options["requirepass"] = password
        self.command = [binary, "--bind", HOST, *bind, "--port", str(self.port)]
        for name, value in options.items():
            self.command += [f"--{name}", value]
        self.command += ["--dir", str(workdir)]
        self.command += ["--protected-mode", "yes" if protected else "no"]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start it and wait until it answers; returns its URL."""
        Processes.starting("redis")
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )

        def answers() -> bool:
            import redis

            client = redis.Redis.from_url(self.url, socket_timeout=0.5)
            try:
                return bool(client.ping())  # not while it still loads its files
            except (redis.RedisError, OSError):
                return False
            finally:
                client.close()

        wait_until(answers, 10, "redis-server answering")
        return self.url

    def stop(self) -> None:
        """Stop it."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def kill(self) -> None:
        """Kill -9 it, as a crash, an out-of-memory kill or a power cut would."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


# --- a protocol client -------------------------------------------------------------------


def session_cookie(url: str, kept: str = "") -> str:
    """Load the page like a browser (one that sends the Cookie header ``kept``, if any)
    and return the Cookie header it would send."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = urllib.request.Request(url + "/", headers={"Cookie": kept} if kept else {})
    with opener.open(page) as reply:
        assert reply.status == 200
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def request_from(
    source: str,
    url: str,
    path: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
) -> tuple[int, http.client.HTTPMessage, str]:
    """One HTTP request from client address ``source`` (127.x.y.z), as another client
    would send it; its status, headers and body (a redirect is not followed)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(
        parts.hostname or HOST, parts.port, timeout=10, source_address=(source, 0)
    )
    try:
        conn.request(method, path, headers=dict(headers or {}))
        reply = conn.getresponse()
        return reply.status, reply.headers, reply.read().decode()
    finally:
        conn.close()


def cookie_from(source: str, url: str) -> str:
    """A new player's Cookie header, their page loaded from client address ``source``."""
    status, headers, _ = request_from(source, url, "/")
    assert status == 200, status
    return "; ".join(c.split(";", 1)[0] for c in headers.get_all("Set-Cookie") or [])


def new_room_from(source: str, url: str, cookie: str) -> tuple[int, str, str]:
    """``POST /r`` from client address ``source`` as the page's form: the status, the
    room's id or the refusal's code, and the refusal's Retry-After ("" if none)."""
    headers = {"Cookie": cookie, "Origin": url, "Content-Length": "0"}
    status, found, body = request_from(source, url, "/r", method="POST", headers=headers)
    if status == 303:
        return status, found["Location"].rsplit("/", 1)[1], ""
    code = body.split('data-code="', 1)[1].split('"', 1)[0] if "data-code" in body else ""
    return status, code, found.get("Retry-After", "")


def local_room_from(source: str, port: int, cookie: str) -> dict[str, Any]:
    """``room_join`` of the player's room on one device, from client address ``source``:
    the ack."""
    raw = RawWebSocket.joined(port, cookie, source=source)
    try:
        raw.send_text("421" + json.dumps(["room_join", {"room": "local"}]))
        for text in raw.texts():
            if text.startswith("431"):
                return dict(json.loads(text[3:])[0])
        raise ConnectionError("the socket closed before the ack")
    finally:
        raw.close()


def delete_everything(url: str, cookie: str) -> int:
    """Delete everything about the player of ``cookie``, as the History page does; the status."""
    request = urllib.request.Request(
        url + "/history/forget", method="POST", headers={"Cookie": cookie, "Origin": url}
    )
    with urllib.request.urlopen(request) as reply:
        return int(reply.status)


class Refused(ConnectionError):
    """The server refused the Socket.IO connection; ``data`` is what it said why."""

    def __init__(self, refusal: dict[str, Any]) -> None:
        super().__init__(refusal.get("message", "refused"))
        self.data: dict[str, Any] = refusal.get("data") or {}


class Player:
    """One websocket connection of a player that keeps every state it was sent.

    A refused connection raises ``Refused`` with the server's reason; a failed handshake
    (an Origin turned away) raises python-socketio's ConnectionError.
    """

    def __init__(
        self, url: str, cookie: str, *, release: str = __version__, **headers: str
    ) -> None:
        import socketio

        self.client = socketio.Client(reconnection=False)
        self.states: list[dict[str, Any]] = []
        self.changed = threading.Event()
        self.refusal: dict[str, Any] | None = None
        self.client.on("state", self._on_state)
        self.client.on("connect_error", self._on_refused)
        try:
            self.client.connect(
                url,
                headers={"Cookie": cookie, **headers},
                auth={"release": release},
                transports=["websocket"],
                wait_timeout=5,
            )
        except socketio.exceptions.ConnectionError:
            if self.refusal is not None:
                raise Refused(self.refusal) from None
            raise

    def _on_refused(self, data: object) -> None:
        if isinstance(data, dict):  # the server's reason; a failed handshake gives text
            self.refusal = data

    def _on_state(self, state: dict[str, Any]) -> None:
        self.states.append(state)
        self.changed.set()

    def newest(self) -> dict[str, Any] | None:
        """The newest state by version.

        Not the last one received: python-socketio's client hands each message to a
        thread of its own, so two states sent back to back can arrive in either order.
        """
        return max(self.states, key=lambda state: int(state["version"]), default=None)

    def wait_for(
        self, ready: Callable[[dict[str, Any]], bool], timeout: float = 5
    ) -> dict[str, Any]:
        """Wait until the newest state satisfies ``ready``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.newest()
            if state is not None and ready(state):
                return state
            self.changed.wait(0.05)
            self.changed.clear()
        versions = [state["version"] for state in self.states]
        raise AssertionError(f"no matching state in {timeout:g} s; versions: {versions}")

    def human_turn(self) -> dict[str, Any]:
        """Wait for the human's turn (the AI may move first)."""
        return self.wait_for(lambda s: s["turn"] == "human")

    def call(self, event: str, payload: object = None) -> dict[str, Any]:
        """Send one event and return its acknowledgement."""
        ack: dict[str, Any] = self.client.call(event, payload, timeout=5)
        return ack

    def move(self, cell: int) -> dict[str, Any]:
        """Send a move and return its acknowledgement."""
        return self.call("move", {"cell": cell})

    @property
    def connected(self) -> bool:
        """Whether the socket is still open."""
        return bool(self.client.connected)

    def close(self) -> None:
        """Disconnect."""
        self.client.disconnect()


# --- a raw websocket, for what no polite client sends ---------------------------------------


class RawWebSocket:
    """A websocket to the Engine.IO endpoint, framed by hand, to send what clients never do."""

    def __init__(
        self,
        port: int,
        *,
        cookie: str = "",
        source: str = HOST,
        timeout: float = 10,
        extensions: str = "",
    ) -> None:
        # ``source``: another loopback address (127.x.y.z), as another client would have.
        address = (HOST, port)
        self.sock = socket.create_connection(address, timeout=timeout, source_address=(source, 0))
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        request = (
            f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nCookie: {cookie}\r\n"
        )
        if extensions:  # e.g. "permessage-deflate", as browsers offer it
            request += f"Sec-WebSocket-Extensions: {extensions}\r\n"
        request += "\r\n"
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"closed during the upgrade: {head!r}")
            head += chunk
        self.status = int(head.split(b" ", 2)[1])
        self.head, self.buffer = head.split(b"\r\n\r\n", 1)

    @staticmethod
    def header(opcode: int, length: int, *, fin: bool = True, compressed: bool = False) -> bytes:
        """A masked client frame header announcing ``length`` bytes (mask of zeros);
        ``compressed`` sets RSV1, permessage-deflate's flag."""
        first = (0x80 if fin else 0) | (0x40 if compressed else 0) | opcode
        if length < 126:
            size = bytes([0x80 | length])
        elif length < 1 << 16:
            size = bytes([0x80 | 126]) + length.to_bytes(2, "big")
        else:
            size = bytes([0x80 | 127]) + length.to_bytes(8, "big")
        return bytes([first]) + size + b"\0\0\0\0"

    @classmethod
    def frame(cls, text: str) -> bytes:
        """One whole text frame carrying ``text``."""
        payload = text.encode()
        return cls.header(0x1, len(payload)) + payload

    @classmethod
    def joined(cls, port: int, cookie: str, *, source: str = HOST) -> RawWebSocket:
        """A raw socket that has joined the game (Socket.IO connect) as the cookie's player."""
        raw = cls(port, cookie=cookie, source=source)
        raw.send_text("40" + json.dumps({"release": __version__}))
        for text in raw.texts():
            if text.startswith(("40", "44")):
                break
        return raw

    def send_text(self, text: str) -> None:
        """One whole text frame."""
        self.sock.sendall(self.frame(text))

    def texts(self) -> Iterator[str]:
        """The text of each text frame the server sends, until it closes."""
        for opcode, payload in self.frames():
            if opcode == 0x1:
                yield payload.decode()

    def frames(self) -> Iterator[tuple[int, bytes]]:
        """(opcode, payload) of each frame the server sends, until it closes."""
        while True:
            while len(self.buffer) < 2 or len(self.buffer) < self._frame_end():
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.buffer += chunk
            end, start = self._frame_end(), self._payload_start()
            opcode, payload = self.buffer[0] & 0x0F, self.buffer[start:end]
            self.buffer = self.buffer[end:]
            yield opcode, payload

    def _payload_start(self) -> int:
        size = self.buffer[1] & 0x7F
        return 2 + {126: 2, 127: 8}.get(size, 0)

    def _frame_end(self) -> int:
        if len(self.buffer) < 2:
            return 2
        size, start = self.buffer[1] & 0x7F, self._payload_start()
        if len(self.buffer) < start:
            return start
        if size >= 126:
            size = int.from_bytes(self.buffer[2:start], "big")
        return start + size

    def close_code(self) -> int | None:
        """Read until the server's close frame; its status code (None if it just hung up)."""
        try:
            for opcode, payload in self.frames():
                if opcode == 0x8:
                    return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
        except OSError:
            return None
        return None

    def close(self) -> None:
        """Drop the connection."""
        self.sock.close()


def timed_calls(call: Callable[[], object], seconds: float, *, pause: float = 0.02) -> list[float]:
    """Call ``call`` again and again for ``seconds``; each call's duration in seconds."""
    durations: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        call()
        durations.append(time.perf_counter() - started)
        time.sleep(pause)
    return durations


def rss_kb(pids: list[int]) -> int:
    """Resident memory of ``pids`` together, in KiB."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def ask_for_odds(
    raw: RawWebSocket,
    payloads: Iterator[dict[str, Any]],
    report: dict[str, int],
    event: str = "odds",
) -> None:
    """Send ``event`` (``odds``, or ``new_match`` with a target) with payload after
    payload on ``raw`` until ``payloads`` runs out, each as soon as the last is answered
    (and under 20 events a second)."""
    for number, payload in enumerate(payloads, 1):
        raw.send_text(f"42{number}" + json.dumps([event, payload]))
        for text in raw.texts():
            if text.startswith(f"43{number}["):
                ok = json.loads(text[len(f"43{number}") :])[0]["ok"]
                report["answered" if ok else "refused"] += 1
                break
        time.sleep(0.05)


def odds_flood(
    port: int,
    cookies: list[str],
    payloads: list[dict[str, Any]],
    seconds: float,
    told: Any,
    event: str = "odds",
) -> None:
    """Run in a child process, so that the askers take no turns from the client measuring
    others: each player of ``cookies`` sends ``event`` from a loopback address of its own
    (127.0.n.1), all drawing from ``payloads`` for ``seconds``. ``told`` (a queue) gets
    "started" once all have joined, then the counts of answers and refusals."""
    shared, lock = iter(payloads), threading.Lock()
    report = {"answered": 0, "refused": 0}
    deadline = time.monotonic() + seconds

    def drawn() -> Iterator[dict[str, Any]]:
        while time.monotonic() < deadline:
            with lock:
                payload = next(shared, None)
            if payload is None:
                return
            yield payload

    sockets = [
        RawWebSocket.joined(port, cookie, source=f"127.0.{n}.1")
        for n, cookie in enumerate(cookies, 1)
    ]
    told.put("started")
    askers = [
        threading.Thread(target=ask_for_odds, args=(raw, drawn(), report, event)) for raw in sockets
    ]
    for thread in askers:
        thread.start()
    for thread in askers:
        thread.join()
    for raw in sockets:
        raw.close()
    told.put(report)


# Hard to answer: a maximum of 1,000 HP and damages near the 100-game cap.
HARD_RULES = {
    "max_hp": 1000,
    "start_ai_hp": 1000,
    "human_win_human_heal": 0,
    "human_win_ai_damage": 11,
    "ai_win_human_damage": 34,
    "draw_human_damage": 11,
    "draw_ai_damage": 10,
}
# 1,000 x 1,000 HP and damages of 1: a million states, far over the cap.
TOO_MANY_STATES = {"max_hp": 1000, "start_human_hp": 999, "start_ai_hp": 998, "draw_ai_damage": 1}
TOO_MANY_STATES |= {"human_win_ai_damage": 1, "ai_win_human_damage": 1, "draw_human_damage": 1}


def hard_rule_sets(
    count: int, *, ai_hps: Iterable[int] = (1000,), humans: Iterable[int] = range(340, 0, -1)
) -> list[dict[str, int]]:
    """Distinct rule sets a player may choose whose odds take the most work: a maximum of
    1,000 HP, damages near the 100-game cap (a match can last 100 games from a starting HP
    of about 330 down), close to the most states allowed."""
    found: list[dict[str, int]] = []
    for ai in ai_hps:
        for human in humans:
            numbers = {
                "max_hp": 1000,
                "start_human_hp": human,
                "start_ai_hp": ai,
                "human_win_human_heal": 0,
                "human_win_ai_damage": 11,
                "ai_win_human_damage": 34,
                "draw_human_damage": 11,
                "draw_ai_damage": 10,
            }
            try:
                rules_from(**cast(dict[str, Any], numbers))
            except MatchError:
                continue
            found.append(numbers)
            if len(found) == count:
                return found
    return found


def refused_start(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``tictactoe serve`` expecting it to give up; it must do so within seconds."""
    environ = {**os.environ, "TICTACTOE_DATA_DIR": str(data_dir), **env}
    command = [str(Path(sys.executable).parent / "tictactoe"), "serve", "--host", HOST, *args]
    done = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=10)
    assert done.returncode != 0
    return done


def version_of(python: str) -> str:
    """The interpreter's full version, such as 3.11.2."""
    code = "import platform; print(platform.python_version())"
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
