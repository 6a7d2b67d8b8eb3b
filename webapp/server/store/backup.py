"""Backups of the data dir, taken while the server runs (their restore: store/restore.py).

A backup is a folder holding ``matches.sqlite3`` (SQLite's online backup: a consistent
copy even while players move), ``secret_key`` (without it no player's cookie finds
their match again) and ``signing_key`` (the key that signs game records, when it is
kept in the data dir), all 0600 in a 0700 folder. Matches kept in Redis are backed up with
Redis's own dump instead (``dump.rdb``, taken online by ``redis-cli --rdb`` with the host,
port and password of ``TICTACTOE_REDIS_URL``, the password passed in its environment, not
on its command line); the keys are copied all the same.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from webapp.server.store import datadir, signing
from webapp.server.store.sqlite.db import DATABASE_FILE

FILES = (DATABASE_FILE, datadir.KEY_FILE, signing.KEY_FILE)
REDIS_DUMP = "dump.rdb"


class BackupError(RuntimeError):
    """A backup or restore cannot be done; the message says why and what to do."""


def backup(data_dir: Path, target: Path, *, redis_url: str | None = None) -> list[Path]:
    """Copy the data dir's keys to ``target``, with its database, or Redis's dump when the
    matches are in the Redis at ``redis_url``."""
    key = data_dir / datadir.KEY_FILE
    database = data_dir / DATABASE_FILE
    with_database = redis_url is None
    if not key.is_file():
        raise BackupError(f"no secret key in {data_dir}: is this the server's data dir?")
    if with_database and not database.is_file():
        raise BackupError(f"no {DATABASE_FILE} in {data_dir}: is this the server's data dir?")
    target.mkdir(parents=True, exist_ok=True)
    target.chmod(datadir.PRIVATE_DIR)
    written = [copy_private(key, target / datadir.KEY_FILE)]
    signing_key = data_dir / signing.KEY_FILE
    if signing_key.is_file():  # absent when TICTACTOE_SIGNING_KEY is set
        written.append(copy_private(signing_key, target / signing.KEY_FILE))
    if with_database:
        copy = target / DATABASE_FILE
        partial = _partial(copy)
        source = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
        destination = sqlite3.connect(partial)
        try:
            with destination:
                source.backup(destination)
            destination.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            source.close()
            destination.close()
        check_database(partial)
        partial.replace(copy)
        written.append(copy)
    if redis_url:
        written.append(dump_redis(redis_url, target / REDIS_DUMP))
    return written


def dump_redis(url: str, target: Path) -> Path:
    """Redis's own dump of everything it holds, taken online, written private to ``target``."""
    program = shutil.which("redis-cli")
    if program is None:
        raise BackupError(
            "redis-cli is not installed (Debian's redis-tools): it takes Redis's dump"
        )
    arguments, environ = redis_cli(url)
    partial = _partial(target)  # 0600 before redis-cli writes into it, never readable by others
    done = subprocess.run(
        [program, *arguments, "--rdb", str(partial)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        said = (done.stderr or done.stdout).strip().splitlines() or ["no reason given"]
        raise BackupError(f"redis-cli could not take Redis's dump: {said[-1]}")
    partial.replace(target)
    return target


def redis_cli(url: str) -> tuple[list[str], dict[str, str]]:
    """redis-cli's arguments and environment to reach ``url``: its password goes in
    ``REDISCLI_AUTH``, where other users cannot read it as they can a command line."""
    from redis.connection import parse_url

    parts = parse_url(url)  # type: ignore[no-untyped-call]
    if "path" in parts:
        arguments = ["-s", str(parts["path"])]
    else:
        arguments = [
            "-h",
            str(parts.get("host") or "localhost"),
            "-p",
            str(parts.get("port", 6379)),
        ]
    if parts.get("username"):
        arguments += ["--user", str(parts["username"])]
    if url.startswith("rediss://"):
        arguments.append("--tls")
    environ = {key: value for key, value in os.environ.items() if key != "REDISCLI_AUTH"}
    if parts.get("password"):
        environ["REDISCLI_AUTH"] = str(parts["password"])
    return arguments, environ


def _partial(target: Path) -> Path:
    """A new empty private file beside ``target``, to be moved over it once complete."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    datadir.private_file(partial)
    return partial


def copy_private(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target``, private (0600) and whole or not at all."""
    partial = _partial(target)
    with source.open("rb") as reading, partial.open("wb") as writing:
        shutil.copyfileobj(reading, writing)
        writing.flush()
        os.fsync(writing.fileno())
    partial.replace(target)
    return target


def check_database(path: Path) -> None:
    """Refuse (BackupError) a file that is not a whole, readable matches database."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            db.execute("SELECT count(*) FROM matches").fetchone()
    except sqlite3.Error as err:
        raise BackupError(f"{path} is not a readable matches database: {err}") from None
    if verdict != "ok":
        raise BackupError(f"{path} failed SQLite's integrity check: {verdict}")
