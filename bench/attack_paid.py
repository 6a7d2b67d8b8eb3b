"""bench/attack.py's attack on paid work: sockets that ask for the lab's costliest page and
hang up, from one address, again and again.

  paid  64 fresh sockets at a time from one address, each asking for the last step of
        the empty board's plain minimax (``lab_page``, some 2 s of work), closed as soon
        as asked; 5 rounds. Measured: another address's cached ``odds`` p99, quiet, during
        and after the rounds, and the server's CPU in the 10 s after the last sockets
        closed, against its CPU in the quiet window, serving the same probes (their
        work used to go on for minutes at a quarter of a core). Then 64 sockets from
        another address that stay open ask at once: what they got within 20 s.

Run by bench/attack.py in its attacker's child process (``attack_paid(at)``, ``at`` its
``Attacker``); tests/test_attacks_paid.py holds the same attack small, as tests.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from support.testing import RawWebSocket, percentile, process_tree

LAST_STEP = {"board": ".........", "start": 1_649_836, "size": 1}
CACHED = {"preset": "classic"}
PROBE_PAUSE = 0.07  # between the other address's asks: under its 20 events a second
PROBE_SECONDS = 5.0
AFTER_SECONDS = 10.0
CALL_TIMEOUT = 5.0  # an ask unanswered this long counts as this long
ATTACKER, KEEPER, BYSTANDER = 100, 101, 200  # the attack's own address indices
KEPT_SECONDS = 20.0  # how long the sockets that stay open wait for their answers


class Opener(Protocol):
    """What this attack needs of bench/attack.py's ``Attacker``."""

    port: int

    def size(self, full: Any, small: Any) -> Any:
        """The full size, or the one for ``--small``."""

    def cookies(self, count: int) -> list[str]:
        """``count`` players' cookies."""

    def open(self, cookie: str, source: int) -> tuple[RawWebSocket | None, str]:
        """A socket from address ``source`` joined as ``cookie``'s player, and the verdict."""


def answer(raw: RawWebSocket, ack: int, seconds: float) -> str:
    """The answer numbered ``ack``: "ok", the error's code, or "timeout"."""
    raw.sock.settimeout(seconds)
    try:
        for text in raw.texts():
            if text == "2":  # Engine.IO's ping: answered, or the server hangs up
                raw.send_text("3")
            elif text.startswith(f"43{ack}["):
                found = json.loads(text[len(f"43{ack}") :])[0]
                return "ok" if found.get("ok") else str(found["error"]["code"])
    except OSError:
        return "timeout"
    return "closed"


class OddsProbe:
    """Cached ``odds`` asked again and again from one socket; each round trip kept."""

    def __init__(self, raw: RawWebSocket) -> None:
        self.raw, self.acks = raw, 0
        self.answers: dict[str, int] = {}

    def ask(self) -> float:
        """One ask: its round trip in seconds (CALL_TIMEOUT if unanswered)."""
        self.acks += 1
        started = time.perf_counter()
        self.raw.send_text(f"42{self.acks}" + json.dumps(["odds", CACHED]))
        got = answer(self.raw, self.acks, CALL_TIMEOUT)
        self.answers[got] = self.answers.get(got, 0) + 1
        return time.perf_counter() - started if got == "ok" else CALL_TIMEOUT

    def while_(self, going: Any) -> list[float]:
        """Round trips while ``going()`` holds."""
        found = []
        while going():
            found.append(self.ask())
            time.sleep(PROBE_PAUSE)
        return found


def server_pids(port: int) -> list[int]:
    """The server listening on ``port``: its arbiter (``--port PORT`` on its command line)
    and the arbiter's children."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--port" in words and str(port).encode() in words and b"serve" in words:
            return process_tree(int(entry.name))
    return []


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of ``pids`` together, from /proc."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / 100


def one_round(at: Opener, cookies: list[str], tally: dict[str, int]) -> None:
    """Open a socket per cookie from the attacker's address, ask each for the last step,
    hang all up."""
    sockets = []
    for cookie in cookies:
        raw, verdict = at.open(cookie, ATTACKER)
        tally[verdict] = tally.get(verdict, 0) + 1
        if raw is not None:
            sockets.append(raw)
    for raw in sockets:
        raw.send_text("421" + json.dumps(["lab_page", LAST_STEP]))
    time.sleep(0.2)  # the asks reach the server before the sockets go
    for raw in sockets:
        raw.close()


def kept_open(at: Opener, cookies: list[str]) -> dict[str, int]:
    """Open a socket per cookie from another address, ask each for the last step at once,
    and wait for the answers (KEPT_SECONDS at most): how many of each."""
    sockets = [raw for raw, _ in (at.open(cookie, KEEPER) for cookie in cookies) if raw]
    for raw in sockets:
        raw.send_text("421" + json.dumps(["lab_page", LAST_STEP]))
    deadline = time.monotonic() + KEPT_SECONDS
    got: dict[str, int] = {}
    for raw in sockets:
        verdict = answer(raw, 1, max(0.01, deadline - time.monotonic()))
        got[verdict] = got.get(verdict, 0) + 1
    for raw in sockets:
        raw.close()
    return got


def p99_ms(times: list[float]) -> float:
    """A p99 in milliseconds (0 for none)."""
    return round(percentile(times, 0.99) * 1000, 1) if times else 0.0


def attack_paid(at: Opener) -> dict[str, Any]:
    """The rounds of sockets asking and hanging up, and what another address saw."""
    count, rounds = at.size(64, 16), at.size(5, 1)
    cookies = at.cookies(count + 1)
    raw, verdict = at.open(cookies.pop(), BYSTANDER)
    if raw is None:
        return {"got": f"the other address could not join: {verdict}"}
    probe = OddsProbe(raw)
    probe.ask()  # cached from here on
    pids = server_pids(at.port)
    cpu_before, started = cpu_seconds(pids), time.monotonic()
    quiet = probe.while_(lambda: time.monotonic() < started + PROBE_SECONDS)
    cpu_quiet = (cpu_seconds(pids) - cpu_before) / (time.monotonic() - started)
    tally: dict[str, int] = {}
    kept: dict[str, int] = {}

    def rounds_of_sockets() -> None:
        for _ in range(rounds):
            one_round(at, cookies, tally)
            time.sleep(1.0)
        kept.update(kept_open(at, cookies))

    attacker = threading.Thread(target=rounds_of_sockets)
    attacker.start()
    during = probe.while_(attacker.is_alive)
    attacker.join()
    cpu_before, closed = cpu_seconds(pids), time.monotonic()
    after = probe.while_(lambda: time.monotonic() < closed + AFTER_SECONDS)
    cpu_after = (cpu_seconds(pids) - cpu_before) / (time.monotonic() - closed)
    raw.close()
    joins = ", ".join(f"{n:,} {verdict}" for verdict, n in tally.items())
    got = (
        f"{rounds} rounds of {count} sockets from 1 address ({joins}), each asking for the last"
        f" step, then closed; another address's cached odds p99 {p99_ms(quiet)} ms quiet,"
        f" {p99_ms(during)} ms during, {p99_ms(after)} ms after ({probe.answers});"
        f" server CPU {cpu_quiet:.0%} of a core quiet, {cpu_after:.0%} in the"
        f" {AFTER_SECONDS:g} s after the last close. {count} sockets kept open asking at once"
        f" got in {KEPT_SECONDS:g} s: {', '.join(f'{n} {v}' for v, n in kept.items())}"
    )
    return {
        "odds_p99_ms": {"quiet": p99_ms(quiet), "during": p99_ms(during), "after": p99_ms(after)},
        "cpu_quiet": round(cpu_quiet, 3),
        "cpu_after_close": round(cpu_after, 3),
        "kept_open": kept,
        "got": got,
    }
