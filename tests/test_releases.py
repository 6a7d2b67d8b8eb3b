"""Releases a clone can find: CHANGELOG.md names the commit that set each version, the
package's version is a release or the next one, tags agree, and ``tictactoe --version``
says which is installed."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version
from support.guide import changelog_sections, releases

from webapp import __version__
from webapp.game.records import SCHEMA

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


def version_set_by(commit: str) -> str | None:
    """The version ``commit`` sets: its pyproject.toml's, when its first parent's differs."""
    line = version_line(commit)
    if line is None or line == version_line(f"{commit}^"):
        return None
    return line.removeprefix("version = ").strip('"')


def test_every_release_names_the_commit_that_set_its_version() -> None:
    whole_history()
    listed = releases()
    # 0.5.0 and every release after it come on top of these four.
    assert [r.version for r in listed][-4:] == ["0.4.0", "0.3.0", "0.2.0", "0.1.0"]
    assert [r.commit for r in listed][-4:] == ["bd7c233", "d21f651", "95b7c1d", "91a517c"]
    for release in listed:
        if release.commit is None:  # this checkout is the release commit: the next names it
            assert release == listed[0] and release.version == package_version()
            continue
        full = git("rev-parse", "--verify", f"{release.commit}^{{commit}}")
        assert full.returncode == 0, f"{release.version}'s commit {release.commit} is not here"
        assert git("merge-base", "--is-ancestor", full.stdout.strip(), "HEAD").returncode == 0
        assert version_line(release.commit) == f'version = "{release.version}"', release
        before = git("rev-parse", "--verify", "--quiet", f"{release.commit}^")
        if before.returncode == 0:  # it set the version: its parent had another
            assert version_line(before.stdout.strip()) != f'version = "{release.version}"'


def test_no_two_commits_set_the_same_release_version() -> None:
    """Two commits that both say 0.4.0 cannot be told apart by ``/healthz``: a release's
    version is set once, and the commit after it moves on to the next ``.dev0``."""
    whole_history()
    changed = git("log", "--full-history", "--no-merges", "--format=%H", "--", "pyproject.toml")
    setting: dict[str, list[str]] = {}
    for commit in changed.stdout.split():
        version = version_set_by(commit)
        if version and not (Version(version).is_devrelease or Version(version).is_prerelease):
            setting.setdefault(version, []).append(commit[:7])
    assert {v: commits for v, commits in setting.items() if len(commits) > 1} == {}
    assert set(setting) >= {release.version for release in releases()}


def test_the_commit_after_each_release_sets_the_next_dev0() -> None:
    """On main's first-parent line, the commit right after a release's sets the next
    version's ``.dev0``. 0.4.0 and the releases before it are exempt: they predate the
    rule (0.4.0 stayed 0.4.0 for the commits after it)."""
    whole_history()
    line = git("rev-list", "--first-parent", "HEAD").stdout.split()
    for release in releases():
        if Version(release.version) < Version("0.5.0"):
            continue
        if release.commit is None:  # this checkout is the release commit: nothing after it
            continue
        full = git("rev-parse", "--verify", f"{release.commit}^{{commit}}").stdout.strip()
        assert full in line, f"{release.version}'s commit is not on main's first-parent line"
        at = line.index(full)
        if at == 0:  # the release commit is this checkout's last: nothing after it yet
            continue
        after = version_set_by(line[at - 1])
        assert after is not None, f"the commit after {release.version}'s sets no version"
        major, minor, patch = Version(release.version).release
        nexts = {f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0", f"{major + 1}.0.0"}
        assert after in {f"{version}.dev0" for version in nexts}, (release.version, after)


def test_releases_are_newest_first_and_each_changing_store_says_how_to_upgrade() -> None:
    listed = releases()
    versions = [Version(release.version) for release in listed]
    assert versions == sorted(set(versions), reverse=True)
    sections = changelog_sections()
    first = next(iter(sections))  # on the release commit itself, that release
    assert first == "Unreleased" or first.split()[0] == package_version() == listed[0].version
    changed_schema = {"0.2.0", "0.3.0", "0.4.0", "0.5.0"}  # webapp/game/records.py's upgrades
    for heading, body in sections.items():
        if heading.split()[0] in changed_schema:
            assert "### Upgrading" in body, heading
    newest = listed[0].commit  # the work since the newest release, when it moved the schema
    stored_then = git("show", f"{newest}:webapp/game/records.py") if newest else None
    if stored_then and stored_then.returncode == 0 and first == "Unreleased":
        then = re.search(r"^SCHEMA = (\d+)", stored_then.stdout, re.M)
        if then is None or int(then[1]) != SCHEMA:
            assert "### Upgrading" in sections["Unreleased"], f"the schema moved since {newest}"


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
        if tag.returncode != 0 or release.commit is None:
            continue  # tags are a convenience: the changelog's commit is the reference
        named = git("rev-parse", "--verify", f"{release.commit}^{{commit}}").stdout
        assert tag.stdout == named, f"v{release.version} is not {release.commit}"


def test_version_command_prints_the_installed_release() -> None:
    program = Path(sys.executable).parent / "tictactoe"
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"tictactoe {package_version()}\n"
