"""The layers of docs/architecture.md's map, held by import-linter's contracts in
pyproject.toml: they pass on this tree, they fail on an import that goes up a layer or
that makes the game impure, and every part of the server is in a layer."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def lint_imports(checkout: Path) -> subprocess.CompletedProcess[str]:
    """import-linter run on a checkout's webapp/ with the project's contracts."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=checkout,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the package and the contracts, to break on purpose."""
    shutil.copytree(ROOT / "webapp", tmp_path / "webapp", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        (
            "server/store/datadir.py",
            "from webapp.server.services import matches",
            "server's layers",
        ),
        ("server/protocol/payload.py", "import webapp.server.app", "server's layers"),
        ("server/limits/rates.py", "from webapp.server.wire import packets", "server's layers"),
        ("server/services/odds.py", "from webapp.server.events import dispatch", "server's layers"),
        ("game/board.py", "from webapp.server import settings", "above the game"),
        ("game/engine.py", "import flask", "game is pure"),
        ("game/match.py", "import time", "game is pure"),
        ("game/rules.py", "from webapp.game import match", "above the rules"),
        ("game/game.py", "from webapp.game.match import Match", "above the rules"),
    ],
)
def test_an_import_against_the_layers_breaks_a_contract(
    checkout: Path, module: str, line: str, contract: str
) -> None:
    path = checkout / "webapp" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    result = lint_imports(checkout)
    assert result.returncode != 0
    broken = [row for row in result.stdout.splitlines() if row.endswith("BROKEN")]
    assert len(broken) == 1 and contract in broken[0], result.stdout


def test_every_part_of_the_server_is_in_a_layer() -> None:
    (layers,) = [c["layers"] for c in CONTRACTS["contracts"] if c.get("containers")]
    named = {name.strip() for layer in layers for name in layer.split(":")}
    parts = {
        path.stem if path.is_file() else path.name
        for path in (ROOT / "webapp" / "server").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert parts == named
