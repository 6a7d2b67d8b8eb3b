"""Load benchmark: the game server against a bare Flask-SocketIO echo server (and a baseline).

Starts ``tictactoe serve`` of this checkout ("game") and bench/echo_server.py ("echo",
served by the same gunicorn application and worker class), each on a free loopback
port with AI delay 0 and its own temporary data dir; with ``--baseline-command``, also
another build of the game ("baseline", e.g. the previous release) with the same
TICTACTOE_* settings. Drives each with N concurrent Socket.IO clients over websocket
(bench/players.py). Every client loads the page first for its session cookie and
release, then plays whole adaptive games through the protocol: a move on a random
empty cell, ``next_game`` when a game ends, ``new_match`` when the match ends.

The kinds of load take turns in short windows (echo, game, baseline, game with a
flooder, and again) with every player connected once, so that drifts in the
machine's speed (this VM loses a varying share of its CPU to its neighbours) weigh on
all kinds alike. Reports for each kind AI-move round trips a second (emit ``move`` ->
the ``state`` carrying the AI's reply), their p50/p95/p99 latency, errors, the
server's CPU use and peak RSS; then the ratios game/echo (against targets) and
game/baseline. Optional phases: one client flooding at ``--flood`` events a second
during a second run on the game (others' p99 compared with the run without it), and
``--idle-sessions`` connected once then disconnected (RSS added).

With ``--redis`` or ``--workers N`` every game server (game, baseline) gets its own
private redis-server; the echo never uses Redis.

Players offer no compression unless ``--deflate``: the echo would accept the
permessage-deflate that browsers offer and compress every frame (CPU the game, which
refuses it, does not spend), so without it both are served alike.

    .venv/bin/python bench/load.py --clients 200 --seconds 5 --rounds 6 --flood 1000 \\
        --idle-sessions 10000
    .venv/bin/python bench/load.py --no-echo \\
        --baseline-command '/path/to/old/.venv/bin/tictactoe serve --host 127.0.0.1 --port {port}'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from players import (
    CALL_TIMEOUT,
    CONNECT_ERRORS,
    Client,
    Pool,
    Sample,
    Server,
    new_player,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import RedisServer, percentile

# Targets at N=200 (docs/performance.md): issue 45's game/echo round trips, 0.80 on 0.1.0.
THROUGHPUT_RATIO_TARGET = 0.75
GAME_OWN_CPU_TARGET_MS = 0.10  # the game's CPU a round trip beyond the echo's
P99_RATIO_TARGET = 1.25
FLOOD_P99_RATIO_TARGET = 2.0
IDLE_MB_TARGET = 200.0
IDLE_SETTLE_SECONDS = 50


async def sample_rss(servers: list[Server], stop: asyncio.Event) -> None:
    """Keep the servers' peak RSS up to date."""
    while not stop.is_set():
        for server in servers:
            server.rss_kb()
        await asyncio.sleep(0.25)


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
            await new_player(client, server.port)
        except CONNECT_ERRORS as err:
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


# --- the servers of a run -----------------------------------------------------------------


class Builds:
    """Starts the servers of a run, each with its own Redis when asked; stops them all."""

    def __init__(self, args: argparse.Namespace, stack: contextlib.ExitStack) -> None:
        self.args, self.stack = args, stack
        self.env: dict[str, str] = {}
        if args.rate:
            self.env["TICTACTOE_RATE_PER_SECOND"] = str(args.rate)
        if args.burst:
            self.env["TICTACTOE_RATE_BURST"] = str(args.burst)
        self.redis = args.redis or args.workers > 1
        if self.redis:
            self.env["TICTACTOE_WORKERS"] = str(args.workers)

    def game(self, name: str = "game") -> Server:
        """A running game server: this checkout's ("game") or the baseline build."""
        env = dict(self.env)
        if self.redis:  # a private one each: Redis pub/sub channels span all databases
            workdir = self.stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-redis-"))
            redis = RedisServer(Path(workdir))
            self.stack.callback(redis.stop)
            env["TICTACTOE_REDIS_URL"] = redis.start()
        if name == "baseline":
            server = Server.from_template(name, self.args.baseline_command, env)
        else:
            server = Server.game(env)
        return self.stack.enter_context(server)

    def echo(self) -> Server:
        """A running echo server."""
        return self.stack.enter_context(Server.echo(self.env))


# --- report ------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def ratios(report: dict[str, Any], name: str, over: str) -> tuple[float, float] | None:
    """Round trips a second and p99 of ``name`` over those of ``over``, kept in the report."""
    one, other = report.get(name), report.get(over)
    if not (one and other):
        return None
    throughput = one["ai_round_trips_per_s"] / other["ai_round_trips_per_s"]
    p99 = one["p99_ms"] / other["p99_ms"]
    report.setdefault("ratios", {})[f"{name}/{over}"] = {
        "throughput": round(throughput, 3),
        "p99": round(p99, 3),
    }
    return throughput, p99


def summarise(report: dict[str, Any]) -> list[str]:
    """Ratios and target verdicts, as lines."""
    lines, game = [], report.get("game")
    echo = ratios(report, "game", "echo")
    if echo:
        lines.append(
            f"throughput game/echo      {echo[0]:.1%} (target >= {THROUGHPUT_RATIO_TARGET:.0%})"
            f"  {verdict(echo[0] >= THROUGHPUT_RATIO_TARGET)}"
        )
        lines.append(
            f"p99 game/echo             {echo[1]:.2f}x (target <= {P99_RATIO_TARGET}x)"
            f"  {verdict(echo[1] <= P99_RATIO_TARGET)}"
        )
        own = (
            report["game"]["server_cpu_ms_per_round_trip"]
            - report["echo"]["server_cpu_ms_per_round_trip"]
        )
        report["ratios"]["game/echo"]["own_cpu_ms_per_round_trip"] = round(own, 3)
        lines.append(
            f"game's own CPU a rt       {own:.3f} ms (game - echo; target <="
            f" {GAME_OWN_CPU_TARGET_MS} ms)  {verdict(own <= GAME_OWN_CPU_TARGET_MS)}"
        )
    baseline = ratios(report, "game", "baseline")
    if baseline:
        lines.append(f"throughput game/baseline  {baseline[0]:.1%}")
        lines.append(f"p99 game/baseline         {baseline[1]:.2f}x")
    for name in ("game", "baseline"):
        if report.get(name):
            errors = report[name]["errors"]
            lines.append(f"errors {name:<18} {errors}  {verdict(errors == 0)}")
    flooded = report.get("flooded")
    if game and flooded:
        ratio = flooded["p99_ms"] / game["p99_ms"]
        report.setdefault("ratios", {})["flooded/game"] = {"p99": round(ratio, 3)}
        lines.append(
            f"p99 flooded/calm          {ratio:.2f}x (target <= {FLOOD_P99_RATIO_TARGET}x)"
            f"  {verdict(ratio <= FLOOD_P99_RATIO_TARGET and flooded['errors'] == 0)}"
        )
    idle = report.get("idle")
    if idle:
        ok = idle["added_mb"] <= IDLE_MB_TARGET and idle["errors"] == 0
        lines.append(
            f"idle sessions             +{idle['added_mb']} MB for {idle['sessions']:,}"
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


# --- the run ---------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Rounds of windows: echo, game, baseline (and game with a flooder) in turn; then idle."""
    report: dict[str, Any] = {"clients": args.clients, "deflate": args.deflate}
    with contextlib.ExitStack() as stack:
        builds = Builds(args, stack)
        report["settings"] = {**builds.env, "redis": builds.redis}
        if args.baseline_command:
            report["baseline_command"] = args.baseline_command
        servers: dict[str, Server] = {}
        if not args.no_echo:
            servers["echo"] = builds.echo()
        if not args.echo_only:
            servers["game"] = builds.game()
            if args.baseline_command:
                servers["baseline"] = builds.game("baseline")
        pools = {
            name: Pool(server, args.clients, deflate=args.deflate)
            for name, server in servers.items()
        }
        if args.flood and "game" in servers:
            pools["flooded"] = Pool(
                servers["game"], args.clients, flood=args.flood, deflate=args.deflate
            )
        stop = asyncio.Event()
        sampler = asyncio.create_task(sample_rss(list(servers.values()), stop))
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
        await sampler
    if args.idle_sessions and not args.echo_only:
        with contextlib.ExitStack() as stack:
            report["idle"] = await idle_phase(Builds(args, stack).game(), args.idle_sessions)
        print(f"idle     {json.dumps(report['idle'])}", file=sys.stderr)
    return report


def main() -> int:
    """Parse the options, run the phases, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent players (200)")
    parser.add_argument("--seconds", type=float, default=5, help="measured per window (5)")
    parser.add_argument("--rounds", type=int, default=6, help="windows of each kind (6)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured start (3)")
    parser.add_argument("--no-echo", action="store_true", help="skip the echo server")
    parser.add_argument("--echo-only", action="store_true", help="only the echo server")
    parser.add_argument(
        "--baseline-command",
        metavar="CMD",
        help="also measure another build of the game, started by this command line with "
        "{port} in it (same TICTACTOE_* settings, its own data dir), as the pool 'baseline'",
    )
    parser.add_argument("--flood", type=int, default=0, help="flooder events/s (0: none)")
    parser.add_argument("--idle-sessions", type=int, default=0, help="idle sessions (0: none)")
    parser.add_argument("--rate", type=float, default=None, help="TICTACTOE_RATE_PER_SECOND")
    parser.add_argument("--burst", type=int, default=None, help="TICTACTOE_RATE_BURST")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="players offer permessage-deflate, as browsers do: the echo accepts it and "
        "compresses every frame, the game refuses it; without it both are served alike",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="serve each game build with N worker processes, on Redis (1)",
    )
    parser.add_argument(
        "--redis", action="store_true", help="store each game build's matches in a redis-server"
    )
    args = parser.parse_args()
    if args.baseline_command and "{port}" not in args.baseline_command:
        parser.error("--baseline-command needs {port} in it")
    try:
        report = asyncio.run(run(args))
    except RuntimeError as err:  # a server that would not start
        print(f"load.py: error: {err}", file=sys.stderr)
        return 1
    lines = summarise(report)
    if args.json:
        print(json.dumps(report, indent=2))
    elif lines:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
