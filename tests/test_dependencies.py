"""The pinned world: the lock files, the installed versions, and the overrides written for them."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from importlib.metadata import PackageNotFoundError, requires, version
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from webapp.server.wire.overrides import PINNED

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ("requirements.lock", "requirements-dev.lock")
EXTRAS = {"requirements.lock": ("redis",), "requirements-dev.lock": ("redis", "test", "bench")}
# One line per distribution: `name==version \`, or `name==version ; marker \` for one that
# only some Pythons or platforms take (redis's async-timeout below Python 3.11.3).
REQUIREMENT = re.compile(r"([A-Za-z0-9_.-]+)==([^\s;]+)(?: ; ([^\\]+))? \\")
# The Pythons README promises, on Linux: 3.11 before 3.11.3 (Debian 12's own 3.11.2) and
# after, 3.12 (Ubuntu 24.04's) and 3.13 (Debian 13's).
SUPPORTED = ("3.11.2", "3.11.7", "3.12.0", "3.13.0")


def locked_requirements(name: str) -> dict[str, tuple[str, str | None]]:
    """Distribution name -> (exact version, marker or None), read from one lock file."""
    text = (ROOT / name).read_text()
    return {
        canonicalize_name(match[1]): (match[2], match[3])
        for match in REQUIREMENT.finditer(text)
        if match.start() == 0 or text[match.start() - 1] == "\n"
    }


def locked_versions(name: str) -> dict[str, str]:
    """Distribution name -> exact version, read from one lock file."""
    return {name: pin for name, (pin, _) in locked_requirements(name).items()}


def applies_here(marker: str | None) -> bool:
    """Whether a lock line's marker lets this interpreter install it."""
    return marker is None or Marker(marker).evaluate()


def needed_on(python: str, extras: tuple[str, ...]) -> set[str]:
    """Every distribution that this project with ``extras`` pulls in on Linux CPython
    ``python``, read from the installed packages' own declared requirements.

    A package not installed here (its marker leaves it out of this interpreter) is
    counted, but its own requirements cannot be read: none of today's has any.
    """
    environment = {
        "python_full_version": python,
        "python_version": ".".join(python.split(".")[:2]),
        "sys_platform": "linux",
        "platform_system": "Linux",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    needed: set[str] = set()
    todo = [("tictactoe-hp", extras)]
    while todo:
        name, wanted = todo.pop()
        try:
            declared = requires(name) or []
        except PackageNotFoundError:
            continue
        for line in declared:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(
                marker.evaluate({**environment, "extra": extra}) for extra in ("", *wanted)
            ):
                key = canonicalize_name(requirement.name)
                if key not in needed:
                    needed.add(key)
                    todo.append((key, tuple(requirement.extras)))
    return needed


@pytest.mark.parametrize("lock", LOCKS)
def test_every_requirement_is_exact_and_hashed(lock: str) -> None:
    text = (ROOT / lock).read_text()
    requirements = [line for line in text.splitlines() if line and line[0].isalnum()]
    assert requirements, lock
    for line in requirements:
        match = REQUIREMENT.fullmatch(line)
        assert match, line
        assert match[3] is None or Marker(match[3]), line  # a marker pip can read
    assert text.count("==") <= text.count("--hash=sha256:")


@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("python", SUPPORTED)
def test_the_lock_holds_everything_each_supported_python_needs(lock: str, python: str) -> None:
    """Fails on a lock compiled for one interpreter only: 3.11.7's left out async-timeout,
    which redis requires below 3.11.3, and pip refused the lock on Debian 12's 3.11.2."""
    locked = locked_requirements(lock)
    needed = needed_on(python, EXTRAS[lock])
    assert needed - set(locked) == set(), python


def test_async_timeout_is_locked_for_the_pythons_that_need_it_alone() -> None:
    _, marker = locked_requirements("requirements.lock")["async-timeout"]
    assert marker is not None
    assert Marker(marker).evaluate({"python_full_version": "3.11.2"})
    assert not Marker(marker).evaluate({"python_full_version": "3.11.3"})


@pytest.mark.parametrize("lock", LOCKS)
def test_the_patched_libraries_are_locked_at_the_versions_the_patches_were_written_for(
    lock: str,
) -> None:
    locked = locked_versions(lock)
    assert {name: locked.get(name) for name in PINNED} == PINNED


@pytest.mark.parametrize("name", sorted(PINNED))
def test_installed_version_is_the_one_the_patches_were_written_for(name: str) -> None:
    """Fails on an upgrade: re-read wire/overrides.py (and wire/websocket.py for gunicorn or
    simple-websocket: tests/test_websocket_guard.py checks what it relies on), then update
    PINNED and the lock."""
    assert version(name) == PINNED[name]


def test_the_development_lock_agrees_with_the_production_lock() -> None:
    production, development = locked_versions(LOCKS[0]), locked_versions(LOCKS[1])
    assert {name: development.get(name) for name in production} == production


def test_every_locked_version_is_installed() -> None:
    """Each line whose marker takes this interpreter; the others are for other Pythons."""
    for name, (pinned, marker) in locked_requirements("requirements-dev.lock").items():
        if applies_here(marker):
            assert version(name) == pinned, name


# --- what reaches past the libraries' documented APIs --------------------------------------

OVERRIDES = ROOT / "webapp" / "server" / "wire" / "overrides.py"
STDLIB = frozenset(sys.stdlib_module_names)  # the standard library's own names are not at stake


def imported_names(tree: ast.Module) -> dict[str, str]:
    """The names a module binds by importing from outside the project -> where from."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0]: a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names |= {a.asname or a.name: f"{node.module}:{a.name}" for a in node.names}
    return {name: origin for name, origin in names.items() if not origin.startswith("webapp")}


def is_module_or_class(origin: str) -> bool:
    """Whether an imported name (``module`` or ``module:name``) is a module or a class."""
    module, _, name = origin.partition(":")
    found: object = importlib.import_module(module)
    if name:
        found = getattr(found, name, None)
        if found is None:
            found = importlib.import_module(f"{module}.{name}")
    return inspect.ismodule(found) or inspect.isclass(found)


def private_reads(node: ast.AST, own: set[str]) -> str | None:
    """``x._name`` (or ``super()._name``) where ``x`` is not ``self``, ``cls`` or our class."""
    if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
        return None
    name = node.value.id if isinstance(node.value, ast.Name) else None
    if node.attr.startswith("__") or name in {"self", "cls"} | own | STDLIB:
        return None
    return f".{node.attr}"


def replaced_attributes(node: ast.AST, imported: dict[str, str]) -> list[str]:
    """``module.name = ...`` or ``Class.method = ...`` for an imported module or class."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    return [
        f"{target.value.id}.{target.attr} ="
        for target in targets
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id in imported
        and is_module_or_class(imported[target.value.id])
    ]


def private_overrides(node: ast.AST, imported: dict[str, str]) -> list[str]:
    """``def _name`` in a subclass of an imported class."""
    if not isinstance(node, ast.ClassDef):
        return []
    if not {base.id for base in node.bases if isinstance(base, ast.Name)} & set(imported):
        return []
    return [
        f"def {item.name}"
        for item in node.body
        if isinstance(item, ast.FunctionDef)
        and item.name.startswith("_")
        and not item.name.startswith("__")
    ]


def reaches_past_apis(path: Path) -> list[str]:
    """Where a module reads a library object's private attribute, replaces an attribute of
    an imported module or class, or overrides a private method of a library class."""
    tree = ast.parse(path.read_text())
    imported = imported_names(tree)
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = []
    for node in ast.walk(tree):
        read = private_reads(node, own)
        hits = ([read] if read else []) + replaced_attributes(node, imported)
        hits += private_overrides(node, imported)
        found += [f"{path.name}:{getattr(node, 'lineno', 0)}: {hit}" for hit in hits]
    return found


def test_nothing_outside_the_overrides_module_reaches_past_a_documented_api() -> None:
    sources = sorted((ROOT / "webapp").rglob("*.py"))
    found = [hit for path in sources if path != OVERRIDES for hit in reaches_past_apis(path)]
    assert found == []


def test_the_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import engineio\nfrom socketio import Server\nfrom flask import session\n"
        "engineio.Socket = None\nsession.permanent = True\n"
        "class Mine(Server):\n    def _handle_eio_message(self): super()._send_packet()\n"
        "def f(server): return server._handle_eio_connect, sys._current_frames()\n"
        "from webapp.server.store.interface import SignedGames\n"
        "class Ours(SignedGames):\n    def _own_helper(self): pass\n"
    )
    assert sorted(hit.split(": ", 1)[1] for hit in reaches_past_apis(sample)) == [
        "._handle_eio_connect",
        "._send_packet",
        "def _handle_eio_message",
        "engineio.Socket =",
    ]


def test_the_overrides_module_stays_within_its_budget() -> None:
    assert len(OVERRIDES.read_text().splitlines()) <= 150
