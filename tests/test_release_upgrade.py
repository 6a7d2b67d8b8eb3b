"""docs/hosting.md's upgrade and rollback, followed as written from the previous release to
this checkout and back, on real server processes, with players' matches checked at each
step.

No tags: the rollback archives the commit CHANGELOG.md names for the previous release,
and the upgrade's ``release=`` line reads the new release's commit from main's
CHANGELOG.md. A scratch "upstream" repository, cloned without tags, releases this
checkout as the project does: its files as they are, committed on top, then a commit
whose CHANGELOG.md names that one under the version the upgrade names (once this
checkout comes after that release, its CHANGELOG.md names the real commit, and the
upgrade takes that). The scratch source folder is a clone of it, so the upgrade's
``git fetch`` brings the new release. The previous release is installed as its own guide said,
with the pin for its lock this guide's rollback gives; the guide's paths move into the
scratch folder, `systemctl` becomes the test's own start and stop of `tictactoe serve`,
and the public URL the server's own. `python3` is Debian 12's own (3.11.2, below the
3.11.3 where redis stops needing async-timeout): the rollback's new virtual environment
is made by it, as on the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.guide import (
    BACKUP,
    ENV_FILE,
    INSTALL,
    ROLLBACK,
    SOURCE,
    UPGRADE,
    Release,
    block,
    commands,
    guide_blocks,
    releases,
)
from support.testing import (
    HOST,
    Player,
    Refused,
    ServerProcess,
    free_port,
    session_cookie,
    version_of,
)

from webapp import __version__

CHECKOUT = Path(__file__).resolve().parent.parent
SECONDS = 600  # one step's limit; the whole test takes about two minutes
# Debian 12's own Python (the Makefile's SYSTEM_PYTHON), first of make test's interpreters.
SYSTEM_PYTHON = (os.environ.get("TICTACTOE_TEST_PYTHONS") or "/usr/bin/python3").split()[0]
# What a player sees of their match, whatever the release: its position and its figures.
POSITION = ("mode", "board", "human", "ai", "first", "turn", "status", "history", "rules")
FIGURES = ("human_hp", "ai_hp", "difficulty", "over", "game", "games", "record", "locked")


def archived(name: str) -> str:
    """What a guide block exports with ``git ... archive WHAT``."""
    found = re.search(r"\barchive (\S+) ", block(name))
    if not found:
        raise ValueError(f"the guide's {name} block exports nothing with git archive")
    return found[1]


def release_line(name: str) -> str:
    """The ``release=`` line of a guide block: it reads a release's commit from main's
    CHANGELOG.md."""
    (line,) = [line for line in commands(block(name)) if line.startswith("release=")]
    return line


def upgraded_to() -> str:
    """The version whose commit the upgrade's ``release=`` line reads."""
    found = re.search(r"/\^## ([0-9\\.]+) /", release_line(UPGRADE))
    if not found:
        raise ValueError("the upgrade's release= line names no version's heading")
    return found[1].replace("\\", "")


def rolled_back_to() -> Release:
    """The release whose commit, as CHANGELOG.md names it, the rollback archives."""
    commit = archived(ROLLBACK)
    (release,) = [r for r in releases() if r.commit and r.commit.startswith(commit)]
    return release


def rollback_pin() -> list[str]:
    """The rollback's lines that pin what the previous release's lock misses: the file
    written, and the ``pip install`` that reads it."""
    lines = commands(block(ROLLBACK))
    (written,) = [line for line in lines if line.startswith("echo ") and ".lock" in line]
    (install,) = [line for line in lines if "--require-hashes" in line]
    return [written, install]


def git(*args: str, cwd: Path = CHECKOUT, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def position(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of a ``state`` that both releases send and an upgrade must keep."""
    return {key: state[key] for key in POSITION} | {k: state["match"][k] for k in FIGURES}


class Machine:
    """The scratch server: folders standing in for /opt, /etc, /var/lib and /var/backups."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.opt = root / "opt" / "tictactoe"
        self.upstream = root / "upstream.git"
        self.state = root / "state"
        self.backups = root / "backups"
        self.env_file = root / "etc" / "env"
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.server: ServerProcess | None = None
        self.python = root / "python"  # ``python3`` on the PATH: Debian 12's own
        self.python.mkdir()
        (self.python / "python3").write_text(f'#!/bin/sh\nexec {SYSTEM_PYTHON} "$@"\n')
        (self.python / "python3").chmod(0o755)

    def paths(self, text: str) -> str:
        """The guide's paths, URL and nightly backup moved onto the scratch machine."""
        for real, scratch in (
            (BACKUP, f"sh {self.root / 'backup.sh'}"),
            ("/opt/tictactoe", str(self.opt)),
            ("/var/backups/tictactoe", str(self.backups)),
            ("/var/lib/tictactoe", str(self.state)),
            (ENV_FILE, str(self.env_file)),
            ("https://play.example.org", self.url),
        ):
            text = text.replace(real, scratch)
        return text

    def bash(self, lines: list[str]) -> str:
        environ = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        environ["PATH"] = f"{self.python}:{environ['PATH']}"
        done = subprocess.run(
            ["bash", "-euxo", "pipefail", "-c", "\n".join(lines)],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=environ,
            timeout=SECONDS,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        return done.stdout

    def follow(self, name: str) -> str:
        """Run the guide's block ``name``: its shell lines, and its systemctl lines as
        this machine's own start and stop; returns what the shell lines printed."""
        printed, lines = [], []
        for line in commands(block(name)):
            if not line.startswith("systemctl "):
                lines.append(self.paths(line))
                continue
            printed.append(self.bash(lines) if lines else "")
            lines = []
            verb, unit = shlex.split(line)[1:]
            assert unit == "tictactoe", line
            if verb in ("stop", "restart"):
                self.stop()
            if verb in ("start", "restart"):
                self.start()
        printed.append(self.bash(lines) if lines else "")
        return "".join(printed)

    def clone_upstream(self) -> None:
        """The project's repository, without its tags."""
        git("clone", "--quiet", "--bare", "--no-tags", str(CHECKOUT), str(self.upstream))

    def release_this_checkout(self, version: str) -> tuple[str, str]:
        """This checkout released upstream as ``version``, as the project releases: its
        files committed on top, then, unless its CHANGELOG.md names that release's commit
        already, a commit whose CHANGELOG.md names it. Upstream's main is the last of
        them. Returns the commit released and the version it says it is."""
        tree = self.root / "this-checkout"
        listed = git("ls-files", "-z")
        for name in filter(None, listed.split("\0")):
            if (CHECKOUT / name).is_file():
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(CHECKOUT / name, tree / name)
        env = {
            **os.environ,
            "GIT_DIR": str(self.upstream),
            "GIT_WORK_TREE": str(tree),
            "GIT_INDEX_FILE": str(self.root / "this-checkout.index"),
            "GIT_AUTHOR_NAME": "upgrade test",
            "GIT_AUTHOR_EMAIL": "upgrade-test@example.invalid",
            "GIT_COMMITTER_NAME": "upgrade test",
            "GIT_COMMITTER_EMAIL": "upgrade-test@example.invalid",
        }
        git("add", "-A", cwd=tree, env=env)
        written = git("write-tree", cwd=tree, env=env)
        commit = git("commit-tree", written, "-p", "HEAD", "-m", "this checkout", env=env)
        main, released, says = commit, commit, __version__
        changelog = (tree / "CHANGELOG.md").read_text()
        found: Release | None = next((r for r in releases(changelog) if r.version == version), None)
        named = f'Version set in commit `{commit[:7]}` ("Release {version}").\n'
        if found and found.commit:  # released before this checkout: the real commit
            released, says = git("rev-parse", f"{found.commit}^{{commit}}", env=env), version
        elif found:  # this checkout is the release commit: the next commit names it
            heading = re.search(rf"^## {re.escape(version)} - .*\n", changelog, re.M)
            assert heading, version
            at = heading.end()
            (tree / "CHANGELOG.md").write_text(f"{changelog[:at]}\n{named}{changelog[at:]}")
        else:  # the work under way, released: "Unreleased" becomes the release
            today = f"## Unreleased\n\n## {version} - 2026-01-01\n\n{named}"
            (tree / "CHANGELOG.md").write_text(changelog.replace("## Unreleased\n", today, 1))
        if released == commit:
            git("add", "CHANGELOG.md", cwd=tree, env=env)
            written = git("write-tree", cwd=tree, env=env)
            main = git("commit-tree", written, "-p", commit, "-m", "the next .dev0", env=env)
        git("update-ref", "refs/heads/main", main, cwd=self.upstream)
        git("symbolic-ref", "HEAD", "refs/heads/main", cwd=self.upstream)
        return released, says

    def source(self) -> str:
        """The guide's source block, in a fresh clone of upstream: the commit it checks
        out."""
        src = self.root / "fresh-clone"
        git("clone", "--quiet", "--no-checkout", str(self.upstream), str(src))
        lines = [
            self.paths(line).replace(str(self.opt / "src"), str(src))
            for line in commands(block(SOURCE))
        ]
        self.bash(lines)
        return git("rev-parse", "HEAD", cwd=src)

    def install_as_its_guide_said(self, release: Release) -> None:
        """``release`` installed by the install block of its own docs/hosting.md, its
        lock pinned as this guide's rollback pins it."""
        src = self.opt / "src"
        git("clone", "--quiet", "--no-checkout", str(self.upstream), str(src))
        first = self.root / "first"
        first.mkdir()
        self.bash([f"git -C {src} archive {release.commit} | tar -x -C {first}"])
        install = guide_blocks((first / "docs" / "hosting.md").read_text())[INSTALL]
        lines = []
        for line in commands(install, leave_out=("apt-get ", "useradd ")):
            pinned = "--require-hashes" in line
            lines += rollback_pin() if pinned else [line]
        self.bash([self.paths(line).replace(str(src), str(first)) for line in lines])
        self.env_file.parent.mkdir(parents=True)
        self.env_file.write_text(block(ENV_FILE))
        (self.root / "backup.sh").write_text(self.paths(block(BACKUP)))

    def serve_command(self, port: int) -> list[str]:
        """``tictactoe serve`` of the scratch install, on ``port``."""
        program = str(self.opt / "venv" / "bin" / "tictactoe")
        return [program, "serve", "--host", HOST, "--port", str(port)]

    def start(self) -> None:
        command = self.serve_command(self.port)
        self.server = ServerProcess(self.state, command=command, port=self.port)
        self.server.start()

    def stop(self) -> None:
        if self.server:
            assert self.server.stop() == 0, self.server.log_tail()
            self.server = None

    def set_aside_by_restore(self) -> Path:
        """A data dir of what the rollback's restore set aside, with the key kept."""
        unrestored = self.root / "unrestored"
        unrestored.mkdir(mode=0o700)
        shutil.copy2(self.state / "secret_key", unrestored / "secret_key")
        for aside in self.state.glob("matches.sqlite3*.before-restore-*"):
            shutil.copy2(aside, unrestored / aside.name.split(".before-restore-")[0])
        return unrestored

    def venv_python(self) -> str:
        """The full version of the scratch install's Python."""
        return version_of(str(self.opt / "venv" / "bin" / "python"))

    def installed_modules(self) -> set[str]:
        """The package's Python files in the scratch install, relative to its folder."""
        (package,) = (self.opt / "venv" / "lib").glob("python3*/site-packages/webapp")
        return {str(path.relative_to(package.parent)) for path in package.rglob("*.py")}

    def stored_formats(self) -> dict[str, int]:
        """Each stored match's schema, read from the database itself."""
        database = f"file:{self.state / 'matches.sqlite3'}?mode=ro"
        with contextlib.closing(sqlite3.connect(database, uri=True)) as db:
            rows = db.execute("SELECT player, CAST(data AS TEXT) FROM matches").fetchall()
        return {player: json.loads(data)["format"] for player, data in rows}


def test_the_rollbacks_pin_is_this_locks_own() -> None:
    """The line the rollback writes pins what this release's lock pins, marker and
    hashes alike."""
    written, install = rollback_pin()
    pinned = shlex.split(written)[1]
    name = pinned.split("==")[0]
    lock = (CHECKOUT / "requirements.lock").read_text()
    entry = re.search(rf"^{re.escape(name)}==.*?(?=^\S)", lock, re.M | re.S)
    assert entry, f"{name} is not in requirements.lock"
    assert pinned.split(" --hash")[0] == entry[0].split(" \\")[0]
    assert sorted(re.findall(r"--hash=(\S+)", pinned)) == sorted(
        re.findall(r"--hash=(\S+)", entry[0])
    )
    assert written.endswith("> async-timeout.lock") and "-r async-timeout.lock" in install


def modules_of(commit: str, cwd: Path) -> set[str]:
    """The package's Python files at ``commit``."""
    names = git("ls-tree", "-r", "--name-only", commit, "webapp", cwd=cwd).splitlines()
    return {name for name in names if name.endswith(".py")}


@pytest.fixture
def machine(tmp_path: Path) -> Iterator[Machine]:
    if git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone: the previous release's commit is not in it")
    scratch = Machine(tmp_path)
    try:
        yield scratch
    finally:
        if scratch.server:
            scratch.server.stop()


# --- the players ---------------------------------------------------------------------


def join(url: str, cookie: str, release: str) -> Player:
    player = Player(url, cookie, release=release)
    player.wait_for(lambda state: True)
    return player


def play_first_empty(player: Player) -> dict[str, Any]:
    """Play the first empty cell on the human's turn; the state once the AI answered."""
    state = player.human_turn()
    assert player.move(state["board"].index(".")) == {"ok": True}
    after = int(state["version"])
    return player.wait_for(lambda s: int(s["version"]) > after and s["turn"] != "ai")


def players_at_the_old_release(url: str, release: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Players whose matches the old release stores in different states: name -> (cookie,
    the newest state they were shown)."""
    kept = {}
    for name in ("mid-game", "game-over", "second-game"):
        cookie = session_cookie(url)
        player = join(url, cookie, release)
        if name == "mid-game":
            assert player.call("new_match", {"mode": "hard", "first": "human"}) == {"ok": True}
            state = play_first_empty(player)
        else:
            state = play_first_empty(player)
            while state["turn"] == "human":
                state = play_first_empty(player)
            if name == "second-game":
                assert player.call("next_game") == {"ok": True}
                state = play_first_empty(player)
        assert (state["turn"] is None) == (name == "game-over"), (name, state["board"])
        kept[name] = (cookie, state)
        player.close()
    return kept


def play_on(player: Player, state: dict[str, Any]) -> None:
    """Go on from ``state``: the next game once this one is over, else the next move."""
    if state["turn"] is None:
        assert player.call("next_game") == {"ok": True}
    play_first_empty(player)


def test_the_guides_lines_name_one_release() -> None:
    """The install's source and the upgrade read the same release's commit the same way,
    and the rollback goes back to the release before it."""
    assert release_line(SOURCE) == release_line(UPGRADE)
    assert archived(UPGRADE) == '"$release"'
    listed = [r.version for r in releases()]
    new = upgraded_to()
    before = listed[listed.index(new) + 1] if new in listed else listed[0]
    assert rolled_back_to().version == before


def schema_at(commit: str, cwd: Path) -> int:
    """The schema of stored matches at ``commit``."""
    found = re.search(
        r"^SCHEMA = (\d+)", git("show", f"{commit}:webapp/game/records.py", cwd=cwd), re.M
    )
    assert found, commit
    return int(found[1])


@pytest.mark.server
def test_upgrade_from_the_previous_release_and_roll_back(machine: Machine) -> None:
    old = rolled_back_to()
    assert old.commit
    machine.clone_upstream()
    machine.install_as_its_guide_said(old)
    machine.start()
    kept = players_at_the_old_release(machine.url, old.version)
    assert set(machine.stored_formats().values()) == {4}
    old_modules = machine.installed_modules()
    assert old_modules == modules_of(old.commit, machine.upstream)

    # the upgrade, as written, to this checkout released as the version it names
    released, new = machine.release_this_checkout(upgraded_to())
    assert machine.source() == released  # the install's source block finds it too
    printed = machine.follow(UPGRADE)
    assert f"tictactoe {new}\n" in printed
    assert json.loads(printed.splitlines()[-1])["version"] == new
    # nothing left of the old one
    assert machine.installed_modules() == modules_of(released, machine.upstream)
    with pytest.raises(Refused) as refused:  # a page of the old release left open
        join(machine.url, kept["mid-game"][0], old.version)
    assert refused.value.data == {"code": "reload", "release": new}
    for name, (cookie, state) in kept.items():
        player = join(machine.url, cookie, new)
        assert position(player.wait_for(lambda s: True)) == position(state), name
        play_on(player, player.wait_for(lambda s: True))
        player.close()
    upgraded = schema_at(released, machine.upstream)  # upgraded when loaded
    assert set(machine.stored_formats().values()) == {upgraded}

    # the rollback, as written, to the previous release and the backup taken before
    left = machine.opt / "venv" / "left-by-the-upgrade"
    left.write_text("")
    printed = machine.follow(ROLLBACK)
    assert json.loads(printed.splitlines()[-1])["version"] == old.version
    assert not left.exists()  # a new virtual environment, nothing of the upgraded one
    assert machine.venv_python() == version_of(SYSTEM_PYTHON)
    assert machine.installed_modules() == old_modules
    assert set(machine.stored_formats().values()) == {4}
    for name, (cookie, state) in kept.items():
        player = join(machine.url, cookie, old.version)
        assert player.wait_for(lambda s: True) == state, name  # as the old release had it
        play_on(player, state)
        player.close()

    # why the rollback restores: the previous release sets the upgraded matches aside
    unrestored = machine.set_aside_by_restore()
    port = free_port()
    server = ServerProcess(unrestored, command=machine.serve_command(port), port=port)
    try:
        server.start()
        cookie, state = kept["mid-game"]
        player = join(server.url, cookie, old.version)
        assert position(player.wait_for(lambda s: True)) != position(state)
        player.close()
        database = f"file:{unrestored / 'matches.sqlite3'}?mode=ro"
        with contextlib.closing(sqlite3.connect(database, uri=True)) as db:
            assert db.execute("SELECT count(*) FROM damaged_matches").fetchone() == (1,)
    finally:
        server.stop()
