"""The runtime lock installs, and the server plays a whole game, on each Python README names.

`make test` hands this test the interpreters in TICTACTOE_TEST_PYTHONS: Debian 12's own
/usr/bin/python3 (3.11.2, below the 3.11.3 where redis stops needing async-timeout), and
a 3.12 and a 3.13 (the Makefile's SYSTEM_PYTHON, PYTHON312 and PYTHON313), those of them
it finds. A version none of them is is skipped, and the skip names it; with
TICTACTOE_REQUIRE_PYTHONS=1 (as CI sets) it fails instead. Each found gets a
fresh virtual environment made by the guide's install steps (docs/hosting.md, its
``# install`` block), with the project's wheel, built once, in place of ``.``; then
``tictactoe serve`` from that environment and one whole game over a real websocket.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support.guide import INSTALL, block, commands, fill
from support.testing import HOST, Player, ServerProcess, free_port, session_cookie, version_of

pytestmark = pytest.mark.system  # other Pythons

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = os.environ.get("TICTACTOE_TEST_PYTHONS", "").split()
REQUIRED = os.environ.get("TICTACTOE_REQUIRE_PYTHONS") == "1"
TRIED = ["3.11", "3.12", "3.13"]  # README's "Tried on" line names these
UNSET = "run by `make test`, which names the interpreters in TICTACTOE_TEST_PYTHONS"
# The guide's steps that are the machine's set-up, not the install into the venv.
SET_UP = ("apt-get ", "useradd ", "cd ", "make ")


def clean_env() -> dict[str, str]:
    """This environment without what would point a child at the test's own Python."""
    leave_out = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    return {key: value for key, value in os.environ.items() if key not in leave_out}


def run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@cache
def found() -> dict[str, str]:
    """The interpreters named in TICTACTOE_TEST_PYTHONS, by version (3.11, 3.12, ...)."""
    return {version_of(python).rsplit(".", 1)[0]: python for python in PYTHONS}


def python_of(version: str) -> str:
    """The interpreter named for ``version``; a skip naming it when there is none (a
    failure where every version is required)."""
    if not PYTHONS and not REQUIRED:
        pytest.skip(UNSET)
    python = found().get(version)
    if python is None:
        missing = f"no Python {version} found (the Makefile's SYSTEM_PYTHON, PYTHON312, PYTHON313)"
        if REQUIRED:
            pytest.fail(missing)
        pytest.skip(missing)
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once from a copy (no build/ left in the checkout)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("webapp", "templates", "static"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    pip_wheel = ("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q")
    run([sys.executable, *pip_wheel, "-w", str(out), str(source)], source)
    (built,) = out.glob("tictactoe_hp-*.whl")
    return built


def install(python: str, venv: Path, wheel: Path) -> None:
    """The guide's install block into ``venv``, made by ``python``, with ``wheel`` for ``.``."""
    steps = "\n".join(commands(block(INSTALL), leave_out=SET_UP))
    script = fill(
        steps,
        {
            "python3 -m venv": f"{python} -m venv",
            "/opt/tictactoe/venv": str(venv),
            "--no-deps .": f"--no-deps {wheel}",
        },
    )
    run(["bash", "-euxo", "pipefail", "-c", script], ROOT)  # requirements.lock from here


def play_a_whole_game(player: Player) -> dict[str, Any]:
    """The first empty cell each turn until the game is over; the last state."""
    state = player.wait_for(lambda s: s["turn"] != "ai")
    while state["turn"] == "human":
        assert player.move(str(state["board"]).index(".")) == {"ok": True}
        state = player.wait_for(answering(int(state["version"])))
    return state


def answering(version: int) -> Callable[[dict[str, Any]], bool]:
    """A state after ``version`` in which the AI has answered (or the game is over)."""
    return lambda state: int(state["version"]) > version and state["turn"] != "ai"


@pytest.fixture
def server_on() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()


def test_make_test_names_one_python_for_each_version_readme_names() -> None:
    if not REQUIRED and sorted(found()) != TRIED:
        pytest.skip("not all three Pythons README names were found (CI requires them)")
    assert sorted(version_of(python).rsplit(".", 1)[0] for python in PYTHONS) == TRIED
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"Tried on Python {version_of(found()['3.11'])}, 3.12 and 3.13" in readme


@pytest.mark.parametrize("version", TRIED)
def test_the_lock_installs_and_a_game_is_played(
    version: str, tmp_path: Path, server_on: list[ServerProcess], request: pytest.FixtureRequest
) -> None:
    python = python_of(version)
    wheel: Path = request.getfixturevalue("wheel")  # built only when there is a Python
    venv = tmp_path / "venv"
    install(python, venv, wheel)
    assert "No broken requirements" in run([str(venv / "bin" / "pip"), "check"], tmp_path)
    # The Redis client as TICTACTOE_REDIS_URL loads it (redis.asyncio needs async-timeout
    # below 3.11.3), and the C parser.
    run([str(venv / "bin" / "python"), "-c", "import redis.asyncio, hiredis"], tmp_path)

    port = free_port()
    program = [str(venv / "bin" / "tictactoe"), "serve", "--host", HOST, "--port", str(port)]
    server = ServerProcess(tmp_path / "data", command=program, port=port)
    server.env = {**clean_env(), **{k: v for k, v in server.env.items() if "TICTACTOE" in k}}
    server_on.append(server)
    server.start()
    assert server.process is not None  # the server runs on this Python, not the test's
    assert os.readlink(f"/proc/{server.process.pid}/exe") == os.path.realpath(python)

    player = Player(server.url, session_cookie(server.url))
    try:
        last = play_a_whole_game(player)
    finally:
        player.close()
    assert last["status"] in ("human_won", "ai_won", "draw"), last["status"]
    assert last["turn"] is None and last["signed_record"]  # signed with cryptography's Ed25519
    assert server.stop() == 0
