"""The guide's systemd unit: hardened as far as the server allows, and the server still
plays under the parts of it that can be tried without systemd as PID 1."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support.guide import GUIDE, UNIT, block, unit_keys
from support.hosts import find_tool
from support.testing import HOST, Player, RedisServer, ServerProcess, free_port, session_cookie

SANDBOX = Path(__file__).resolve().parent / "sandbox.py"
TICTACTOE = str(Path(sys.executable).parent / "tictactoe")
MOST_EXPOSURE = 2.0  # "OK" in systemd-analyze's words


def analyze() -> str:
    tool = find_tool("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (make test installs Debian's systemd)")
    return tool


def test_the_unit_scores_ok_and_the_guide_says_its_score(tmp_path: Path) -> None:
    unit = tmp_path / "tictactoe.service"
    unit.write_text(block(UNIT))
    done = subprocess.run(
        [analyze(), "security", "--offline=true", str(unit)], capture_output=True, text=True
    )
    found = re.search(
        r"Overall exposure level for tictactoe\.service: (\d+\.\d+) (\w+)", done.stdout
    )
    assert found, done.stdout[-2000:] + done.stderr
    score = float(found[1])
    assert score <= MOST_EXPOSURE and found[2] == "OK", done.stdout
    said = re.search(r"scores this unit \*\*(\d+\.\d+) \(OK\)\*\*", GUIDE.read_text())
    assert said and float(said[1]) == score


@cache
def syscalls(name: str) -> frozenset[str]:
    """The system calls of a name or a ``@group`` of systemd's, groups expanded."""
    if not name.startswith("@"):
        return frozenset({name})
    done = subprocess.run(
        [analyze(), "syscall-filter", name], capture_output=True, text=True, check=True
    )
    lines = [line.strip() for line in done.stdout.splitlines()[1:]]
    found: set[str] = set()
    for line in lines:
        if line and not line.startswith("#"):
            found |= syscalls(line)
    return frozenset(found)


def unit_filter() -> set[str]:
    """The system calls the unit's ``SystemCallFilter=`` lines allow, in their order."""
    allowed: set[str] = set()
    for line in block(UNIT).splitlines():
        if line.startswith("SystemCallFilter="):
            value = line.partition("=")[2]
            names = value.lstrip("~").split()
            listed = set().union(*(syscalls(name) for name in names))
            allowed = allowed - listed if value.startswith("~") else allowed | listed
    assert allowed, "the unit has no system call filter"
    return allowed


def sandboxed(tmp_path: Path, *command: str) -> list[str]:
    """``command`` under the unit's system call filter, its errno and its W^X rule."""
    keys = unit_keys(block(UNIT))
    assert keys["MemoryDenyWriteExecute"] == "yes" and keys["NoNewPrivileges"] == "yes"
    allow = tmp_path / "allowed-syscalls"
    allow.write_text("\n".join(sorted(unit_filter())))
    sandbox = [sys.executable, str(SANDBOX), "--allow", str(allow), "--deny-wx"]
    return [*sandbox, "--errno", keys["SystemCallErrorNumber"], "--", *command]


@pytest.mark.parametrize(
    "probe",
    [
        "import os; os.setpriority(os.PRIO_PROCESS, 0, 5)",  # @resources: left out
        "import mmap; mmap.mmap(-1, 4096, prot=7)",  # writable and executable at once
    ],
)
def test_the_sandbox_refuses_what_the_unit_leaves_out(tmp_path: Path, probe: str) -> None:
    """The sandbox is real: what the unit forbids fails in it."""
    done = subprocess.run(
        sandboxed(tmp_path, sys.executable, "-c", probe), capture_output=True, text=True
    )
    assert done.returncode != 0 and "PermissionError" in done.stderr, done.stderr


def play_a_game(url: str) -> dict[str, Any]:
    """One whole game through the protocol; its last state."""
    player = Player(url, session_cookie(url))
    state = player.human_turn()
    while state["status"] == "playing":
        version = state["version"]
        assert player.move(state["board"].index(".")) == {"ok": True}
        state = player.wait_for(
            lambda s, v=version: s["version"] > v and s["turn"] != "ai"  # type: ignore[misc]
        )
    player.close()
    return state


@pytest.mark.parametrize("store", ["sqlite", "redis"])
@pytest.mark.system
@pytest.mark.server
def test_the_server_plays_under_the_units_filter(tmp_path: Path, store: str) -> None:
    port = free_port()
    env: dict[str, str] = {}
    redis = RedisServer(tmp_path)
    if store == "redis":
        env["TICTACTOE_REDIS_URL"] = redis.start()
        env["TICTACTOE_WORKERS"] = "2"
    command = sandboxed(tmp_path, TICTACTOE, "serve", "--host", HOST, "--port", str(port))
    server = ServerProcess(tmp_path / "data", env, command=command, port=port)
    try:
        server.start()
        assert play_a_game(server.url)["status"] in {"human_won", "ai_won", "draw"}
        for pid in server.pids():
            status = Path(f"/proc/{pid}/status").read_text()
            assert re.search(r"^Seccomp:\s+2$", status, re.M), status  # filtered
        assert server.stop() == 0, server.log_tail()
    finally:
        server.stop()
        redis.stop()
    assert "Traceback" not in server.log_tail(100_000)
