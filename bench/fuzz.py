"""Bounded protocol fuzz against the real production server, over websocket.

A longer run than tests/test_fuzz.py: ``--events`` random events (100,000 by default)
from ``--connections`` players, each its own session. Events are the protocol's four
and random names; payloads are near-valid objects, arbitrary JSON, wrong arities,
and objects just over the app's payload limit. A small share of frames is junk at the
transport level (broken packets, binary attachments, frames over the transport limit):
the server may drop that connection, which then reconnects. Junk frames come on top of
the ``--events`` count.

Checks every answer: an acknowledgement that is ``{"ok": true}`` (for a protocol event)
or one of the protocol's refusal codes (``internal``, a fault of the server, counts
as a violation); a refused event sends no ``state``; versions only grow; a new player
still gets its state afterwards. Prints the counts and exits 1 on any violation.

The rate limit is raised for this run (it would otherwise answer most events with
``rate_limited``, which tests/test_protocol.py already covers).

    .venv/bin/python bench/fuzz.py --events 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import string
import sys
import time
from collections import Counter
from typing import Any

from players import CONNECT_ERRORS, Client, Server, new_player

from webapp.server.app import transport_limit
from webapp.server.protocol.vocabulary import ErrorCode, Event
from webapp.server.settings import DEFAULTS

PROTOCOL = tuple(Event)
REFUSALS = frozenset(ErrorCode) - {ErrorCode.INTERNAL}
RESERVED = {"connect", "disconnect", "message", "json", "connect_error"}
FIELDS = ("cell", "mode", "human_hp", "ai_hp", "x")
JUNK_SHARE = 0.01


def json_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, small and sometimes nested."""
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([rng.randint(-3, 12), rng.randint(-(2**70), 2**70)])
    if kind == 3:
        return rng.choice([rng.uniform(-1e9, 1e9), 4.0, -0.0, 1e308])
    if kind == 4:
        alphabet = string.printable + "é✓\u2028\x00"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(10)))
    if kind in (5, 6):
        return {
            rng.choice([*FIELDS, "", "__proto__"]): json_value(rng, depth + 1)
            for _ in range(rng.randrange(4))
        }
    return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def payload(rng: random.Random, limit: int) -> list[Any]:
    """The arguments after the event name: usually one, sometimes none or two."""
    roll = rng.random()
    if roll < 0.05:
        return []
    if roll < 0.08:
        return [json_value(rng), json_value(rng)]
    if roll < 0.10:  # just over the app's limit, under the transport's
        return [{"mode": "x" * (limit + rng.randrange(1, 200))}]
    if roll < 0.55:
        fields = rng.sample(FIELDS, rng.randrange(0, 3))
        choices = [rng.randint(-2, 102), "adaptive", "hard", "nope", "4", None, 4.0, True]
        return [{name: rng.choice([*choices, json_value(rng)]) for name in fields}]
    return [json_value(rng)]


def event_name(rng: random.Random) -> str:
    """Mostly the protocol's events, else a random name (never a reserved one)."""
    if rng.random() < 0.8:
        return rng.choice(PROTOCOL)
    if rng.random() < 0.02:
        return "*"  # python-socketio's catch-all name
    name = "".join(rng.choice(string.ascii_letters + "_-.:") for _ in range(rng.randint(1, 12)))
    return name if name not in RESERVED else "x" + name


def junk(rng: random.Random, transport_limit: int) -> str:
    """A frame the Socket.IO parser should refuse, or one over the transport limit."""
    return rng.choice(
        [
            '42["move"',
            "42{not json}",
            "4",
            "49[]",
            '451-["move",{"_placeholder":true,"num":0}]',
            "42" + json.dumps(["move", {"cell": "y" * transport_limit}]),
            "9",
            "",
        ]
    )


class Fuzzer:
    """One connection sending events one at a time and checking every answer."""

    def __init__(self, server: Server, rng: random.Random, tally: Counter[str]) -> None:
        self.server, self.rng, self.tally = server, rng, tally
        self.client = Client()
        self.version = 0
        self.violations: list[str] = []

    async def connect(self) -> None:
        """Open a new connection with a new session."""
        self.client = Client()
        self.version = (await new_player(self.client, self.server.port))["version"]

    async def one(self, limit: int, transport_limit: int) -> None:
        """Send one event (after a junk frame, now and then) and check what comes back."""
        if self.rng.random() < JUNK_SHARE:
            await self.junk(transport_limit)
        event, args = event_name(self.rng), payload(self.rng, limit)
        self.client.arrivals.clear()
        ack = await self.client.call(event, *args)
        self.tally["events"] += 1
        states = [s for _, s in self.client.arrivals]
        if not isinstance(ack, dict) or not isinstance(ack.get("ok"), bool):
            self.violate(f"{event} {args!r}: ack {ack!r}")
        elif ack["ok"]:
            self.tally["ok"] += 1
            if event not in PROTOCOL:
                self.violate(f"{event}: ok for an unknown event")
        else:
            code = ack.get("error", {}).get("code")
            self.tally[str(code)] += 1
            if code == ErrorCode.INTERNAL:
                self.violate(f"{event} {args!r}: the server failed ({code})")
            elif code not in REFUSALS:
                self.violate(f"{event} {args!r}: unknown code {code!r}")
            if states:
                self.violate(f"{event} {args!r}: refused ({code}) yet sent a state")
        for state in states:
            if state["version"] <= self.version:
                self.violate(f"version went from {self.version} to {state['version']}")
            self.version = state["version"]

    async def junk(self, transport_limit: int) -> None:
        """Send one junk frame, then start over on a new connection whatever happened."""
        self.tally["junk"] += 1
        self.client.write(junk(self.rng, transport_limit))
        await asyncio.sleep(0.05)
        if self.client.reader is None or self.client.reader.done():
            self.tally["junk: server closed the connection"] += 1
        await self.client.close()
        await self.connect()

    def violate(self, message: str) -> None:
        """Record one broken promise of the protocol."""
        self.tally["violations"] += 1
        if len(self.violations) < 20:
            self.violations.append(message)


async def fuzz(server: Server, args: argparse.Namespace) -> tuple[Counter[str], list[str]]:
    """Run ``args.events`` events over ``args.connections`` fuzzers."""
    tally: Counter[str] = Counter()
    fuzzers = [Fuzzer(server, random.Random(args.seed + i), tally) for i in range(args.connections)]
    for fuzzer in fuzzers:
        await fuzzer.connect()
    budget = iter(range(args.events))

    async def drive(fuzzer: Fuzzer) -> None:
        for _ in budget:
            try:
                await fuzzer.one(args.payload_limit, args.transport_limit)
            except CONNECT_ERRORS as err:
                tally[f"lost: {type(err).__name__}"] += 1
                await fuzzer.connect()

    await asyncio.gather(*(drive(f) for f in fuzzers))
    for fuzzer in fuzzers:
        await fuzzer.client.close()
    return tally, [v for f in fuzzers for v in f.violations]


async def answers_new_player(server: Server) -> bool:
    """True when a new player still loads the page, connects and gets its state."""
    client = Client()
    try:
        await new_player(client, server.port)
    except CONNECT_ERRORS:
        return False
    finally:
        await client.close()
    return True


def main() -> int:
    """Start the server, fuzz it, print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="events to send (100000)")
    parser.add_argument("--connections", type=int, default=20, help="players at once (20)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    args.payload_limit = int(DEFAULTS["MAX_PAYLOAD_BYTES"])
    args.transport_limit = transport_limit(args.payload_limit)
    unlimited = {"TICTACTOE_RATE_PER_SECOND": "10000", "TICTACTOE_RATE_BURST": "100000"}
    with Server.game(unlimited) as server:
        started = time.perf_counter()
        tally, violations = asyncio.run(fuzz(server, args))
        elapsed = time.perf_counter() - started
        alive = asyncio.run(answers_new_player(server))
        rss = server.rss_kb()
    answers = {k: v for k, v in sorted(tally.items()) if k != "events"}
    report = {
        "events": tally["events"],
        "seconds": round(elapsed, 1),
        "events_per_s": round(tally["events"] / elapsed),
        "answers": answers,
        "violations": violations,
        "new_player_served_after": alive,
        "server_rss_mb": round(rss / 1024, 1),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"fuzzed {report['events']:,} events in {report['seconds']} s")
        for key, count in answers.items():
            print(f"  {key:<34} {count:>8,}")
        print(f"a new player served after: {alive}; RSS {report['server_rss_mb']} MB")
        for violation in violations:
            print(f"VIOLATION {violation}")
    ok = alive and not violations and tally["events"] >= args.events
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
