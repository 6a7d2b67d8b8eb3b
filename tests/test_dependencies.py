"""The pinned world: the lock files, the installed versions, and the patches written for them."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

from webapp.server.patches import PINNED

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ("requirements.lock", "requirements-dev.lock")


def locked_versions(name: str) -> dict[str, str]:
    """Distribution name -> exact version, read from one lock file."""
    text = (ROOT / name).read_text()
    return {
        match[1].lower(): match[2]
        for match in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)
    }


@pytest.mark.parametrize("lock", LOCKS)
def test_every_requirement_is_exact_and_hashed(lock: str) -> None:
    text = (ROOT / lock).read_text()
    requirements = [line for line in text.splitlines() if line and line[0].isalnum()]
    assert requirements, lock
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==\S+ \\", line) for line in requirements)
    assert text.count("==") <= text.count("--hash=sha256:")


@pytest.mark.parametrize("lock", LOCKS)
def test_the_patched_libraries_are_locked_at_the_versions_the_patches_were_written_for(
    lock: str,
) -> None:
    locked = locked_versions(lock)
    assert {name: locked.get(name) for name in PINNED} == PINNED


@pytest.mark.parametrize("name", sorted(PINNED))
def test_installed_version_is_the_one_the_patches_were_written_for(name: str) -> None:
    """Fails on an upgrade: re-read webapp/server/patches.py, then update PINNED and the lock."""
    assert version(name) == PINNED[name]


def test_the_development_lock_agrees_with_the_production_lock() -> None:
    production, development = locked_versions(LOCKS[0]), locked_versions(LOCKS[1])
    assert {name: development.get(name) for name in production} == production


def test_every_locked_version_is_installed() -> None:
    for name, pinned in locked_versions("requirements-dev.lock").items():
        assert version(name) == pinned, name
