"""The wheel ships the pages and assets, and installs a working ``tictactoe`` command."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.testing import TREE_STATS

from webapp import __version__

ROOT = Path(__file__).resolve().parent.parent
# Directories mapped into the package by pyproject's package-dir, and where they land.
ASSET_DIRS = {
    "templates": "webapp/templates",
    "static/css": "webapp/static/css",
    "static/js": "webapp/static/js",
    "static/vendor": "webapp/static/vendor",
}


def expected_assets(root: Path) -> set[str]:
    """Wheel paths of every file the project at ``root`` has in the asset directories."""
    found = set()
    for source, target in ASSET_DIRS.items():
        folder = root / source
        if folder.is_dir():
            for path in folder.rglob("*"):
                if path.is_file() and not path.name.startswith("."):  # skip placeholders
                    found.add(f"{target}/{path.relative_to(folder).as_posix()}")
    return found


def expected_modules(root: Path) -> set[str]:
    """Wheel paths of the package's modules, its subpackages' included."""
    return {
        f"webapp/{path.relative_to(root / 'webapp').as_posix()}"
        for path in (root / "webapp").rglob("*.py")
        if "__pycache__" not in path.parts
    }


def copy_project(dest: Path) -> Path:
    """Copy what the build reads, so building leaves no build/ or egg-info in the repo."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("webapp", "templates", "static"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest / name)
    return dest


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command outside the repository with no inherited PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of the working tree: others may be adding assets while the tests run."""
    return copy_project(tmp_path_factory.mktemp("source"))


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel from the snapshot."""
    out = tmp_path_factory.mktemp("dist")
    run(
        [
            sys.executable,
            *("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(out), str(source)),
        ],
        cwd=source,
    )
    (built,) = out.glob("tictactoe_hp-*.whl")
    return built


def test_wheel_carries_the_release_the_page_names(wheel: Path) -> None:
    # Pages send webapp.__version__ as their release; the package must be that release.
    assert wheel.name.startswith(f"tictactoe_hp-{__version__}-")


def test_wheel_contains_package_templates_and_static(source: Path, wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assets = expected_assets(source)
    missing = (expected_modules(source) | assets | {"webapp/py.typed"}) - names
    assert not missing, f"missing from the wheel: {sorted(missing)}"
    assert "webapp/game/puzzles.json" in names  # the larger variants' puzzles, served
    layers = {"webapp/game/board.py", "webapp/game/engine.py", "webapp/cli/main.py"}
    assert layers | {"webapp/server/app.py"} <= names
    html = {name for name in names if name.startswith("webapp/templates/")}
    assert {name for name in assets if name.startswith("webapp/templates/")} == html
    assert all(name.endswith(".html") for name in html)


def test_wheel_holds_no_test_code_and_reads_nothing_outside_itself(wheel: Path) -> None:
    # Test and benchmark helpers live in tests/support/; the package reads only its own
    # files (and the data dir it is given), never the checkout's docs or tests.
    archive = zipfile.ZipFile(wheel)
    modules = [name for name in archive.namelist() if name.endswith(".py")]
    assert not [name for name in modules if "test" in name.rsplit("/", 1)[-1]]
    outside = re.compile(r'/ "(?:docs|tests|bench)"|"CHANGELOG|\.md"|\bsupport\.|conftest')
    readers = {
        name: sorted(set(outside.findall(archive.read(name).decode())))
        for name in modules
        if outside.search(archive.read(name).decode())
    }
    assert readers == {}


def test_no_test_module_imports_another() -> None:
    # What tests share lives in tests/support/ and the browser*.py modules beside them,
    # so each test module can be run, moved or deleted on its own.
    found = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        ]
        names += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        imported = sorted(name for name in names if name.split(".")[0].startswith("test_"))
        if imported:
            found[path.name] = imported
    assert found == {}


def test_wheel_declares_the_console_script(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = archive.read(entry_points).decode()
    assert "[console_scripts]" in text
    assert "tictactoe = webapp.cli:main" in text


def test_installed_wheel_runs_tictactoe(source: Path, wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], cwd=tmp_path)

    stats = run([str(venv / "bin" / "tictactoe"), "stats", "--json"], cwd=tmp_path)
    assert json.loads(stats.stdout) == TREE_STATS

    # The installed package is the one that runs, and it finds its assets beside it.
    listing = run(
        [
            str(python),
            "-c",
            "import pathlib, webapp; root = pathlib.Path(webapp.__file__).parent; "
            "print(root); print('\\n'.join(sorted("
            "'webapp/' + p.relative_to(root).as_posix() "
            "for p in root.rglob('*') if p.is_file() and '__pycache__' not in p.parts)))",
        ],
        cwd=tmp_path,
    )
    root, *files = listing.stdout.splitlines()
    assert Path(root).is_relative_to(venv)
    assert expected_assets(source) <= set(files)
