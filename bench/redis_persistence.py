"""What Redis's persistence costs the game: moves a second and their p99, by setting.

Starts one private redis-server and one ``tictactoe serve`` on it for each setting:
``none`` (no append-only file, no snapshots: what the tests use), ``everysec``
(``appendonly yes``, ``appendfsync everysec``: fsync once a second, so a crash may lose
the last second) and ``always`` (``appendonly yes``, ``appendfsync always``: every write
fsynced before Redis answers). ``--clients`` players of bench/players.py play whole
games on each in turn, in short windows (so that the machine's drifts weigh on every
setting alike). Reports for each setting AI-move round trips a second (a move, saved,
then the AI's answer, saved: two writes), and their p50/p99 latency, as JSON.

    .venv/bin/python bench/redis_persistence.py --clients 40 --seconds 4 --rounds 4
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from load import summary
from players import Pool, Sample, Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import RedisServer

SETTINGS: dict[str, dict[str, str]] = {
    "none": {"appendonly": "no"},
    "everysec": {"appendonly": "yes", "appendfsync": "everysec"},
    "always": {"appendonly": "yes", "appendfsync": "always"},
}
# Players here move as fast as the server answers: the per-connection rate limit is
# lifted so that the store, not the limit, sets the pace.
UNLIMITED = {"TICTACTOE_RATE_PER_SECOND": "10000", "TICTACTOE_RATE_BURST": "10000"}
REPORTED = (
    "ai_round_trips_per_s",
    "p50_ms",
    "p99_ms",
    "errors",
    "error_kinds",
    "server_cpu",
    "steal",
)


def game_on_redis(stack: contextlib.ExitStack, settings: dict[str, str]) -> Server:
    """A running game server on a private Redis with ``settings``, its files on disk."""
    workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-redis-"))
    redis = RedisServer(Path(workdir), settings=settings)
    stack.callback(redis.stop)
    return stack.enter_context(Server.game({**UNLIMITED, "TICTACTOE_REDIS_URL": redis.start()}))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Rounds of windows, one per setting in turn; the summary of each setting."""
    report: dict[str, Any] = {"clients": args.clients, "seconds": args.seconds}
    with contextlib.ExitStack() as stack:
        pools = {
            name: Pool(game_on_redis(stack, SETTINGS[name]), args.clients) for name in args.settings
        }
        for pool in pools.values():
            await pool.start()
            await pool.window(args.warmup, settle=0)
        kinds: dict[str, list[Sample]] = {name: [] for name in pools}
        for index in range(args.rounds):
            for name, pool in pools.items():
                kinds[name].append(await pool.window(args.seconds))
            rates = {name: len(s[-1].tally.latencies) / s[-1].seconds for name, s in kinds.items()}
            print(f"round {index + 1}: " + json.dumps(rates), file=sys.stderr)
        for name, pool in pools.items():
            await pool.close()
            found = summary(kinds[name], pool)
            report[name] = {key: found[key] for key in REPORTED}
    return report


def main() -> int:
    """Parse the options, measure, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=40, help="concurrent players (40)")
    parser.add_argument("--seconds", type=float, default=4, help="measured per window (4)")
    parser.add_argument("--rounds", type=int, default=4, help="windows of each setting (4)")
    parser.add_argument("--warmup", type=float, default=2, help="unmeasured start (2)")
    parser.add_argument(
        "--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS), metavar="NAME"
    )
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
