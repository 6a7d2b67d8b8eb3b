"""Load benchmark: the real production server against a bare Flask-SocketIO echo server.

Starts each server on a free loopback port (AI delay 0, its own temporary data dir) and
drives it with N concurrent Socket.IO clients over websocket. Every client loads the
page first for its own session cookie, then plays whole adaptive games through the
protocol for a fixed time: a move on a random empty cell, ``next_game`` when a game
ends, ``new_match`` when the match ends. The clients speak Engine.IO v4 / Socket.IO v5
directly over the ``websockets`` library, offering permessage-deflate as browsers do,
so that one client process stays cheaper than the server it measures.

The kinds of load take turns in short windows (echo, game, game with a flooder, and
again) with every player connected once, so that drifts in the machine's speed (this
VM loses a varying share of its CPU to its neighbours) weigh on all kinds alike. Reports
AI-move round trips a second (emit ``move`` -> the ``state`` carrying the AI's
reply), their p50/p95/p99 latency, errors, the server's CPU use and peak RSS; the same
for the echo server; and the ratios. Optional phases: one client flooding at
``--flood`` events a second during a second run (others' p99 compared with the run
without it), and ``--idle-sessions`` connected once then disconnected (RSS added).

    .venv/bin/python bench/load.py --clients 200 --seconds 5 --rounds 6 --flood 1000 \\
        --idle-sessions 10000
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"
CALL_TIMEOUT = 10.0

# Targets at N=200 (docs/performance.md).
THROUGHPUT_RATIO_TARGET = 0.80
P99_RATIO_TARGET = 1.25
FLOOD_P99_RATIO_TARGET = 2.0
IDLE_MB_TARGET = 200.0
IDLE_SETTLE_SECONDS = 50

# How each way of serving is started: gevent's pywsgi server through socketio.run, or
# gunicorn with one gevent worker; websockets from simple-websocket, or from
# gevent-websocket ("-gws"), which Flask-SocketIO prefers whenever it is installed.
_BLOCK_GWS = 'import sys\nif {block}:\n    sys.modules["geventwebsocket"] = None\n'
_PYWSGI = """
from gevent import monkey
monkey.patch_all()
import socket
sys.path.insert(0, {bench!r})
from {module} import {factory} as factory
app = factory()
if {nodelay}:  # what socketio.run builds, on a listener with Nagle off
    from gevent import pywsgi
    listener = socket.create_server(({host!r}, {port}), backlog=2048)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    kwargs = {{}}
    if {gws}:
        from geventwebsocket.handler import WebSocketHandler
        kwargs["handler_class"] = WebSocketHandler
    pywsgi.WSGIServer(listener, app, log=None, **kwargs).serve_forever()
else:
    app.extensions["socketio"].run(app, host={host!r}, port={port}, log_output=False)
"""
_GUNICORN = """
from gunicorn.app.wsgiapp import run
sys.argv = {argv!r}
run()
"""
APPS = {"game": ("webapp.app", "production_app"), "echo": ("echo_server", "make_app")}
WAYS = (
    "serve",
    "pywsgi",
    "pywsgi-gws",
    "pywsgi-nodelay",
    "pywsgi-gws-nodelay",
    "gunicorn",
    "gunicorn-gws",
)
GUNICORN_WORKERS = {
    "gunicorn": "gevent",
    "gunicorn-gws": "geventwebsocket.gunicorn.workers.GeventWebSocketWorker",
}


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def command(way: str, app: str, port: int) -> list[str]:
    """The command line that serves ``app`` ("game" or "echo") the ``way`` chosen."""
    module, factory = APPS[app]
    if way == "serve":
        if app == "game":
            return [str(BIN / "tictactoe"), "serve", "--host", HOST, "--port", str(port)]
        way = production_way()
    gws = "-gws" in way
    shim = _BLOCK_GWS.format(block=not gws)
    if way in GUNICORN_WORKERS:
        argv = [
            *("gunicorn", "--worker-class", GUNICORN_WORKERS[way], "--workers", "1"),
            *("--bind", f"{HOST}:{port}", "--chdir", str(BENCH), "--log-level", "warning"),
            f"{module}:{factory}()",
        ]
        return [sys.executable, "-c", shim + _GUNICORN.format(argv=argv)]
    code = _PYWSGI.format(
        bench=str(BENCH),
        module=module,
        factory=factory,
        host=HOST,
        port=port,
        gws=gws,
        nodelay=way.endswith("-nodelay"),
    )
    return [sys.executable, "-c", shim + code]


def production_way() -> str:
    """How ``tictactoe serve`` serves, so the echo is served the same way."""
    sys.path.insert(0, str(ROOT))
    from webapp.app import SERVING_WAY

    return str(SERVING_WAY)


# --- the server process ----------------------------------------------------------


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


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


class Server:
    """One server process on a free port with its own data dir."""

    def __init__(self, way: str, app: str, env: dict[str, str]) -> None:
        self.way, self.app = way, app
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.data_dir = Path(tempfile.mkdtemp(prefix=f"load-{app}-"))
        self.env = {
            **os.environ,
            "TICTACTOE_DATA_DIR": str(self.data_dir),
            "TICTACTOE_AI_DELAY_MS": "0",
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(BENCH)]),
            **env,
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.peak_rss_kb = 0

    def start(self) -> None:
        """Start and wait for /healthz."""
        log = (self.data_dir / "server.log").open("ab")
        self.process = subprocess.Popen(
            command(self.way, self.app, self.port), env=self.env, stdout=log, stderr=log
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.app} server exited: {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.app} server did not start: {self.log_tail()}")

    def log_tail(self) -> str:
        """The end of the server's output."""
        return (self.data_dir / "server.log").read_text(errors="replace")[-3000:]

    def pids(self) -> list[int]:
        """The server's processes (gunicorn: the arbiter and its worker)."""
        return process_tree(self.process.pid) if self.process else []

    def rss_kb(self) -> int:
        """Resident memory of all the server's processes now."""
        rss = sum(_status_kb(pid, "VmRSS") for pid in self.pids())
        self.peak_rss_kb = max(self.peak_rss_kb, rss)
        return rss

    def cpu_seconds(self) -> float:
        """CPU time used so far by all the server's processes."""
        return sum(_cpu_seconds(pid) for pid in self.pids())

    def stop(self) -> None:
        """Terminate, then kill, and remove the data dir."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)


# --- a small Socket.IO client -----------------------------------------------------


class Refused(Exception):
    """The server refused the Socket.IO connection."""


async def session_cookie(port: int) -> str:
    """GET / like a browser and return the Cookie header it would send back."""
    return await asyncio.wait_for(_session_cookie(port), CALL_TIMEOUT)


async def _session_cookie(port: int) -> str:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    await reader.read()
    writer.close()
    for line in head.decode("latin-1").split("\r\n"):
        if line.lower().startswith("set-cookie:"):
            return line.split(":", 1)[1].split(";", 1)[0].strip()
    raise RuntimeError("GET / set no cookie")


def _quiet_future() -> asyncio.Future[Any]:
    """A future whose exception nobody has to read (a closed connection fails them all)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.add_done_callback(lambda done: done.cancelled() or done.exception())
    return future


class Client:
    """One Socket.IO connection on the default namespace, over websocket only."""

    def __init__(self) -> None:
        self.ws: ClientConnection | None = None
        self.acks: dict[int, asyncio.Future[Any]] = {}
        self.ids = 0
        self.state: dict[str, Any] = {}
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        self.newer = asyncio.Event()
        self.connected: asyncio.Future[None] | None = None
        self.reader: asyncio.Task[None] | None = None
        self.writes: set[asyncio.Future[None]] = set()

    async def open(self, port: int, cookie: str, **headers: str) -> None:
        """Connect and wait for the namespace to accept (or refuse) us."""
        uri = f"ws://{HOST}:{port}/socket.io/?EIO=4&transport=websocket"
        self.ws = await connect(
            uri,
            additional_headers={"Cookie": cookie, **headers},
            ping_interval=None,
            open_timeout=CALL_TIMEOUT,
            close_timeout=1,  # simple-websocket servers may never answer the close frame
            max_queue=None,
        )
        self.connected = _quiet_future()
        self.reader = asyncio.create_task(self._read())
        await self.ws.send("40")
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
            self._write("3")
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
            self.connected.set_exception(Refused(message[2:]))

    def send(self, event: str, *args: object) -> asyncio.Future[Any]:
        """Emit ``event`` asking for an acknowledgement; the future holds the ack."""
        self.ids += 1
        future: asyncio.Future[Any] = _quiet_future()
        self.acks[self.ids] = future
        self._write(f"42{self.ids}{json.dumps([event, *args])}")
        return future

    async def call(self, event: str, *args: object) -> Any:
        """Emit and wait for the acknowledgement."""
        return await asyncio.wait_for(self.send(event, *args), CALL_TIMEOUT)

    def _write(self, message: str) -> None:
        assert self.ws is not None
        task = asyncio.ensure_future(self.ws.send(message))
        self.writes.add(task)
        task.add_done_callback(self.writes.discard)

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
    if state["match"]["over"]:
        event, payload = "new_match", {}
        tally.matches += tally.measuring
    elif state["turn"] is None:
        event, payload = "next_game", {}
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


async def sample_rss(server: Server, stop: asyncio.Event) -> None:
    """Keep the server's peak RSS up to date."""
    while not stop.is_set():
        server.rss_kb()
        await asyncio.sleep(0.25)


# --- phases ----------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


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

    def __init__(self, server: Server, clients: int, *, flood: int = 0) -> None:
        self.server, self.clients, self.flood = server, clients, flood
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
        rng, client = random.Random(seed), Client()
        try:
            await client.open(self.server.port, await session_cookie(self.server.port))
        except (OSError, Refused, TimeoutError, WebSocketException) as err:
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
        await client.open(self.server.port, await session_cookie(self.server.port))
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


def summary(samples: list[Sample], pool: Pool) -> dict[str, Any]:
    """All rounds of one kind together: rates over the summed time, quantiles over all."""
    seconds = sum(s.seconds for s in samples)
    latencies = [x for s in samples for x in s.tally.latencies]
    errors: Counter[str] = sum((s.tally.errors for s in samples), Counter())
    server_cpu = sum(s.server_cpu for s in samples)
    result = {
        "rounds": len(samples),
        "seconds": round(seconds, 1),
        "ai_round_trips_per_s": round(len(latencies) / seconds, 1),
        "events_per_s": round(sum(s.tally.events for s in samples) / seconds, 1),
        "events_per_round_trip": round(
            sum(s.tally.events for s in samples) / max(1, len(latencies)), 2
        ),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "games": sum(s.tally.games for s in samples),
        "matches": sum(s.tally.matches for s in samples),
        "server_cpu": round(server_cpu / seconds, 2),
        "server_cpu_ms_per_round_trip": round(1000 * server_cpu / max(1, len(latencies)), 3),
        "client_cpu": round(sum(s.client_cpu for s in samples) / seconds, 2),
        "steal": round(sum(s.steal * s.seconds for s in samples) / seconds, 3),
        "peak_rss_mb": round(pool.server.peak_rss_kb / 1024, 1),
        "per_round_rt_per_s": [round(len(s.tally.latencies) / s.seconds, 1) for s in samples],
    }
    if pool.flood:
        result["flood"] = {"rate": pool.flood, **pool.flood_codes}
    return result


async def idle_phase(server: Server, count: int, concurrency: int = 50) -> dict[str, Any]:
    """``count`` sessions, each loads the page, connects, gets its state and leaves."""
    errors: Counter[str] = Counter()
    queue = iter(range(count))

    async def visit() -> None:
        client = Client()
        try:
            await client.open(server.port, await session_cookie(server.port))
            await client.wait_state(lambda s: True)
        except (OSError, Refused, TimeoutError, WebSocketException) as err:
            errors[type(err).__name__] += 1
        finally:
            try:
                await asyncio.wait_for(client.close(), CALL_TIMEOUT)
            except TimeoutError:
                errors["close: TimeoutError"] += 1

    async def worker() -> None:
        for _ in queue:
            await visit()

    for _ in range(100):  # a warm-up so that lazy imports and caches are counted as base
        await visit()
    await asyncio.sleep(2)
    before = server.rss_kb()
    started = time.perf_counter()
    queue = iter(range(count))
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(3)
    after = server.rss_kb()
    # Engine.IO keeps each closed socket until its ping task wakes (25 s): look again later.
    await asyncio.sleep(IDLE_SETTLE_SECONDS)
    settled = server.rss_kb()
    return {
        "sessions": count,
        "seconds": round(elapsed, 1),
        "rss_before_mb": round(before / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "added_mb": round((after - before) / 1024, 1),
        f"added_mb_{IDLE_SETTLE_SECONDS}s_later": round((settled - before) / 1024, 1),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
    }


class Servers:
    """The servers of one run, started once and stopped together."""

    def __init__(self, way: str, env: dict[str, str]) -> None:
        self.way, self.env = way, env
        self.started: dict[str, Server] = {}

    def get(self, app: str) -> Server:
        """The running server of ``app``, started on first use."""
        if app not in self.started:
            self.started[app] = Server(self.way, app, self.env)
            self.started[app].start()
        return self.started[app]

    def stop(self) -> None:
        """Stop them all."""
        for server in self.started.values():
            server.stop()


# --- report ------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def summarise(report: dict[str, Any]) -> list[str]:
    """Ratios and target verdicts, as lines."""
    lines, game, echo = [], report.get("game"), report.get("echo")
    if game and echo:
        throughput = game["ai_round_trips_per_s"] / echo["ai_round_trips_per_s"]
        p99 = game["p99_ms"] / echo["p99_ms"]
        report["ratios"] = {"throughput": round(throughput, 3), "p99": round(p99, 3)}
        lines.append(
            f"throughput game/echo {throughput:.1%} (target >= {THROUGHPUT_RATIO_TARGET:.0%})"
            f"  {verdict(throughput >= THROUGHPUT_RATIO_TARGET)}"
        )
        lines.append(
            f"p99 game/echo        {p99:.2f}x (target <= {P99_RATIO_TARGET}x)"
            f"  {verdict(p99 <= P99_RATIO_TARGET)}"
        )
    if game:
        lines.append(f"errors               {game['errors']}  {verdict(game['errors'] == 0)}")
    flooded = report.get("flooded")
    if game and flooded:
        ratio = flooded["p99_ms"] / game["p99_ms"]
        report["ratios"] = {**report.get("ratios", {}), "flood_p99": round(ratio, 3)}
        lines.append(
            f"p99 flooded/calm     {ratio:.2f}x (target <= {FLOOD_P99_RATIO_TARGET}x)"
            f"  {verdict(ratio <= FLOOD_P99_RATIO_TARGET and flooded['errors'] == 0)}"
        )
    idle = report.get("idle")
    if idle:
        ok = idle["added_mb"] <= IDLE_MB_TARGET and idle["errors"] == 0
        lines.append(
            f"idle sessions        +{idle['added_mb']} MB for {idle['sessions']:,}"
            f" (target <= {IDLE_MB_TARGET:.0f} MB)  {verdict(ok)}"
        )
    return lines


def phase_line(name: str, result: dict[str, Any]) -> str:
    """One phase as a row."""
    return (
        f"{name:<8} {result['ai_round_trips_per_s']:>7.1f} rt/s  "
        f"p50 {result['p50_ms']:>7.2f}  p95 {result['p95_ms']:>7.2f}  "
        f"p99 {result['p99_ms']:>7.2f} ms  errors {result['errors']}  "
        f"cpu {result['server_cpu']:.2f} ({result['server_cpu_ms_per_round_trip']:.2f} ms/rt) "
        f"client {result['client_cpu']:.2f}  steal {result['steal']:.0%}  "
        f"rss {result['peak_rss_mb']} MB"
    )


def round_line(index: int, kinds: dict[str, list[Sample]]) -> str:
    """The latest round, one figure per kind."""
    parts = []
    for name, samples in kinds.items():
        sample = samples[-1]
        rate = len(sample.tally.latencies) / sample.seconds
        p99 = percentile(sample.tally.latencies, 0.99) * 1000
        parts.append(f"{name} {rate:.0f} rt/s p99 {p99:.0f} ms steal {sample.steal:.0%}")
    return f"round {index + 1}: " + "; ".join(parts)


def start_redis() -> str:
    """A private redis-server without persistence on a free port, stopped at exit."""
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--bind", HOST, "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    atexit.register(process.terminate)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return f"redis://{HOST}:{port}/0"
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Rounds of windows: echo, game (and game with a flooder) in turn; then idle sessions."""
    env = {}
    if args.rate:
        env["TICTACTOE_RATE_PER_SECOND"] = str(args.rate)
    if args.burst:
        env["TICTACTOE_RATE_BURST"] = str(args.burst)
    if args.workers > 1 or args.redis:
        env["TICTACTOE_REDIS_URL"] = start_redis()
        env["TICTACTOE_WORKERS"] = str(args.workers)
    report: dict[str, Any] = {"way": args.server, "clients": args.clients, "settings": env}
    servers, stop = Servers(args.server, env), asyncio.Event()
    pools: dict[str, Pool] = {}
    try:
        if not args.no_echo:
            pools["echo"] = Pool(servers.get("echo"), args.clients)
        if not args.echo_only:
            pools["game"] = Pool(servers.get("game"), args.clients)
        if args.flood:
            pools["flooded"] = Pool(servers.get("game"), args.clients, flood=args.flood)
        samplers = [asyncio.create_task(sample_rss(s, stop)) for s in servers.started.values()]
        for pool in pools.values():
            await pool.start()
            await pool.window(args.warmup, settle=0)  # warm-up, not counted
        kinds: dict[str, list[Sample]] = {name: [] for name in pools}
        for index in range(args.rounds):
            for name, pool in pools.items():
                kinds[name].append(await pool.window(args.seconds))
            print(round_line(index, kinds), file=sys.stderr)
        for name, pool in pools.items():
            await pool.close()
            report[name] = summary(kinds[name], pool)
            print(phase_line(name, report[name]), file=sys.stderr)
        stop.set()
        await asyncio.gather(*samplers)
    finally:
        servers.stop()
    if args.idle_sessions:
        idle = Servers(args.server, env)
        try:
            report["idle"] = await idle_phase(idle.get("game"), args.idle_sessions)
        finally:
            idle.stop()
        print(f"idle     {json.dumps(report['idle'])}", file=sys.stderr)
    return report


def main() -> int:
    """Parse the options, run the phases, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent players (200)")
    parser.add_argument("--seconds", type=float, default=5, help="measured per window (5)")
    parser.add_argument("--rounds", type=int, default=6, help="windows of each kind (6)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured start (3)")
    parser.add_argument("--server", choices=WAYS, default="serve", help="how to serve (serve)")
    parser.add_argument("--no-echo", action="store_true", help="skip the echo server")
    parser.add_argument("--echo-only", action="store_true", help="only the echo server")
    parser.add_argument("--flood", type=int, default=0, help="flooder events/s (0: none)")
    parser.add_argument("--idle-sessions", type=int, default=0, help="idle sessions (0: none)")
    parser.add_argument("--rate", type=float, default=None, help="TICTACTOE_RATE_PER_SECOND")
    parser.add_argument("--burst", type=int, default=None, help="TICTACTOE_RATE_BURST")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--workers", type=int, default=1, help="serve with N processes on one port, on Redis (1)"
    )
    parser.add_argument(
        "--redis", action="store_true", help="store matches in a private redis-server"
    )
    args = parser.parse_args()
    report = asyncio.run(run(args))
    lines = summarise(report)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
