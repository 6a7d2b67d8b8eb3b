"""Releases a clone can find: CHANGELOG.md names the commit that set each version, the
package's version is a release or the next one, tags agree, and ``tictactoe --version``
says which is installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version
from support.guide import changelog_sections, releases

from webapp import __version__

CHECKOUT = Path(__file__).resolve().parent.parent


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=CHECKOUT, capture_output=True, text=True)


def whole_history() -> None:
    """Skip unless this is a git clone with its whole history."""
    shallow = git("rev-parse", "--is-shallow-repository")
    if shallow.returncode != 0:
        pytest.skip("not a git clone")
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone: the releases' commits are not all in it")


def package_version() -> str:
    return str(tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["version"])


def version_line(commit: str) -> str | None:
    """The ``version = ...`` line of pyproject.toml at ``commit``, if it has one."""
    shown = git("show", f"{commit}:pyproject.toml")
    lines = [line for line in shown.stdout.splitlines() if line.startswith("version = ")]
    return lines[0] if shown.returncode == 0 and lines else None


def test_every_release_names_the_commit_that_set_its_version() -> None:
    whole_history()
    listed = releases()
    assert [r.version for r in listed] == ["0.4.0", "0.3.0", "0.2.0", "0.1.0"][: len(listed)]
    assert listed[-1].version == "0.1.0" and listed[0].commit.startswith("bd7c233")
    for release in listed:
        full = git("rev-parse", "--verify", f"{release.commit}^{{commit}}")
        assert full.returncode == 0, f"{release.version}'s commit {release.commit} is not here"
        assert git("merge-base", "--is-ancestor", full.stdout.strip(), "HEAD").returncode == 0
        assert version_line(release.commit) == f'version = "{release.version}"', release
        before = git("rev-parse", "--verify", "--quiet", f"{release.commit}^")
        if before.returncode == 0:  # it set the version: its parent had another
            assert version_line(before.stdout.strip()) != f'version = "{release.version}"'


def test_releases_are_newest_first_and_each_changing_store_says_how_to_upgrade() -> None:
    listed = releases()
    versions = [Version(release.version) for release in listed]
    assert versions == sorted(set(versions), reverse=True)
    sections = changelog_sections()
    assert next(iter(sections)) == "Unreleased"
    changed_schema = {"0.2.0", "0.3.0", "0.4.0"}  # webapp/game/records.py's upgrades
    for heading, body in sections.items():
        if heading.split()[0] in changed_schema or heading == "Unreleased":
            assert "### Upgrading" in body, heading


def test_the_package_version_is_released_or_unreleased_next() -> None:
    version = Version(package_version())
    assert __version__ == package_version()
    newest = Version(releases()[0].version)
    if str(version) in {release.version for release in releases()}:
        return
    assert "Unreleased" in changelog_sections()
    major, minor, patch = newest.release
    nexts = {(major + 1, 0, 0), (major, minor + 1, 0), (major, minor, patch + 1)}
    assert version.release in nexts, f"{version} is neither released nor after {newest}"


def test_each_release_tag_points_at_its_changelog_commit() -> None:
    whole_history()
    for release in releases():
        tag = git("rev-parse", "--verify", "--quiet", f"refs/tags/v{release.version}^{{commit}}")
        if tag.returncode != 0:
            continue  # tags are a convenience: the changelog's commit is the reference
        named = git("rev-parse", "--verify", f"{release.commit}^{{commit}}").stdout
        assert tag.stdout == named, f"v{release.version} is not {release.commit}"


def test_version_command_prints_the_installed_release() -> None:
    program = Path(sys.executable).parent / "tictactoe"
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"tictactoe {package_version()}\n"
