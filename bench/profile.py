"""Where a round trip's CPU goes in the game server: py-spy over its worker under load.

Starts ``tictactoe serve`` of this checkout (AI delay 0, the rate limits raised; with
``--redis`` its matches in a private redis-server), connects ``--clients`` players of
bench/players.py (each plays adaptive games as fast as it is answered, on ``classic``),
then runs py-spy (``record --format raw --nonblocking``) over the worker for a window of
``--seconds``. Each sampled stack is given to one part of a round trip (``PARTS``: the
first whose marker a frame of the stack holds, a purpose such as the history at a
game's end before the code it runs, then from the innermost frame out), and the table
shows each part's share of the worker's samples and what that share is of the CPU a
round trip costs, measured in a second window of the same length without py-spy (the
server's CPU over its round trips, from /proc: robust to a busy machine, where rates
are not).

    .venv/bin/python bench/profile.py                 # SQLite
    .venv/bin/python bench/profile.py --redis --raw /tmp/redis.txt
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from players import Pool, Sample, Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import RedisServer

ENV = {
    "TICTACTOE_AI_DELAY_MS": "0",
    "TICTACTOE_RATE_PER_SECOND": "1000",
    "TICTACTOE_RATE_BURST": "2000",
}
# What a stack is spent on, by the first marker found: first the purposes (anywhere in
# the stack, in this order: a purpose before the code it runs), then the code itself
# (from the innermost frame out).
PURPOSES = (
    ("signing at a game's end", ("store/signing.py",)),
    ("deleted-player check", ("was_deleted",)),
    ("training cards at a game's end", ("Training.collect",)),
    ("history at a game's end", ("keep_if_ended",)),
    ("building the snapshot", ("protocol/snapshot.py",)),
    ("the match's transition", ("webapp/game/", "services/match_writes.py")),
    ("pushes through Redis's message queue", ("pubsub_manager.py", "redis_manager.py")),
    ("the store's write", ("webapp/server/store/",)),
    ("encoding (JSON, Socket.IO packets)", ("wire/codec.py", "Packet.encode")),
)
PARTS = (
    ("the limits", ("webapp/server/limits/", "wire/overrides.py")),
    ("handlers, service, pushes", ("webapp/server/",)),
    ("transport (Engine.IO, websocket, sockets)", ("engineio/", "simple_websocket/", "wsproto/")),
    ("transport (Engine.IO, websocket, sockets)", ("gevent/_socket", "socketio/", "h11/")),
    ("event loop (gevent's hub, greenlets)", ("gevent/", "greenlet")),
)


def part_of(frames: list[str]) -> str:
    """The part of a round trip one sampled stack (root first) is spent on."""
    for name, markers in PURPOSES:
        if any(marker in frame for frame in frames for marker in markers):
            return name
    for frame in reversed(frames):
        for name, markers in PARTS:
            if any(marker in frame for marker in markers):
                return name
    return "other"


def parts(raw: Path) -> Counter[str]:
    """Samples per part, from py-spy's raw output (a stack and its count a line)."""
    counts: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            counts[part_of(stack.split(";"))] += int(count)
    return counts


def per_trip(sample: Sample) -> float:
    """The server's CPU milliseconds per AI round trip in a window."""
    return 1000 * sample.server_cpu / max(1, len(sample.tally.latencies))


async def measure(server: Server, args: argparse.Namespace, raw: Path) -> tuple[Sample, Sample]:
    """A warm-up, a window under py-spy, then one without it."""
    pool = Pool(server, args.clients)
    await pool.start()
    await pool.window(args.warmup, settle=0)
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    command = [spy, "record", "--pid", str(server.workers()[0]), "--format", "raw"]
    command += ["--rate", str(args.rate), "--duration", str(round(args.seconds)), "--nonblocking"]
    recording = subprocess.Popen(
        [*command, "-o", str(raw)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    profiled = await pool.window(args.seconds, settle=0.2)
    _, errors = recording.communicate(timeout=args.seconds + 30)
    if recording.returncode:
        raise RuntimeError(f"py-spy failed: {errors.decode(errors='replace')[-500:]}")
    plain = await pool.window(args.seconds, settle=0.2)
    await pool.close()
    return profiled, plain


def report(counts: Counter[str], profiled: Sample, plain: Sample) -> list[str]:
    """The table: each part's share of the samples and of a round trip's CPU."""
    total, cpu = max(1, sum(counts.values())), per_trip(plain)
    trips = len(plain.tally.latencies)
    lines = [
        f"without py-spy: {trips / plain.seconds:.0f} rt/s, {cpu:.3f} ms of server CPU a round"
        f" trip, steal {plain.steal:.0%}; under py-spy {per_trip(profiled):.3f} ms; errors"
        f" {sum(plain.tally.errors.values()) + sum(profiled.tally.errors.values())}",
        f"{'part':<44}{'share':>7}{'ms/rt':>8}",
    ]
    for name, count in counts.most_common():
        lines.append(f"{name:<44}{count / total:>7.1%}{cpu * count / total:>8.3f}")
    lines.append(f"{'(samples)':<44}{total:>7}")
    return lines


def main() -> int:
    """Run the server, profile it under load, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100, help="concurrent players (100)")
    parser.add_argument("--seconds", type=float, default=10, help="each window (10)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured start (3)")
    parser.add_argument("--rate", type=int, default=200, help="py-spy's samples a second (200)")
    parser.add_argument("--redis", action="store_true", help="matches in a redis-server")
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw stacks in this file")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-prof-")))
        env = dict(ENV)
        if args.redis:
            redis = RedisServer(workdir)
            stack.callback(redis.stop)
            env["TICTACTOE_REDIS_URL"] = redis.start()
        server = stack.enter_context(Server.game(env))
        raw = args.raw or workdir / "stacks.txt"
        try:
            profiled, plain = asyncio.run(measure(server, args, raw))
        except (RuntimeError, TimeoutError, subprocess.TimeoutExpired) as err:
            print(f"profile.py: error: {err}", file=sys.stderr)
            return 1
        print("\n".join(report(parts(raw), profiled, plain)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
