"""Failover across two hosts: how long until every player is back after one host dies.

The scenario of tests/test_two_hosts.py, as a figure: the hosting guide's nginx configuration in
front of two ``tictactoe serve`` hosts (network namespaces on a private /24, one Redis),
``--players`` players mid-game through nginx, host A killed with kill -9. Each player
whose socket dropped reconnects through nginx at once (the page waits 0.5-1.5 s more,
socket.io's reconnection delay); every player must find its match unchanged on host B
and finish its game there. Prints the reconnection time over the players who lost their
socket (p50, p99, max: from the kill until their new connection had its state), and the
games lost or changed (target: 0, and every player back within 5 s).

``--cut`` takes host A's link down before killing it, as a host that loses power: its
sockets then drop only when socket.io's ping times out (25 s + 20 s by default).

Needs root, ``ip``, ``nginx`` and ``redis-server``; everything it creates is removed.

    sudo .venv/bin/python bench/failover.py --players 100
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.hosts import (
    BEYOND_GUIDE,
    NamespacesRefused,
    TwoHosts,
    failover,
    unavailable,
)

GOAL_SECONDS = 5.0
CUT_DROP_SECONDS = 60.0  # above socket.io's ping interval and timeout (25 + 20 s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100, help="players mid-game (100)")
    parser.add_argument("--ai-delay-ms", type=int, default=0, help="the hosts' AI delay (0)")
    parser.add_argument("--cut", action="store_true", help="host A loses its link, then dies")
    parser.add_argument(
        "--nginx-line",
        action="append",
        default=[],
        metavar="LINE",
        help="a line added to the guide's location / (marked as not the guide's), e.g. "
        "'proxy_connect_timeout 1s;'; repeatable",
    )
    parser.add_argument("--show-config", action="store_true", help="print nginx's config")
    args = parser.parse_args()
    reason = unavailable()
    if reason:
        print(f"failover: {reason}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        beyond = (*BEYOND_GUIDE, *args.nginx_line)
        with TwoHosts(ai_delay_ms=args.ai_delay_ms, beyond=beyond) as two:
            if args.show_config:
                print(two.config, file=sys.stderr)
            ready_s = time.monotonic() - started
            drop_s = CUT_DROP_SECONDS if args.cut else 10.0
            run = failover(
                two, args.players, cut=args.cut, drop_seconds=drop_s, reconnect_seconds=60
            )
    except NamespacesRefused as err:
        print(f"failover: cannot create network namespaces: {err}", file=sys.stderr)
        return 2
    summary = {**run.summary(), "hosts_ready_s": round(ready_s, 1)}
    summary["whole_run_s"] = round(time.monotonic() - started, 1)
    back = summary["back_ms"]
    print(
        f"{summary['players']} players, {summary['lost_socket']} on the killed host: "
        f"back in p50 {back['p50']} ms, p99 {back['p99']} ms, max {back['max']} ms "
        f"(goal: all within {GOAL_SECONDS:g} s); games lost {summary['games_lost']}, "
        f"changed {summary['games_changed']}, finished {summary['games_finished']}, "
        f"players not back {summary['not_back']}, errors {summary['errors']}"
    )
    for outcome in run.outcomes:
        if outcome.error or outcome.lost or outcome.changed:
            print(f"player {outcome.index}: {outcome.error or outcome.differences()}")
    print(json.dumps(summary))
    bad = summary["games_lost"] or summary["games_changed"] or summary["not_back"]
    return 1 if bad or summary["games_finished"] != summary["players"] else 0


if __name__ == "__main__":
    sys.exit(main())
