"""What SQLite's full ``quick_check`` costs on a database of realistic size, and whether
the players notice it (docs/security.md, "Health").

Builds a data dir of 10,000 stored matches and 50,000 finished games (five for each of
10,000 players, with their lifetime counters), each row a real match's or game's, then:

  check     the file's size and the seconds of one full ``quick_check`` through a new
            connection, as the server runs it (the median of three)
  players   a bystander's ``hint`` round trips (about 14 a second) and ``/healthz`` on a
            real server over that data dir, first with the check on its default schedule
            (10 minutes: none runs in the window), then with it every 0.6 s
            (``TICTACTOE_QUICK_CHECK_MINUTES=0.01``), so that it runs back to back

    .venv/bin/python bench/attack_records.py
    .venv/bin/python bench/attack_records.py --small --seconds 5
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from webapp.game.history import counted, finished_game, game_key
from webapp.game.match import Match, ai_move, human_move, new_match, next_game
from webapp.game.records import to_record
from webapp.server.store.sqlite.db import DATABASE_FILE
from webapp.server.store.sqlite.history import SQLiteHistory
from webapp.server.store.sqlite.matches import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import Player, ServerProcess, percentile, session_cookie

MATCHES = 10_000
GAMES_PER_PLAYER = 5
SAMPLES = 200  # distinct real games, their rows reused under other players' names
HINT_PAUSE = 0.07
HEALTH_PAUSE = 0.25


def played(rng: random.Random) -> list[Match]:
    """A match's first few finished games, each as the match was when it ended."""
    match, ended = new_match(rng), []
    while len(ended) < GAMES_PER_PLAYER and not match.over:
        while match.game.turn is not None:
            if match.game.turn == "ai":
                match = ai_move(match)
            else:
                match = human_move(match, rng.choice(match.game.board.legal_moves()))
        ended.append(match)
        if not match.over:
            match = next_game(match, rng)
    return ended


def build(data_dir: Path, players: int) -> None:
    """The data dir with ``players`` matches and five finished games each."""
    SQLiteStore(data_dir / DATABASE_FILE).close()  # the schema, as the server makes it
    SQLiteHistory(data_dir, per_player=500, idle_seconds=86400).close()
    rng = random.Random(1)
    samples: list[list[Match]] = []
    while len(samples) < SAMPLES:  # matches that lasted five games at least
        found = played(rng)
        if len(found) == GAMES_PER_PLAYER:
            samples.append(found)
    now = time.time()
    matches, games, totals = [], [], []
    for n in range(players):
        player = f"player-{n:06}-{rng.getrandbits(64):016x}"
        ended = samples[n % SAMPLES]
        last = ended[-1]
        matches.append((player, last.version, orjson.dumps(to_record(last)).decode(), now))
        counters: dict[str, int] = {}
        for k, match in enumerate(ended):
            entry = finished_game(match, game_id=f"{n}-{k}-{rng.getrandbits(64):x}", ended=now)
            counters = counted(counters, entry)
            key = f"{game_key(match)}:{n}"
            games.append((player, key, entry["id"], now - k, orjson.dumps(entry).decode()))
        totals.append((player, orjson.dumps(counters).decode(), now))
    with contextlib.closing(sqlite3.connect(data_dir / DATABASE_FILE)) as db, db:
        db.executemany("INSERT INTO matches VALUES (?, ?, ?, ?)", matches)
        db.executemany(
            "INSERT INTO games (player, key, id, ended, data) VALUES (?, ?, ?, ?, ?)", games
        )
        db.executemany("INSERT INTO game_totals VALUES (?, ?, ?)", totals)
    with contextlib.closing(sqlite3.connect(data_dir / DATABASE_FILE)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def check_seconds(data_dir: Path) -> tuple[float, dict[str, int]]:
    """The median seconds of three full checks, and the rows found."""
    uri = (data_dir / DATABASE_FILE).resolve().as_uri() + "?mode=ro"
    times = []
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        for _ in range(3):
            started = time.perf_counter()
            assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
            times.append(time.perf_counter() - started)
        rows = {
            table: int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("matches", "games", "game_totals")
        }
    return statistics.median(times), rows


class Probe(threading.Thread):
    """Calls ``call`` every ``pause`` seconds until stopped; keeps each round trip."""

    def __init__(self, call: Callable[[], object], pause: float, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.call, self.pause, self.stop = call, pause, stop
        self.durations: list[float] = []

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                self.call()
                self.durations.append(time.perf_counter() - started)
            except Exception:
                self.durations.append(5.0)  # a failed call counts as 5 s
            self.stop.wait(self.pause)

    def summary(self) -> dict[str, Any]:
        return {
            "p50_ms": round(percentile(self.durations, 0.5) * 1000, 1),
            "p99_ms": round(percentile(self.durations, 0.99) * 1000, 1),
            "calls": len(self.durations),
        }


def players_during(data_dir: Path, minutes: str, seconds: float) -> dict[str, Any]:
    """A bystander's hints and /healthz for ``seconds`` on a server over ``data_dir``."""
    server = ServerProcess(data_dir, {"TICTACTOE_QUICK_CHECK_MINUTES": minutes})
    server.start(seconds=120)
    try:
        bystander = Player(server.url, session_cookie(server.url))
        bystander.human_turn()

        def hint() -> None:
            if not bystander.call("hint").get("ok"):
                raise RuntimeError("hint refused")

        def health() -> None:
            with urllib.request.urlopen(server.url + "/healthz", timeout=5) as reply:
                reply.read()

        stop = threading.Event()
        probes = {
            "hint": Probe(hint, HINT_PAUSE, stop),
            "healthz": Probe(health, HEALTH_PAUSE, stop),
        }
        for probe in probes.values():
            probe.start()
        time.sleep(seconds)
        stop.set()
        for probe in probes.values():
            probe.join(6)
        bystander.client.disconnect()
        return {name: probe.summary() for name, probe in probes.items()}
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a tenth of the rows")
    parser.add_argument("--seconds", type=float, default=20.0, help="each window's length")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    players = MATCHES // 10 if args.small else MATCHES
    with tempfile.TemporaryDirectory(prefix="quick-check-") as tmp:
        data_dir = Path(tmp)
        started = time.perf_counter()
        build(data_dir, players)
        built = time.perf_counter() - started
        size_mb = (data_dir / DATABASE_FILE).stat().st_size / (1 << 20)
        seconds, rows = check_seconds(data_dir)
        quiet = players_during(data_dir, "10", args.seconds)
        checking = players_during(data_dir, "0.01", args.seconds)
    found = {
        "rows": rows,
        "size_mb": round(size_mb, 1),
        "built_s": round(built, 1),
        "quick_check_s": round(seconds, 3),
        "quiet": quiet,
        "checking": checking,
    }
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    print(f"rows {rows}, {size_mb:.1f} MB (built in {built:.0f} s)")
    print(f"quick_check: {seconds * 1000:.0f} ms (median of 3, a new connection)")
    for name, window in (("quiet", quiet), ("checks back to back", checking)):
        hint, health = window["hint"], window["healthz"]
        print(
            f"{name:>20}: hint p50 {hint['p50_ms']} ms, p99 {hint['p99_ms']} ms"
            f" ({hint['calls']} calls); /healthz p99 {health['p99_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
