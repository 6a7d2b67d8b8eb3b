"""Soak test: 200 players on the production server for a long stretch, watching memory.

The players of bench/players.py, as bench/load.py drives them (own session each, whole
adaptive games, as fast as the server answers), against ``tictactoe serve`` (AI delay
0, a temporary data dir) for ``--minutes`` (10 by default). Prints the RSS of the
server's processes (arbiter and workers) every ``--every`` seconds; reports errors and
the RSS at the start (after ``--warmup`` seconds) and at the end. Target: RSS grows by
less than 10%.

    .venv/bin/python bench/soak.py --minutes 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from players import Pool, Server, Tally

GROWTH_TARGET = 0.10


async def soak(server: Server, args: argparse.Namespace) -> dict[str, Any]:
    """Run the players, sampling RSS, until the time is up."""
    pool = Pool(server, args.clients)
    await pool.start()
    tally = pool.tally = Tally(measuring=True)
    started = time.monotonic()
    pool.go.set()
    await asyncio.sleep(args.warmup)
    start_rss, round_trips = server.rss_kb(), len(tally.latencies)
    timeline = [(round(time.monotonic() - started), round(start_rss / 1024, 1))]
    deadline = started + args.minutes * 60
    while time.monotonic() < deadline:
        await asyncio.sleep(min(args.every, max(0.0, deadline - time.monotonic())))
        timeline.append((round(time.monotonic() - started), round(server.rss_kb() / 1024, 1)))
        print(f"{timeline[-1][0]:>6} s  rss {timeline[-1][1]} MB", file=sys.stderr)
    end_rss = server.rss_kb()
    measured = time.monotonic() - started - args.warmup
    done = len(tally.latencies) - round_trips
    await pool.close()
    return {
        "clients": args.clients,
        "minutes": args.minutes,
        "ai_round_trips": done,
        "ai_round_trips_per_s": round(done / measured, 1),
        "games": tally.games,
        "matches": tally.matches,
        "errors": sum(tally.errors.values()),
        "error_kinds": dict(tally.errors),
        "rss_start_mb": round(start_rss / 1024, 1),
        "rss_end_mb": round(end_rss / 1024, 1),
        "rss_growth": round(end_rss / start_rss - 1, 4),
        "peak_rss_mb": round(server.peak_rss_kb / 1024, 1),
        "timeline": timeline,
    }


def main() -> int:
    """Start the server, soak it, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent players (200)")
    parser.add_argument("--minutes", type=float, default=10, help="how long (10)")
    parser.add_argument("--warmup", type=float, default=30, help="seconds before start RSS (30)")
    parser.add_argument("--every", type=float, default=15, help="seconds between samples (15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with Server.game() as server:
        report = asyncio.run(soak(server, args))
    ok = report["errors"] == 0 and report["rss_growth"] < GROWTH_TARGET
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['clients']} players for {report['minutes']} min: "
            f"{report['ai_round_trips']:,} AI round trips ({report['ai_round_trips_per_s']}/s), "
            f"{report['games']:,} games, errors {report['errors']} {report['error_kinds']}\n"
            f"RSS {report['rss_start_mb']} MB after warm-up -> {report['rss_end_mb']} MB at the "
            f"end ({report['rss_growth']:+.1%}, target < {GROWTH_TARGET:.0%})  "
            f"{'PASS' if ok else 'MISS'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
