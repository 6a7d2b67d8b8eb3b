"""The benchmarks' library: servers under measurement, a raw Socket.IO client, pools of players.

bench/load.py, bench/soak.py and bench/fuzz.py import this module; it runs nothing by
itself. The processes themselves (free port, start, /healthz, stop, process tree) are
``support.testing.ServerProcess``; here they only gain a temporary data dir and
measurements of their memory and CPU.

The client speaks Engine.IO v4 / Socket.IO v5 directly over the ``websockets``
library (offering permessage-deflate, as browsers do), so that one client process
stays cheaper than the server it measures. Like the browser, it loads the page first
for its session cookie and sends the page's release (``<meta name="release">``) in the
CONNECT packet; a page without one (releases before 0.2.0, the echo server) gets an
empty release, which such servers ignore.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import HOST, Refused, ServerProcess, free_port

BENCH = Path(__file__).resolve().parent
CALL_TIMEOUT = 10.0
# What a failed connection attempt may raise (Refused is a ConnectionError, an OSError).
CONNECT_ERRORS = (OSError, TimeoutError, WebSocketException)


# --- servers under measurement -----------------------------------------------------------


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_ticks() -> list[int]:
    """The machine's CPU ticks: user, nice, system, idle, iowait, irq, softirq, steal."""
    return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]


def stolen_share(before: list[int], after: list[int]) -> float:
    """The share of CPU time the hypervisor took away between two readings."""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    return spent[7] / max(1, sum(spent))


ONE_ADDRESS_FOR_ALL = {
    "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0",
    "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0",
    "TICTACTOE_RATE_PER_ADDRESS": "0",
    "TICTACTOE_NEW_ROOMS_PER_HOUR": "0",
}


class Server(ServerProcess):
    """A server process on a free port with its own temporary data dir, measured.

    ``game`` is ``tictactoe serve`` of this checkout; ``echo`` is bench/echo_server.py;
    ``from_template`` is any command line with ``{port}`` in it (another build of the
    game). All get the same ``env`` (TICTACTOE_*; AI delay 0 unless ``env`` says
    otherwise). A context manager: started on entry, stopped and its data dir removed
    on exit.
    """

    def __init__(
        self,
        name: str,
        env: Mapping[str, str] | None = None,
        command: Callable[[int], list[str]] | None = None,
    ) -> None:
        port = free_port()
        data_dir = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
        # Every simulated player comes from loopback, which the caps per client address
        # would take for one abuser: they are off here, as for one very large NAT.
        env = {**ONE_ADDRESS_FOR_ALL, **(env or {})}
        super().__init__(data_dir, env, command=command(port) if command else None, port=port)
        self.name = name
        self.peak_rss_kb = 0

    @classmethod
    def game(cls, env: Mapping[str, str] | None = None) -> Server:
        """``tictactoe serve`` of this checkout."""
        return cls("game", env)

    @classmethod
    def echo(cls, env: Mapping[str, str] | None = None) -> Server:
        """The bare Flask-SocketIO echo server, served as the game is."""
        script = str(BENCH / "echo_server.py")
        return cls("echo", env, lambda port: [sys.executable, script, "--port", str(port)])

    @classmethod
    def from_template(
        cls, name: str, template: str, env: Mapping[str, str] | None = None
    ) -> Server:
        """The command line ``template`` (split like a shell would) with ``{port}`` filled in."""
        if "{port}" not in template:
            raise ValueError(f"the {name} command has no {{port}}: {template!r}")
        return cls(name, env, lambda port: shlex.split(template.replace("{port}", str(port))))

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self, timeout: float = 10) -> int | None:
        """Stop the server and remove its data dir."""
        status = super().stop(timeout)
        shutil.rmtree(self.data_dir, ignore_errors=True)
        return status

    def rss_kb(self) -> int:
        """Resident memory of all the server's processes now (arbiter and workers)."""
        rss = sum(_status_kb(pid, "VmRSS") for pid in self.pids())
        self.peak_rss_kb = max(self.peak_rss_kb, rss)
        return rss

    def cpu_seconds(self) -> float:
        """CPU time used so far by all the server's processes."""
        return sum(_cpu_seconds(pid) for pid in self.pids())


# --- a small Socket.IO client ----------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """What a browser keeps from loading ``/``: the cookie and the page's release."""

    cookie: str
    release: str


_RELEASE = re.compile(rb'<meta name="release" content="([^"]*)"')


async def load_page(port: int) -> Page:
    """GET / like a browser: the Cookie header it would send back, and the page's release."""
    return await asyncio.wait_for(_load_page(port), CALL_TIMEOUT)


async def _load_page(port: int) -> Page:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    body = await reader.read()
    writer.close()
    release = _RELEASE.search(body)
    for line in head.decode("latin-1").split("\r\n"):
        if line.lower().startswith("set-cookie:"):
            cookie = line.split(":", 1)[1].split(";", 1)[0].strip()
            return Page(cookie, release.group(1).decode() if release else "")
    raise RuntimeError("GET / set no cookie")


def _quiet_future() -> asyncio.Future[Any]:
    """A future whose exception nobody has to read (a closed connection fails them all)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.add_done_callback(lambda done: done.cancelled() or done.exception())
    return future


def _refusal(text: str) -> Refused:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    return Refused(data if isinstance(data, dict) else {"message": text})


class Client:
    """One Socket.IO connection on the default namespace, over websocket only."""

    def __init__(self, *, deflate: bool = True) -> None:
        self.deflate = deflate  # offer permessage-deflate, as browsers do
        self.ws: ClientConnection | None = None
        self.acks: dict[int, asyncio.Future[Any]] = {}
        self.ids = 0
        self.state: dict[str, Any] = {}
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        self.newer = asyncio.Event()
        self.connected: asyncio.Future[None] | None = None
        self.reader: asyncio.Task[None] | None = None
        self.writes: set[asyncio.Future[None]] = set()

    async def open(self, port: int, page: Page, **headers: str) -> None:
        """Connect with the page's cookie and release; wait until accepted (or Refused)."""
        uri = f"ws://{HOST}:{port}/socket.io/?EIO=4&transport=websocket"
        self.ws = await connect(
            uri,
            additional_headers={"Cookie": page.cookie, **headers},
            ping_interval=None,
            open_timeout=CALL_TIMEOUT,
            close_timeout=1,  # do not wait long for a server that never answers the close
            max_queue=None,
            compression="deflate" if self.deflate else None,
        )
        self.connected = _quiet_future()
        self.reader = asyncio.create_task(self._read())
        await self.ws.send("40" + json.dumps({"release": page.release}))
        await asyncio.wait_for(asyncio.shield(self.connected), CALL_TIMEOUT)

    async def _read(self) -> None:
        assert self.ws is not None and self.connected is not None
        try:
            async for message in self.ws:
                self._handle(str(message))
        except WebSocketException:
            pass
        finally:
            failure = ConnectionError("connection closed")
            if not self.connected.done():
                self.connected.set_exception(failure)
            for future in self.acks.values():
                if not future.done():
                    future.set_exception(failure)
            self.newer.set()

    def _handle(self, message: str) -> None:
        kind = message[:2]
        if message == "2":  # Engine.IO ping
            self.write("3")
        elif kind == "42":
            name, *args = json.loads(message[2:])
            if name == "state":
                self.state = args[0]
                self.arrivals.append((time.perf_counter(), args[0]))
                self.newer.set()
        elif kind == "43":
            start = message.index("[")
            future = self.acks.pop(int(message[2:start]), None)
            if future and not future.done():
                future.set_result(json.loads(message[start:])[0])
        elif kind == "40" and self.connected and not self.connected.done():
            self.connected.set_result(None)
        elif kind == "44" and self.connected and not self.connected.done():
            self.connected.set_exception(_refusal(message[2:]))

    def send(self, event: str, *args: object) -> asyncio.Future[Any]:
        """Emit ``event`` asking for an acknowledgement; the future holds the ack."""
        self.ids += 1
        future: asyncio.Future[Any] = _quiet_future()
        self.acks[self.ids] = future
        self.write(f"42{self.ids}{json.dumps([event, *args])}")
        return future

    async def call(self, event: str, *args: object) -> Any:
        """Emit and wait for the acknowledgement."""
        return await asyncio.wait_for(self.send(event, *args), CALL_TIMEOUT)

    def write(self, message: str) -> None:
        """Send one raw Engine.IO message, without waiting."""
        assert self.ws is not None
        task = asyncio.ensure_future(self.ws.send(message))
        self.writes.add(task)
        task.add_done_callback(self._written)

    def _written(self, task: asyncio.Future[None]) -> None:
        # A write still queued when the connection closes fails; that is not news.
        self.writes.discard(task)
        if not task.cancelled():
            task.exception()

    async def wait_state(self, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Wait until the newest state satisfies ``ready``."""
        deadline = time.monotonic() + CALL_TIMEOUT
        while not (self.state and ready(self.state)):
            self.newer.clear()
            left = deadline - time.monotonic()
            if left <= 0 or (self.reader and self.reader.done()):
                raise TimeoutError("no such state")
            await asyncio.wait_for(self.newer.wait(), left)
        return self.state

    async def close(self) -> None:
        """Close the websocket and stop reading."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader


async def new_player(client: Client, port: int) -> dict[str, Any]:
    """Like a new browser: load the page, connect ``client``; return the first state."""
    await client.open(port, await load_page(port))
    return await client.wait_state(lambda s: True)


# --- the players ---------------------------------------------------------------


@dataclass
class Tally:
    """What all players of one phase did."""

    latencies: list[float] = field(default_factory=list)
    events: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    games: int = 0
    matches: int = 0
    measuring: bool = False

    def error(self, kind: str) -> None:
        """Count one error of ``kind``."""
        self.errors[kind] += 1


def _ai_reply_time(arrivals: list[tuple[float, dict[str, Any]]], version: int) -> float | None:
    for stamp, state in arrivals:
        history = state["history"]
        if state["version"] == version + 2 and history and history[-1]["by"] == "ai":
            return stamp
    return None


async def play_one(client: Client, tally: Tally, rng: random.Random) -> None:
    """Take one step of the protocol from the newest state."""
    state = await client.wait_state(lambda s: s["turn"] != "ai")
    payload: dict[str, int] = {}
    if state["match"]["over"]:
        event = "new_match"
        tally.matches += tally.measuring
    elif state["turn"] is None:
        event = "next_game"
        tally.games += tally.measuring
    else:
        cell = rng.choice([i for i, mark in enumerate(state["board"]) if mark == "."])
        event, payload = "move", {"cell": cell}
    client.arrivals.clear()
    started = time.perf_counter()
    ack = await client.call(event, payload)
    if not ack.get("ok"):
        tally.error(ack.get("error", {}).get("code", "bad_ack"))
    elif tally.measuring:
        tally.events += 1
        replied = _ai_reply_time(client.arrivals, state["version"]) if event == "move" else None
        if replied is not None:
            tally.latencies.append(replied - started)


@dataclass
class Sample:
    """One measured window of load on one server."""

    tally: Tally
    seconds: float
    server_cpu: float
    client_cpu: float
    steal: float


class Pool:
    """N players on one server, connected once, playing only while ``go`` is set.

    Pools take turns in short windows, so that the share of the CPU the hypervisor
    takes away, which drifts from minute to minute here, weighs on every kind alike.
    """

    def __init__(
        self, server: Server, clients: int, *, flood: int = 0, deflate: bool = True
    ) -> None:
        self.server, self.clients, self.flood = server, clients, flood
        self.deflate = deflate  # players offer permessage-deflate, as browsers do
        self.tally = Tally()
        self.go, self.stop = asyncio.Event(), asyncio.Event()
        self.busy = 0
        self.flood_codes: Counter[str] = Counter()
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Connect every player (20 at a time), and the flooder if there is one."""
        connected: asyncio.Queue[None] = asyncio.Queue()
        for index in range(self.clients):
            self.tasks.append(asyncio.create_task(self._player(index, connected)))
            if index % 20 == 19:
                await asyncio.sleep(0.02)
        for _ in range(self.clients):
            await asyncio.wait_for(connected.get(), 60)
        if self.flood:
            self.tasks.append(asyncio.create_task(self._flooder()))

    async def _player(self, seed: int, connected: asyncio.Queue[None]) -> None:
        rng, client = random.Random(seed), Client(deflate=self.deflate)
        try:
            await client.open(self.server.port, await load_page(self.server.port))
        except CONNECT_ERRORS as err:
            self.tally.error(f"connect: {type(err).__name__}")
            return
        finally:
            connected.put_nowait(None)
        try:
            while not self.stop.is_set():
                await self.go.wait()
                self.busy += 1
                try:
                    await play_one(client, self.tally, rng)
                finally:
                    self.busy -= 1
        except (TimeoutError, ConnectionError) as err:
            self.tally.error(type(err).__name__)
        finally:
            await client.close()

    async def _flooder(self) -> None:
        """One more client sending ``flood`` moves a second without waiting for acks."""
        client = Client()
        await client.open(self.server.port, await load_page(self.server.port))
        batch, codes = max(1, self.flood // 100), self.flood_codes

        def count(ack: asyncio.Future[Any]) -> None:
            if ack.cancelled() or ack.exception() is not None:
                codes["unanswered"] += 1
            else:
                codes["ok" if ack.result().get("ok") else ack.result()["error"]["code"]] += 1

        while not self.stop.is_set():
            await self.go.wait()
            next_tick = time.perf_counter()
            while self.go.is_set() and not self.stop.is_set():
                for index in range(batch):
                    client.send("move", {"cell": index % 9}).add_done_callback(count)
                codes["sent"] += batch
                next_tick += 0.01
                await asyncio.sleep(max(0.0, next_tick - time.perf_counter()))
        await client.close()

    async def window(self, seconds: float, *, settle: float = 1.0) -> Sample:
        """Play for ``settle`` + ``seconds``, measuring the last ``seconds``; then pause."""
        tally = self.tally = Tally()
        self.go.set()
        await asyncio.sleep(settle)
        tally.measuring = True
        cpu, client_cpu, ticks = self.server.cpu_seconds(), time.process_time(), machine_ticks()
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        tally.measuring = False
        sample = Sample(
            tally=tally,
            seconds=time.perf_counter() - started,
            server_cpu=self.server.cpu_seconds() - cpu,
            client_cpu=time.process_time() - client_cpu,
            steal=stolen_share(ticks, machine_ticks()),
        )
        self.go.clear()
        while self.busy:  # let the steps under way finish before the next pool plays
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        return sample

    async def close(self) -> None:
        """Stop and disconnect every player."""
        self.stop.set()
        self.go.set()
        await asyncio.gather(*self.tasks)
