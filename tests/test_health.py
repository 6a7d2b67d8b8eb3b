"""``/healthz`` checks for real: the store read and written, the key, the free disk; cached."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from support.testing import RedisServer, ServerProcess, seed_books, wait_until

from webapp import __version__
from webapp.server.app import create_app
from webapp.server.pages.health import WINDOW_SECONDS

ALL_OK = {"store": "ok", "key": "ok", "disk": "ok"}
ROOT = Path(__file__).resolve().parent.parent
# An absolute path anywhere in a body (not a URL's "//host/0").
ANY_PATH = re.compile(r"(?<![\w:/])/[^\s\"']+")


def shows_no_path(body: dict[str, Any], *paths: Path) -> bool:
    """True if ``body`` names none of ``paths`` and no absolute path at all."""
    text = json.dumps(body)
    return not ANY_PATH.search(text) and not any(str(path) in text for path in paths)


def in_process(tmp_path: Path, **settings: Any) -> Flask:
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **settings})


def health(app: Flask) -> tuple[int, dict[str, Any]]:
    reply = app.test_client().get("/healthz")
    return reply.status_code, reply.get_json()


def fetch(url: str) -> tuple[int, dict[str, Any]]:
    """Status and JSON of a real server's /healthz, 503 included."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def failing(url: str, part: str) -> dict[str, Any]:
    """Wait (past the cache) until /healthz answers 503 with ``part`` failing; its body."""
    wait_until(lambda: fetch(url)[1]["checks"][part] != "ok", 30, f"the {part} check failing")
    status, body = fetch(url)
    assert status == 503 and body["status"] == "failing", body
    return body


def without_usage(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "usage"}


def test_all_well_is_200_with_each_check_named(tmp_path: Path) -> None:
    status, body = health(in_process(tmp_path))
    assert status == 200
    assert without_usage(body) == {"status": "ok", "version": __version__, "checks": ALL_OK}
    assert set(body["usage"]) == {"data_mb", "matches", "rooms", "history_games"}


def test_the_answer_is_cached_per_process(tmp_path: Path) -> None:
    app = in_process(tmp_path)
    now = [1000.0]
    app.extensions["health"].clock = lambda: now[0]
    store = app.extensions["tictactoe"].store
    calls: list[None] = []
    real_check = store.check

    def counted() -> str | None:
        calls.append(None)
        return real_check()

    store.check = counted
    assert health(app)[0] == health(app)[0] == 200
    assert len(calls) == 1
    now[0] += WINDOW_SECONDS / 2
    health(app)
    assert len(calls) == 1
    now[0] += WINDOW_SECONDS
    health(app)
    assert len(calls) == 2


def test_a_check_that_raises_is_failing_not_an_error(tmp_path: Path) -> None:
    app = in_process(tmp_path)

    def broken() -> str | None:
        raise OSError(5, "no such thing", str(tmp_path / "matches.sqlite3"))

    app.extensions["tictactoe"].store.check = broken
    status, body = health(app)
    assert status == 503 and body["checks"]["store"].startswith("the check failed: OSError")
    assert "no such thing" in body["checks"]["store"]
    assert body["checks"]["key"] == body["checks"]["disk"] == "ok"
    assert shows_no_path(body, tmp_path)


@pytest.mark.parametrize(
    ("content", "says"), [("", "unreadable, empty or damaged"), ("x" * 64, "changed")]
)
def test_an_emptied_or_changed_key_file_fails(tmp_path: Path, content: str, says: str) -> None:
    app = in_process(tmp_path)
    (tmp_path / "secret_key").write_text(content)
    status, body = health(app)
    assert status == 503 and says in body["checks"]["key"]
    assert body["checks"]["store"] == body["checks"]["disk"] == "ok"
    assert "secret_key" in body["checks"]["key"] and shows_no_path(body, tmp_path)


def test_a_key_from_the_environment_does_not_watch_the_file(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("k" * 64)
    app = in_process(tmp_path, SECRET_KEY="e" * 40)
    (tmp_path / "secret_key").write_text("")
    status, body = health(app)
    assert (status, without_usage(body)) == (
        200,
        {"status": "ok", "version": __version__, "checks": ALL_OK},
    )


def test_the_disk_floor(tmp_path: Path) -> None:
    free_mb = shutil.disk_usage(tmp_path).free // (1024 * 1024)
    assert health(in_process(tmp_path / "a", MIN_FREE_MB=max(0, free_mb - 100)))[0] == 200
    status, body = health(in_process(tmp_path / "b", MIN_FREE_MB=free_mb + 1000))
    assert status == 503 and "under the floor" in body["checks"]["disk"]
    assert shows_no_path(body, tmp_path)


# --- real servers ------------------------------------------------------------------------


@pytest.fixture
def unhealthy_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start a server that may fail its health check from the start; stopped afterwards."""
    started: list[ServerProcess] = []

    def start(**env: str) -> ServerProcess:
        server = ServerProcess(tmp_path / f"server-{len(started)}", env)
        started.append(server)
        server.data_dir.mkdir(parents=True)
        seed_books(server.data_dir)  # the books a first start would build, as start() gives
        with server.log.open("ab") as log:
            server.process = subprocess.Popen(
                server.command, env=server.env, stdout=log, stderr=log
            )

        def answers() -> bool:
            try:
                fetch(server.url)
            except OSError:
                assert server.process and server.process.poll() is None, server.log_tail()
                return False
            return True

        wait_until(answers, 30, "the server answering /healthz")
        return server

    yield start
    for server in started:
        server.stop()


def test_real_server_under_the_disk_floor(unhealthy_server: Callable[..., ServerProcess]) -> None:
    server = unhealthy_server(TICTACTOE_MIN_FREE_MB="100000000")
    status, body = fetch(server.url)
    assert status == 503 and body["status"] == "failing"
    assert "under the floor of 100000000 MB" in body["checks"]["disk"]
    assert body["checks"]["store"] == body["checks"]["key"] == "ok"


def test_real_server_with_its_database_overwritten(server: ServerProcess) -> None:
    status, body = fetch(server.url)
    assert status == 200 and body["checks"] == ALL_OK
    database = server.data_dir / "matches.sqlite3"
    database.write_bytes(os.urandom(database.stat().st_size or 4096))
    body = failing(server.url, "store")
    # SQLite's words for it depend on which page it reads first.
    assert re.search("not a database|malformed", body["checks"]["store"]), body
    assert body["checks"]["key"] == body["checks"]["disk"] == "ok"


def chattr(flag: str, *paths: Path) -> None:
    subprocess.run(["chattr", flag, *map(str, paths)], check=True, capture_output=True)


def test_real_server_that_cannot_write(server: ServerProcess) -> None:
    files = [server.data_dir / name for name in ("matches.sqlite3", "matches.sqlite3-wal")]
    try:
        chattr("+i", *files)
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"chattr +i is not available here: {err}")
    try:
        body = failing(server.url, "store")
    finally:
        chattr("-i", *files)
    assert "readonly" in body["checks"]["store"] or "I/O" in body["checks"]["store"]
    wait_until(lambda: fetch(server.url)[0] == 200, 30, "the store check passing again")


def test_real_server_with_its_key_file_emptied(server: ServerProcess) -> None:
    (server.data_dir / "secret_key").write_text("")
    body = failing(server.url, "key")
    assert "secret_key" in body["checks"]["key"]
    assert body["checks"]["store"] == body["checks"]["disk"] == "ok"
    assert shows_no_path(body, server.data_dir)


def test_real_server_with_redis_down(
    server_factory: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    redis_server = RedisServer(tmp_path)
    url = redis_server.start()
    try:
        server = server_factory(TICTACTOE_REDIS_URL=url)
        assert fetch(server.url)[0] == 200
        redis_server.stop()
        body = failing(server.url, "store")
        assert body["checks"]["store"].startswith("Redis: ")
        redis_server.start()  # back on the same port: healthy again
        wait_until(lambda: fetch(server.url)[0] == 200, 30, "the Redis check passing again")
    finally:
        redis_server.stop()


# --- the full check on a schedule -----------------------------------------------------


def fill_and_damage_the_middle(database: Path, rows: int = 400) -> int:
    """Add ``rows`` matches no player will load, then overwrite one leaf page in the
    middle of the table (neither of its ends, which every health check reads); its number."""
    with sqlite3.connect(database) as db:
        db.executemany(
            "INSERT INTO matches (player, version, data, updated) VALUES (?, 1, ?, ?)",
            [(f"filler-{n:05}", "x" * 1000, time.time()) for n in range(rows)],
        )
    with sqlite3.connect(database) as db:
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
        leaves = [
            row[0]
            for row in db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'matches' AND pagetype = 'leaf'"
                " ORDER BY path"
            )
        ]
    assert busy == 0 and len(leaves) > 10, (busy, leaves)
    middle = leaves[len(leaves) // 2]
    with database.open("r+b") as file:
        file.seek((middle - 1) * size)
        file.write(os.urandom(size))
    return middle


def test_damage_in_the_middle_of_a_table_fails_healthz_within_the_schedule(
    server_factory: Callable[..., ServerProcess],
) -> None:
    """No query reads the damaged page, and every health check reads only each table's
    ends: the full check on its schedule (here every 1.2 s) finds it."""
    server = server_factory(TICTACTOE_QUICK_CHECK_MINUTES="0.02")
    fill_and_damage_the_middle(server.data_dir / "matches.sqlite3")
    assert fetch(server.url)[0] == 200  # the ends of every table still read
    body = failing(server.url, "store")
    assert body["checks"]["store"].startswith("SQLite: damaged: "), body
    assert body["checks"]["key"] == body["checks"]["disk"] == "ok"
    assert shows_no_path(body, server.data_dir)
    assert "is damaged (restore a backup)" in server.log_tail(20_000)


def test_the_full_check_runs_off_the_event_loop(tmp_path: Path) -> None:
    """Under gevent, while a full check takes a second, the event loop goes on serving:
    another greenlet keeps running, and the check's finding still counts."""
    script = textwrap.dedent(
        """
        from gevent import monkey

        monkey.patch_all()
        import sys
        import gevent
        from webapp.server.store.sqlite import matches as sqlite_store

        pause = monkey.get_original("time", "sleep")

        def slow(db):
            pause(1.0)  # as SQLite reading a large file, the GIL let go
            return "damaged: found by the slow check"

        sqlite_store.quick_check = slow
        store = sqlite_store.SQLiteStore(sys.argv[1])
        ticks = []

        def ticker():
            for _ in range(200):
                ticks.append(1)
                gevent.sleep(0.01)

        gevent.spawn(ticker)
        found = store.full_check()
        print(len(ticks), found, store.check())
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "matches.sqlite3")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    ticks, said = run.stdout.split(" ", 1)
    assert int(ticks) >= 5, run.stdout  # the loop ran on while the check read
    assert said.strip() == (
        "damaged: found by the slow check SQLite: damaged: found by the slow check"
    )
