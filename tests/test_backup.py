"""Backups taken while the server runs, and restores that find every player's match."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.testing import Player, RedisServer, ServerProcess, session_cookie

TICTACTOE = str(Path(sys.executable).parent / "tictactoe")


def run(*args: str, data_dir: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``tictactoe ARGS`` with the server's environment."""
    environ = {**os.environ, **env}
    if data_dir is not None:
        environ["TICTACTOE_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [TICTACTOE, *args], env=environ, capture_output=True, text=True, timeout=60
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def played(server: ServerProcess, cookie: str) -> dict[str, Any]:
    """One move by the cookie's player; the state after the AI's answer."""
    player = Player(server.url, cookie)
    state = player.human_turn()
    player.move(state["board"].index("."))
    after = player.wait_for(lambda s: s["version"] > state["version"] and s["turn"] != "ai")
    player.close()
    return after


def seen(server: ServerProcess, cookie: str) -> dict[str, Any]:
    """The state the cookie's player finds on connecting."""
    player = Player(server.url, cookie)
    state = player.wait_for(lambda s: True)
    player.close()
    return state


def assert_reseeded(restored: dict[str, Any], before: dict[str, Any]) -> None:
    """The match as it was, but for its seeds, which may have been revealed since the
    backup: the game under way and the next get new ones, and the game's dice, begun on
    the old seed, are no longer verifiable."""
    for same in ("board", "history", "match", "mode", "turn"):
        assert restored[same] == before[same]
    assert before["record"]["dice"] is not None
    assert restored["record"]["dice"] is None
    assert restored["next_commitment"] not in {None, before["next_commitment"]}
    assert restored["version"] == before["version"] + 1


def test_backup_while_running_then_restore_finds_the_match(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data")
    server.start()
    cookie = session_cookie(server.url)
    try:
        before = played(server, cookie)
        done = run("backup", str(tmp_path / "backup"), data_dir=server.data_dir)
        assert done.returncode == 0, done.stderr
        played(server, cookie)  # a move after the backup: the restore goes back before it
    finally:
        server.stop()
    backup = tmp_path / "backup"
    assert mode(backup) == 0o700
    assert {path.name: mode(path) for path in backup.iterdir()} == {
        "matches.sqlite3": 0o600,
        "secret_key": 0o600,
        "signing_key": 0o600,
    }
    fresh = tmp_path / "fresh"
    done = run("restore", str(backup), data_dir=fresh)
    assert done.returncode == 0, done.stderr
    again = ServerProcess(fresh)
    again.start()
    try:
        restored = seen(again, cookie)
    finally:
        again.stop()
    assert_reseeded(restored, before)


def test_restore_sets_aside_what_it_replaces(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data")
    server.start()
    server.stop()
    assert run("backup", str(tmp_path / "b"), data_dir=server.data_dir).returncode == 0
    done = run("restore", str(tmp_path / "b"), data_dir=server.data_dir)
    assert done.returncode == 0, done.stderr
    names = sorted(path.name for path in server.data_dir.iterdir())
    assert "matches.sqlite3" in names and "secret_key" in names
    assert any(name.startswith("secret_key.before-restore-") for name in names)
    assert any(name.startswith("matches.sqlite3.before-restore-") for name in names)


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ({"secret_key": ""}, "empty or damaged"),
        ({"signing_key": "not hex"}, "the signing key in"),
        ({"matches.sqlite3": "not a database"}, "not a readable matches database"),
        ({}, "no secret_key"),
    ],
)
def test_a_damaged_backup_is_refused_and_changes_nothing(
    tmp_path: Path, damage: dict[str, str], said: str
) -> None:
    backup = tmp_path / "backup"
    backup.mkdir()
    if damage:
        (backup / "secret_key").write_text("k" * 64)
    for name, content in damage.items():
        (backup / name).write_text(content)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "secret_key").write_text("s" * 64)
    done = run("restore", str(backup), data_dir=data_dir)
    assert done.returncode == 2 and said in done.stderr
    assert sorted(path.name for path in data_dir.iterdir()) == ["secret_key"]
    assert (data_dir / "secret_key").read_text() == "s" * 64


def test_backup_of_a_folder_that_is_not_a_data_dir_is_one_clear_line(tmp_path: Path) -> None:
    done = run("backup", str(tmp_path / "b"), data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"tictactoe backup: error: no secret key in {tmp_path}: is this the server's data dir?"
    ]


def test_redis_dump_and_key_restore_every_match(tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis")
    (tmp_path / "redis").mkdir()
    url = redis.start()
    server = ServerProcess(tmp_path / "data", {"TICTACTOE_REDIS_URL": url})
    try:
        server.start()
        cookie = session_cookie(server.url)
        before = played(server, cookie)
        done = run(
            "backup", str(tmp_path / "backup"), data_dir=server.data_dir, TICTACTOE_REDIS_URL=url
        )
        assert done.returncode == 0, done.stderr
        assert "back up Redis's own dump" in done.stdout
        dump = tmp_path / "backup" / "dump.rdb"
        redis_cli = shutil.which("redis-cli") or "/usr/bin/redis-cli"
        subprocess.run([redis_cli, "-u", url, "--rdb", str(dump)], check=True, capture_output=True)
    finally:
        server.stop()
        redis.stop()
    restored = tmp_path / "redis-restored"
    restored.mkdir()
    shutil.copy(dump, restored / "dump.rdb")
    redis = RedisServer(restored)
    url = redis.start()
    fresh = tmp_path / "fresh"
    done = run("restore", str(tmp_path / "backup"), data_dir=fresh, TICTACTOE_REDIS_URL=url)
    assert done.returncode == 0, done.stderr
    assert "gave the 1 matches in Redis fresh seeds" in done.stdout
    again = ServerProcess(fresh, {"TICTACTOE_REDIS_URL": url})
    try:
        again.start()
        assert_reseeded(seen(again, cookie), before)
    finally:
        again.stop()
        redis.stop()
