"""Peer benchmark: this project's server against boardgame.io's, side by side.

Starts ``tictactoe serve`` of this checkout ("ours": AI delay 0, the rate limits raised
for the bench, its own temporary data dir; with ``--redis`` its matches in a private
redis-server) and boardgame.io 0.50's server with a plain tic-tac-toe
(bench/peer/bgio_server.mjs: koa + socket.io, in-memory storage), each on a free
loopback port. One Node process (bench/peer/driver.mjs) drives both with plain
socket.io-client sockets, one per player, no client framework:

- ours: one socket a game (the human; the AI is the server's), each with its own
  session cookie from ``GET /``, playing adaptive matches whole (``next_game``,
  ``new_match``). A round trip: ``move`` emitted -> its ack and the ``state`` carrying
  the AI's reply both received.
- boardgame.io: two sockets a game, players 0 and 1, seated through the lobby REST API
  (create, join both seats) and synced; when a match ends the next one is made the same
  way. A round trip: player 0's move emitted -> the ``update`` carrying player 1's
  answer (sent at once from player 1's ``update`` handler) received by player 0.

A move that ends the game has no reply and counts as no round trip, in both.

``--games`` games on each server stay connected; the two take turns in windows of
``--window`` seconds (``--windows`` each, the order alternating every round) so that the
drifting speed of a shared VM weighs on both alike. For each: round trips a second,
p50 and p99, the server's CPU per round trip (from /proc/<pid>/stat of its whole
process tree: gunicorn's arbiter and its worker, or node), the driver's CPU per round
trip, the machine's steal. Then, on fresh servers, memory: RSS before and after
``--idle`` players connect and sit idle (ours: each with its own cookie, its first
``state`` received; boardgame.io: each seated in a match through the lobby and synced,
two a match), and RSS per connected player.

boardgame.io and socket.io-client (exact versions: bench/peer/package.json and its
package-lock.json) are installed by npm into .bench/peer/, which git ignores; they are
never in the project's package.json and never served.

    .venv/bin/python bench/peer.py                  # SQLite, about 2.5 minutes
    .venv/bin/python bench/peer.py --redis
    .venv/bin/python bench/peer.py --echo           # the transport alone in ours' place
    .venv/bin/python bench/peer.py --games 50 --window 5 --windows 2 --idle 500
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from players import Server, machine_ticks, stolen_share

from webapp import __version__

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import RedisServer, percentile

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT / "bench" / "peer"
TOOLS = ROOT / ".bench" / "peer"
MANIFESTS = ("package.json", "package-lock.json")
BGIO_SERVER = PEER / "bgio_server.mjs"
DRIVER = PEER / "driver.mjs"
# Raised for the bench: 200 fast players from one address are not abusers here.
OURS_ENV = {
    "TICTACTOE_AI_DELAY_MS": "0",
    "TICTACTOE_RATE_PER_SECOND": "1000",
    "TICTACTOE_RATE_BURST": "2000",
    "TICTACTOE_RATE_PER_ADDRESS": "0",
    "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0",
    "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0",
}
BGIO_ENV = {"NODE_ENV": "production"}  # as deployed: no per-action logging
WARMUP_SECONDS = 3.0
SETTLE_SECONDS = 1.0  # played, not measured, at the start of each window
IDLE_WARMUP = 100  # idle players connected and dropped before the baseline RSS
IDLE_SETTLE_SECONDS = 5.0
STEP_SECONDS = 120.0  # the longest any one driver command may take
# Issue 45's targets (docs/performance.md), each the median of three runs on a quiet machine.
RT_RATIO_TARGET = 1.6
P99_RATIO_TARGET = 1.0
KB_TARGET = 2.0  # else bench/idle.py shows which library holds the rest


# --- installing ----------------------------------------------------------------------


def installed() -> bool:
    """Whether .bench/peer/ holds exactly the versions of bench/peer/'s manifests."""
    return (TOOLS / "node_modules" / ".package-lock.json").exists() and all(
        (TOOLS / name).exists() and filecmp.cmp(PEER / name, TOOLS / name, shallow=False)
        for name in MANIFESTS
    )


def install() -> None:
    """``npm ci`` bench/peer/'s manifests into .bench/peer/ unless they are there already."""
    if installed():
        return
    TOOLS.mkdir(parents=True, exist_ok=True)
    for name in MANIFESTS:
        shutil.copyfile(PEER / name, TOOLS / name)
    print(f"installing boardgame.io and socket.io-client into {TOOLS}", file=sys.stderr)
    options = ["--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(["npm", "ci", "--prefix", str(TOOLS), *options], check=True)


def package_version(name: str) -> str:
    """The installed version of an npm package in .bench/peer/."""
    manifest = TOOLS / "node_modules" / name / "package.json"
    return str(json.loads(manifest.read_text())["version"])


def node() -> str:
    """The node binary."""
    found = shutil.which("node")
    if not found:
        raise RuntimeError("node is not installed")
    return found


# --- the driver --------------------------------------------------------------------------


class Driver:
    """bench/peer/driver.mjs: JSON commands on its stdin, JSON events on its stdout."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [node(), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "BGIO_MODULES": str(TOOLS / "node_modules")},
        )
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            if line.strip():
                self.events.put(json.loads(line))
        self.events.put(None)

    def send(self, **command: Any) -> None:
        """One command."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def expect(self, event: str, seconds: float = STEP_SECONDS) -> dict[str, Any]:
        """Wait for the next event, which must be ``event``."""
        try:
            got = self.events.get(timeout=seconds)
        except queue.Empty:
            raise RuntimeError(f"the driver sent no {event!r} in {seconds:g} s") from None
        if got is None:
            raise RuntimeError(f"the driver exited (status {self.process.wait()})")
        if got.get("event") != event:
            raise RuntimeError(f"the driver sent {got} instead of {event!r}")
        return got

    def call(self, event: str, **command: Any) -> dict[str, Any]:
        """Send a command and wait for the event that answers it."""
        self.send(**command)
        return self.expect(event)

    def close(self) -> None:
        """Let it quit; kill it if it does not."""
        with contextlib.suppress(OSError):
            self.send(cmd="quit")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# --- the servers -------------------------------------------------------------------------


@dataclass
class Peer:
    """One server under measurement: its process(es), and redis-server's if it has one."""

    name: str
    kind: str  # "ours" or "bgio": how the driver plays it
    label: str
    store: str
    server: Server
    redis: RedisServer | None = None

    @property
    def url(self) -> str:
        """Where it listens."""
        return self.server.url

    def redis_cpu(self) -> float:
        """CPU seconds redis-server has used so far (0 without one)."""
        if self.redis is None or self.redis.process is None:
            return 0.0
        return cpu_seconds(self.redis.process.pid)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_seconds(before: list[int], after: list[int]) -> float:
    """CPU seconds the machine spent busy (not idle, iowait or stolen) between two readings."""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    busy = spent[0] + spent[1] + spent[2] + spent[5] + spent[6]  # user nice system irq softirq
    return busy / os.sysconf("SC_CLK_TCK")


def start_ours(
    stack: contextlib.ExitStack, redis: bool, pool: int | None = None, *, echo: bool = False
) -> Peer:
    """``tictactoe serve`` of this checkout, on SQLite or on a private redis-server; or
    (``echo``) bench/echo_server.py in its place: the transport alone, no game.

    ``pool``: the most connections of each of the server's Redis clients (redis-py's
    ``max_connections``, in the URL); None leaves redis-py's default.
    """
    env = dict(OURS_ENV)
    if echo:
        server = stack.enter_context(Server.echo(env))
        return Peer("ours", "ours", "echo (no game)", "none", server)
    redis_server = None
    if redis:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-peer-redis-"))
        redis_server = RedisServer(Path(workdir))
        stack.callback(redis_server.stop)
        url = redis_server.start()
        env["TICTACTOE_REDIS_URL"] = f"{url}?max_connections={pool}" if pool else url
    server = stack.enter_context(Server.game(env))
    store = "redis" if redis else "sqlite"
    return Peer("ours", "ours", f"tictactoe-hp {__version__}", store, server, redis_server)


def start_bgio(stack: contextlib.ExitStack) -> Peer:
    """boardgame.io's server with bench/peer/bgio_server.mjs's tic-tac-toe."""
    server = stack.enter_context(
        Server("bgio", BGIO_ENV, lambda port: [node(), str(BGIO_SERVER), "--port", str(port)])
    )
    label = f"boardgame.io {package_version('boardgame.io')}"
    return Peer("bgio", "bgio", label, "memory", server)


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Window:
    """One measured window of play on one server."""

    seconds: float
    latencies: list[float]  # seconds
    events: int
    games: int
    errors: Counter[str]
    server_cpu: float
    redis_cpu: float
    driver_cpu: float
    steal: float
    others: float  # cores busy with neither server, redis-server nor the driver


@dataclass
class Measured:
    """All the windows of one server."""

    peer: Peer
    windows: list[Window] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Rates over the summed time, quantiles over every round trip of every window."""
        seconds = sum(w.seconds for w in self.windows)
        latencies = [x for w in self.windows for x in w.latencies]
        trips = max(1, len(latencies))

        def per_rt(cpu: list[float]) -> float:
            return round(1000 * sum(cpu) / trips, 3)

        errors: Counter[str] = sum((w.errors for w in self.windows), Counter())
        result = {
            "server": self.peer.label,
            "store": self.peer.store,
            "windows": len(self.windows),
            "seconds": round(seconds, 1),
            "round_trips": len(latencies),
            "rt_per_s": round(len(latencies) / seconds, 1),
            "p50_ms": round(percentile(latencies, 0.50) * 1000, 2),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
            "server_cpu_cores": round(sum(w.server_cpu for w in self.windows) / seconds, 2),
            "cpu_ms_per_rt": per_rt([w.server_cpu for w in self.windows]),
            "driver_cpu_ms_per_rt": per_rt([w.driver_cpu for w in self.windows]),
            "games": sum(w.games for w in self.windows),
            "errors": sum(errors.values()),
            "error_kinds": dict(errors),
            "steal": round(sum(w.steal * w.seconds for w in self.windows) / seconds, 3),
            "other_cores": round(sum(w.others * w.seconds for w in self.windows) / seconds, 2),
            "per_window_rt_per_s": [round(len(w.latencies) / w.seconds) for w in self.windows],
        }
        if self.peer.redis is not None:
            result["redis_cpu_ms_per_rt"] = per_rt([w.redis_cpu for w in self.windows])
        return result


def window(driver: Driver, measured: Measured, seconds: float) -> Window:
    """Play one window on ``measured``'s server; read the CPU clocks around its measured part."""
    peer = measured.peer
    driver.send(cmd="window", name=peer.name, seconds=seconds, settle=SETTLE_SECONDS)
    driver.expect("measuring")
    cpu, redis_cpu, ticks = peer.server.cpu_seconds(), peer.redis_cpu(), machine_ticks()
    result = driver.expect("measured")
    after = machine_ticks()
    seconds = float(result["seconds"])
    server_cpu = peer.server.cpu_seconds() - cpu
    redis_cpu = peer.redis_cpu() - redis_cpu
    driver_cpu = float(result["driver_cpu_s"])
    sample = Window(
        seconds=seconds,
        latencies=[ms / 1000 for ms in result["latencies_ms"]],
        events=int(result["events"]),
        games=int(result["games"]),
        errors=Counter(result["errors"]),
        server_cpu=server_cpu,
        redis_cpu=redis_cpu,
        driver_cpu=driver_cpu,
        steal=stolen_share(ticks, after),
        others=max(0.0, busy_seconds(ticks, after) - server_cpu - redis_cpu - driver_cpu) / seconds,
    )
    driver.expect("paused")
    measured.windows.append(sample)
    return sample


def load_phase(driver: Driver, peers: list[Peer], args: argparse.Namespace) -> list[Measured]:
    """Connect ``--games`` on each, warm both up, then interleaved windows."""
    for peer in peers:
        command = {"name": peer.name, "kind": peer.kind, "url": peer.url, "games": args.games}
        started = driver.call("started", cmd="start", **command)
        if started["errors"]:
            raise RuntimeError(f"{peer.label}: players failed to connect: {started['errors']}")
        driver.send(cmd="window", name=peer.name, seconds=WARMUP_SECONDS, settle=0)
        for event in ("measuring", "measured", "paused"):  # a warm-up, not counted
            driver.expect(event)
    measured = [Measured(peer) for peer in peers]
    for index in range(args.windows):
        order = measured if index % 2 == 0 else measured[::-1]
        parts = []
        for one in order:
            sample = window(driver, one, args.window)
            rate = len(sample.latencies) / sample.seconds
            p99 = percentile(sample.latencies, 0.99) * 1000
            parts.append(f"{one.peer.name} {rate:.0f} rt/s p99 {p99:.0f} ms")
        steal = sum(one.windows[-1].steal for one in measured) / len(measured)
        others = sum(one.windows[-1].others for one in measured) / len(measured)
        print(
            f"window {index + 1}: " + "; ".join(parts) + f"; steal {steal:.0%}, "
            f"other processes {others:.2f} cores",
            file=sys.stderr,
        )
    for peer in peers:
        driver.call("stopped", cmd="stop", name=peer.name)
    return measured


def idle_phase(driver: Driver, peer: Peer, count: int) -> dict[str, Any]:
    """RSS of a fresh server before and after ``count`` players connect and sit idle."""
    where = {"kind": peer.kind, "url": peer.url}
    warm = driver.call("connected", cmd="idle", name="warm", count=IDLE_WARMUP, **where)
    driver.call("released", cmd="release", name="warm")
    time.sleep(2)
    before = peer.server.rss_kb()
    connected = driver.call("connected", cmd="idle", name="idle", count=count, **where)
    time.sleep(IDLE_SETTLE_SECONDS)
    after = peer.server.rss_kb()
    driver.call("released", cmd="release", name="idle")
    players = int(connected["players"])
    errors = Counter(warm["errors"]) + Counter(connected["errors"])
    return {
        "server": peer.label,
        "store": peer.store,
        "players": players,
        "seconds": round(float(connected["seconds"]), 1),
        "rss_before_mb": round(before / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "added_mb": round((after - before) / 1024, 1),
        "kb_per_player": round((after - before) / max(1, players), 1),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
    }


# --- the report ------------------------------------------------------------------------


def table(report: dict[str, Any]) -> list[str]:
    """The load table, the ratios, then the memory table."""
    ours, theirs = report["load"]["ours"], report["load"]["bgio"]
    lines = [
        f"{report['games']} concurrent games on each, {report['windows']} windows of "
        f"{report['window']:g} s each, interleaved",
        f"{'server':<22}{'store':<8}{'rt/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/rt':>11}"
        f"{'driver ms/rt':>14}{'errors':>8}{'steal':>7}{'others':>8}",
    ]
    for row in (ours, theirs):
        lines.append(
            f"{row['server']:<22}{row['store']:<8}{row['rt_per_s']:>8,.0f}{row['p50_ms']:>9.1f}"
            f"{row['p99_ms']:>9.1f}{row['cpu_ms_per_rt']:>11.3f}{row['driver_cpu_ms_per_rt']:>14.3f}"
            f"{row['errors']:>8}{row['steal']:>7.0%}{row['other_cores']:>8.2f}"
        )
    ratio = report["ratios"]
    lines.append(
        f"{'ours / theirs':<30}{ratio['rt_per_s']:>7.2f}x{ratio['p50']:>8.2f}x{ratio['p99']:>8.2f}x"
        f"{ratio['cpu_per_rt']:>10.2f}x"
    )
    lines += targets(ratio)
    if "redis_cpu_ms_per_rt" in ours:
        lines.append(f"(redis-server, not counted above: {ours['redis_cpu_ms_per_rt']:.3f} ms/rt)")
    idle = report.get("idle")
    if idle:
        lines += [
            "",
            f"{'idle players':<22}{'store':<8}{'players':>8}{'RSS before':>12}{'after':>10}"
            f"{'added':>11}{'per player':>12}{'errors':>8}",
        ]
        for row in (idle["ours"], idle["bgio"]):
            lines.append(
                f"{row['server']:<22}{row['store']:<8}{row['players']:>8,}"
                f"{row['rss_before_mb']:>9.1f} MB{row['rss_after_mb']:>7.1f} MB"
                f"{row['added_mb']:>+8.1f} MB{row['kb_per_player']:>9.1f} KB{row['errors']:>8}"
            )
        lines.append(f"{'ours / theirs':<30}{'':>41}{ratio['kb_per_player']:>11.2f}x")
    return lines


def targets(ratio: dict[str, float]) -> list[str]:
    """Issue 45's targets against boardgame.io, each with PASS or MISS."""
    checks = [
        ("round trips, ours / theirs", ratio["rt_per_s"], ">=", RT_RATIO_TARGET),
        ("p99, ours / theirs", ratio["p99"], "<=", P99_RATIO_TARGET),
    ]
    if "kb_per_player" in ratio:
        checks.append(("memory a player, ours / theirs", ratio["kb_per_player"], "<=", KB_TARGET))
    lines = []
    for name, value, sense, target in checks:
        ok = value >= target if sense == ">=" else value <= target
        verdict = "PASS" if ok else "MISS"
        lines.append(f"{name:<32}{value:>6.2f}x (target {sense} {target}x)  {verdict}")
    return lines


def ratios(report: dict[str, Any]) -> dict[str, float]:
    """Ours over theirs, for each figure."""
    ours, theirs = report["load"]["ours"], report["load"]["bgio"]
    result = {
        "rt_per_s": ours["rt_per_s"] / theirs["rt_per_s"],
        "p50": ours["p50_ms"] / theirs["p50_ms"],
        "p99": ours["p99_ms"] / theirs["p99_ms"],
        "cpu_per_rt": ours["cpu_ms_per_rt"] / theirs["cpu_ms_per_rt"],
    }
    if report.get("idle"):
        idle = report["idle"]
        result["kb_per_player"] = idle["ours"]["kb_per_player"] / idle["bgio"]["kb_per_player"]
    return {name: round(value, 3) for name, value in result.items()}


# --- the run ---------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The load phase on both servers, then the idle phase on fresh ones."""
    report: dict[str, Any] = {"games": args.games, "window": args.window, "windows": args.windows}
    if args.redis_pool:
        report["redis_pool"] = args.redis_pool
    report["socket.io-client"] = package_version("socket.io-client")
    driver = Driver()
    try:
        with contextlib.ExitStack() as stack:
            peers = [
                start_ours(stack, args.redis, args.redis_pool, echo=args.echo),
                start_bgio(stack),
            ]
            measured = load_phase(driver, peers, args)
            report["load"] = {one.peer.name: one.summary() for one in measured}
        if args.idle:
            report["idle"] = {}
            for name in ("ours", "bgio"):
                with contextlib.ExitStack() as stack:
                    if name == "ours":
                        peer = start_ours(stack, args.redis, args.redis_pool, echo=args.echo)
                    else:
                        peer = start_bgio(stack)
                    report["idle"][name] = idle_phase(driver, peer, args.idle)
                print(f"idle {name}: {json.dumps(report['idle'][name])}", file=sys.stderr)
    finally:
        driver.close()
    report["ratios"] = ratios(report)
    return report


def main() -> int:
    """Install, measure, print the table (or the report as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games on each (200)")
    parser.add_argument("--window", type=float, default=10, help="seconds measured a window (10)")
    parser.add_argument("--windows", type=int, default=3, help="windows on each server (3)")
    parser.add_argument("--idle", type=int, default=2000, help="idle players (2000; 0: none)")
    parser.add_argument("--redis", action="store_true", help="ours on a private redis-server")
    parser.add_argument(
        "--redis-pool",
        type=int,
        metavar="N",
        help="with --redis: max_connections=N in TICTACTOE_REDIS_URL (unset: redis-py's "
        "default, 100 a client in redis-py 8.1: fewer than 200 games' greenlets)",
    )
    parser.add_argument(
        "--echo",
        action="store_true",
        help="bench/echo_server.py in the place of ours: what the transport alone does "
        "against boardgame.io, with the same driver",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    if args.games < 1 or args.windows < 1 or args.window <= 0 or args.idle < 0:
        parser.error("--games and --windows must be at least 1, --window positive, --idle >= 0")
    if args.echo and args.redis:
        parser.error("--echo never uses Redis")
    if args.redis_pool is not None and (args.redis_pool < 1 or not args.redis):
        parser.error("--redis-pool needs --redis and a positive number")
    install()
    try:
        report = run(args)
    except (RuntimeError, TimeoutError) as err:
        print(f"peer.py: error: {err}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else "\n".join(table(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
