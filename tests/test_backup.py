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
from support.testing import Player, RedisServer, ServerProcess, session_cookie, wait_until

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


@pytest.mark.server
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


@pytest.mark.server
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


def files_of(data_dir: Path) -> dict[str, bytes]:
    """Every file of the data dir and its bytes (the server's log left out)."""
    return {
        path.name: path.read_bytes()
        for path in data_dir.iterdir()
        if path.is_file() and path.name != "server.log"
    }


@pytest.mark.server
def test_restore_refuses_a_running_server_and_changes_nothing(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data")
    server.start()
    try:
        cookie = session_cookie(server.url)
        played(server, cookie)
        assert run("backup", str(tmp_path / "b"), data_dir=server.data_dir).returncode == 0
        shown = played(server, cookie)
        before = files_of(server.data_dir)
        done = run("restore", str(tmp_path / "b"), data_dir=server.data_dir)
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [
            f"tictactoe restore: error: the server is running on {server.data_dir}:"
            " stop it first (systemctl stop tictactoe)"
        ]
        assert files_of(server.data_dir) == before
        assert seen(server, cookie) == shown  # the server plays on with what it had
    finally:
        server.stop()
    done = run("restore", str(tmp_path / "b"), data_dir=server.data_dir)
    assert done.returncode == 0, done.stderr


def test_a_server_does_not_start_during_a_restore(tmp_path: Path) -> None:
    from webapp.server.store import running

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with running.stopped(data_dir):
        done = run("serve", "--port", "1", data_dir=data_dir)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"tictactoe serve: error: a restore into {data_dir} is under way:"
        " start the server once it has finished"
    )


def matches_in(url: str) -> dict[bytes, bytes]:
    """Every match in Redis: key -> its version."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = client.keys("tictactoe:match:*")
        return {key: client.hget(key, "version") for key in keys}  # type: ignore[misc]
    finally:
        client.close()


@pytest.mark.system
def test_restore_with_redis_refuses_a_server_on_another_host(tmp_path: Path) -> None:
    """A server sharing Redis from elsewhere holds no lock on this data dir: its heartbeat
    in Redis refuses the restore, until it stops."""
    from webapp.server.store.running import live_servers

    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    url = redis.start()
    elsewhere = ServerProcess(tmp_path / "elsewhere", {"TICTACTOE_REDIS_URL": url})
    here = tmp_path / "here"
    try:
        elsewhere.start()
        cookie = session_cookie(elsewhere.url)
        played(elsewhere, cookie)
        done = run(
            "backup", str(tmp_path / "b"), data_dir=elsewhere.data_dir, TICTACTOE_REDIS_URL=url
        )
        assert done.returncode == 0, done.stderr
        shutil.copytree(elsewhere.data_dir, here, ignore=shutil.ignore_patterns("server.log"))
        before, stored = files_of(here), matches_in(url)
        done = run("restore", str(tmp_path / "b"), data_dir=here, TICTACTOE_REDIS_URL=url)
        assert done.returncode == 2
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("tictactoe restore: error: 1 server process(es) on this Redis")
        assert f"(pid {elsewhere.workers()[0]})" in line
        assert files_of(here) == before and matches_in(url) == stored
        elsewhere.stop()
        import redis as redis_py

        assert live_servers(redis_py.Redis.from_url(url)) == []  # a clean stop says so at once
        done = run("restore", str(tmp_path / "b"), data_dir=here, TICTACTOE_REDIS_URL=url)
        assert done.returncode == 0, done.stderr
    finally:
        elsewhere.stop()
        redis.stop()


@pytest.mark.system
def test_restore_with_redis_ignores_the_heartbeat_of_a_server_that_is_gone(
    tmp_path: Path,
) -> None:
    """Redis stopped with the server (or the server killed) keeps the server's heartbeat:
    of a process of this host that is gone, the restore says so and goes on."""
    import redis as redis_py

    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    url = redis.start()
    server = ServerProcess(tmp_path / "data", {"TICTACTOE_REDIS_URL": url})
    try:
        server.start()
        done = run("backup", str(tmp_path / "b"), data_dir=server.data_dir, TICTACTOE_REDIS_URL=url)
        assert done.returncode == 0, done.stderr
        (worker,) = server.workers()
        server.kill()
        client = redis_py.Redis.from_url(url)
        (key,) = client.keys("tictactoe:server:*")
        client.persist(key)  # as if Redis had stopped with it: no expiry to wait for
        done = run(
            "restore", str(tmp_path / "b"), data_dir=server.data_dir, TICTACTOE_REDIS_URL=url
        )
        assert done.returncode == 0, done.stderr
        assert f"ignored the heartbeat in Redis of pid {worker} on " in done.stdout
    finally:
        server.stop()
        redis.stop()


def test_restore_waits_for_a_heartbeat_from_elsewhere_that_missed_its_renewal(
    redis_url: str, tmp_path: Path
) -> None:
    """A server on another host stopped with Redis: its heartbeat, no longer renewed, is
    waited for until it expires, and the restore says so; a renewed one refuses at once."""
    import orjson
    import redis as redis_py

    from webapp.server.store.running import ServerRunning, stopped

    client = redis_py.Redis.from_url(redis_url)
    beat = orjson.dumps({"host": "elsewhere.example", "pid": 4242, "started": "b:1"})
    client.set("tictactoe:server:elsewhere.example:4242", beat, ex=2)
    said: list[str] = []
    with stopped(tmp_path, redis_url, say=said.append):
        assert client.keys("tictactoe:server:*") == []
    (line,) = said
    assert "elsewhere.example (pid 4242), which missed its renewal" in line
    client.set("tictactoe:server:elsewhere.example:4242", beat, ex=14)
    with pytest.raises(ServerRunning, match="1 server process"), stopped(tmp_path, redis_url):
        pass


def test_a_heartbeat_is_gone_only_for_a_process_of_this_host_that_stopped() -> None:
    import socket

    from webapp.server.store.running import gone, process_start

    here, me = socket.gethostname(), os.getpid()
    started = process_start(me)
    assert started is not None
    dead = subprocess.Popen(["true"])
    dead.wait()
    beat = {"host": here, "pid": me, "started": started}
    assert not gone(beat)  # this very process
    assert gone({**beat, "started": started.rsplit(":", 1)[0] + ":1"})  # its pid, reused
    assert gone({**beat, "pid": dead.pid, "started": process_start(dead.pid) or started})
    assert not gone({**beat, "host": here + "-elsewhere", "pid": dead.pid})  # can't tell
    assert not gone({"host": here, "pid": dead.pid})  # a release that named no start
    assert not gone({**beat, "pid": dead.pid, "started": "another-boot:" + started})


@pytest.mark.parametrize("name", ["restore", "restore of Redis", "rollback"])
def test_the_guides_blocks_start_no_server_after_a_refused_restore(
    name: str, tmp_path: Path
) -> None:
    """Pasted into a shell, which goes on past a failing line, a block whose restore is
    refused leaves the server stopped."""
    from support.guide import block

    lines = block(name).splitlines()
    pasted = "\n".join(lines[next(n for n, line in enumerate(lines) if " restore " in line) :])
    programs = tmp_path / "bin"
    programs.mkdir()
    for program, says in (("systemctl", f'echo "$@" >> {tmp_path}/started'), ("curl", ":")):
        (programs / program).write_text(f"#!/bin/sh\n{says}\n")
        (programs / program).chmod(0o700)
    refusing = tmp_path / "tictactoe"
    refusing.write_text("#!/bin/sh\necho 'tictactoe restore: error: refused' >&2\nexit 2\n")
    refusing.chmod(0o700)
    (tmp_path / "env").write_text("")
    pasted = pasted.replace("/opt/tictactoe/venv/bin/tictactoe", str(refusing))
    pasted = pasted.replace("/etc/tictactoe/env", str(tmp_path / "env"))
    environ = {**os.environ, "PATH": f"{programs}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-s"], input=pasted, env=environ, capture_output=True, text=True, timeout=60
    )
    assert "refused" in done.stderr
    assert not (tmp_path / "started").exists(), (tmp_path / "started").read_text()


def test_redis_cli_gets_the_password_in_its_environment() -> None:
    from webapp.server.store.backup import redis_cli

    arguments, environ = redis_cli("redis://:s%40cret@10.0.0.10:6380/2")
    assert arguments == ["-h", "10.0.0.10", "-p", "6380"]
    assert environ["REDISCLI_AUTH"] == "s@cret"
    arguments, environ = redis_cli("rediss://app:pw@redis.internal/0")
    assert arguments == ["-h", "redis.internal", "-p", "6379", "--user", "app", "--tls"]
    arguments, environ = redis_cli("unix:///run/redis/redis.sock")
    assert arguments == ["-s", "/run/redis/redis.sock"] and "REDISCLI_AUTH" not in environ


def guide_script(name: str, paths: dict[str, str]) -> str:
    """The guide's block ``name``, its paths moved into the test's folders, without the
    ``systemctl`` lines (the test starts and stops the processes itself)."""
    from support.guide import block, commands, fill

    script = fill("\n".join(commands(block(name), leave_out=("systemctl ",))), paths)
    return script if os.geteuid() == 0 else script.replace("-o redis -g redis ", "")


def sh(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-euc", script], capture_output=True, text=True, timeout=60)


@pytest.mark.system
def test_the_guides_redis_backup_and_restore_work_as_written(tmp_path: Path) -> None:
    """The nightly script and the restore of Redis, from docs/hosting.md, with Redis's
    password in TICTACTOE_REDIS_URL only and its append-only file on: every match found
    again, the dump private, the played-on append-only folder set aside."""
    import redis as redis_py
    from support.guide import BACKUP, ENV_FILE, REDIS_CONF, REDIS_RESTORE, block, redis_conf

    from webapp.server.store.running import live_servers

    workdir, backups = tmp_path / "redis", tmp_path / "backups"
    workdir.mkdir()
    settings = redis_conf(block(REDIS_CONF))  # the guide's: an append-only file
    redis = RedisServer(workdir, settings=settings, password="s3cret @pass")
    url = redis.start()
    env = tmp_path / "env"
    env.write_text(f"TICTACTOE_REDIS_URL={url}\n")
    server = ServerProcess(tmp_path / "data", {"TICTACTOE_REDIS_URL": url})
    paths = {
        ENV_FILE: str(env),
        "/opt/tictactoe/venv/bin/tictactoe": TICTACTOE,
        "/var/lib/tictactoe": str(server.data_dir),
        "/var/backups/tictactoe": str(backups),
    }
    try:
        server.start()
        cookie = session_cookie(server.url)
        before = played(server, cookie)
        done = sh(guide_script(BACKUP, paths))
        assert done.returncode == 0, done.stderr
        (dated,) = backups.iterdir()
        assert {path.name: mode(path) for path in dated.iterdir()} == {
            "dump.rdb": 0o600,
            "secret_key": 0o600,
            "signing_key": 0o600,
        }
        played(server, cookie)  # after the backup: the restore goes back before it
    finally:
        server.stop()
        redis.stop()
    fresh = tmp_path / "fresh"
    restore = guide_script(
        REDIS_RESTORE,
        {
            "/var/backups/tictactoe/2026-11-23": str(dated),
            ENV_FILE: str(env),
            "/opt/tictactoe/venv/bin/tictactoe": TICTACTOE,
            "/var/lib/tictactoe": str(fresh),
            "/var/lib/redis": str(workdir),
        },
    )
    files, tictactoe = restore.rsplit("\n", 1)  # Redis's files, then (Redis up) tictactoe's
    done = sh(files)
    assert done.returncode == 0, done.stderr
    assert any(path.name.startswith("appendonlydir.before-restore-") for path in workdir.iterdir())
    redis = RedisServer(workdir, settings=settings, password="s3cret @pass", port=redis.port)
    redis.start()
    try:
        client = redis_py.Redis.from_url(url)
        wait_until(lambda: not live_servers(client), 20, "the dump's heartbeats expiring")
        done = sh(tictactoe)
        assert done.returncode == 0, done.stderr
        assert "gave the 1 matches in Redis fresh seeds" in done.stdout
        again = ServerProcess(fresh, {"TICTACTOE_REDIS_URL": url})
        try:
            again.start()
            assert_reseeded(seen(again, cookie), before)
        finally:
            again.stop()
    finally:
        redis.stop()
