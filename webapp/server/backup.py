"""Backups of the data dir, taken while the server runs, and their restore.

A backup is a folder holding ``matches.sqlite3`` (SQLite's online backup: a consistent
copy even while players move), ``secret_key`` (without it no player's cookie finds
their match again) and ``signing_key`` (the key that signs game records, when it is
kept in the data dir), all 0600 in a 0700 folder. Matches kept in Redis are backed up with
Redis's own dump instead (``dump.rdb``, taken online by ``redis-cli --rdb`` with the host,
port and password of ``TICTACTOE_REDIS_URL``, the password passed in its environment, not
on its command line); the keys are copied all the same.

A restore goes into a stopped server's data dir: it refuses while a server holds the
data dir's lock, or, with Redis, while any server's heartbeat is there (running.py). It
checks the backup first (the database's integrity, the key's length), moves what it
replaces aside, never deletes it, and gives the files the data dir owner's user and group.
A seed kept in the backup may have been revealed since, so every restored match gets
fresh seeds for its unfinished game and its next one (docs/fairness.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import cast

import orjson

from ..game.match import reseeded
from ..game.records import to_record
from . import datadir, running, signing
from .sqlite_db import DATABASE_FILE
from .storage import Unreadable, parse

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
    written = [_copy_private(key, target / datadir.KEY_FILE)]
    signing_key = data_dir / signing.KEY_FILE
    if signing_key.is_file():  # absent when TICTACTOE_SIGNING_KEY is set
        written.append(_copy_private(signing_key, target / signing.KEY_FILE))
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
        _check_database(partial)
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


@dataclasses.dataclass(frozen=True)
class Restored:
    """What a restore did: the files it set aside, and how many matches in Redis got
    fresh seeds (None: the matches are in SQLite)."""

    aside: list[Path]
    reseeded_in_redis: int | None = None


def restore(source: Path, data_dir: Path, *, redis_url: str | None = None) -> Restored:
    """Put a backup's files into ``data_dir``; refused while a server runs on it (or, with
    ``redis_url``, on that Redis), before anything changes."""
    present = _checked_backup(source)
    datadir.prepare(data_dir)
    try:
        with running.stopped(data_dir, redis_url):
            aside = _replace(source, data_dir, present)
            # The matches in Redis came back from its own dump: fresh seeds for them too.
            count = reseed_redis(redis_url, random.SystemRandom()) if redis_url else None
    except running.ServerRunning as err:
        raise BackupError(str(err)) from None
    return Restored(aside, count)


def _checked_backup(source: Path) -> list[str]:
    """The backup's files, each checked readable; raises BackupError."""
    present = [name for name in FILES if (source / name).is_file()]
    if datadir.KEY_FILE not in present:
        raise BackupError(f"no {datadir.KEY_FILE} in {source}: not a backup of this server")
    try:
        datadir.read_key(source / datadir.KEY_FILE)
    except datadir.DataDirError:
        raise BackupError(f"the secret key in {source} is empty or damaged") from None
    if signing.KEY_FILE in present:
        try:
            signing.read_key(source / signing.KEY_FILE)
        except datadir.DataDirError:
            raise BackupError(f"the signing key in {source} is empty or damaged") from None
    if DATABASE_FILE in present:
        _check_database(source / DATABASE_FILE)
    return present


def _replace(source: Path, data_dir: Path, present: list[str]) -> list[Path]:
    """Set the data dir's files aside and copy the backup's in; what was set aside."""
    owner = data_dir.stat()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = []
    for name in (*FILES, DATABASE_FILE + "-wal", DATABASE_FILE + "-shm"):
        old = data_dir / name
        if old.exists():
            moved = old.with_name(f"{name}.before-restore-{stamp}")
            old.replace(moved)
            aside.append(moved)
    for name in present:
        copy = _copy_private(source / name, data_dir / name)
        if name == DATABASE_FILE:
            reseed(copy, random.SystemRandom())
        if os.geteuid() == 0:
            os.chown(copy, owner.st_uid, owner.st_gid)
    return aside


def reseed_redis(url: str, rng: random.Random, *, namespace: str = "tictactoe:") -> int:
    """As ``reseed``, for the matches in Redis (restored from its own dump, the server
    stopped); how many matches."""
    import redis

    client = redis.Redis.from_url(url)
    count = 0
    try:
        for key in client.scan_iter(match=f"{namespace}match:*", count=500):
            data = cast(bytes | None, client.hget(key, "data"))
            try:
                match = reseeded(parse(data or b""), rng)
            except Unreadable:
                continue
            record = orjson.dumps(to_record(match))
            client.hset(key, mapping={"version": match.version, "data": record})
            count += 1
    finally:
        client.close()
    return count


def reseed(path: Path, rng: random.Random) -> int:
    """Give every readable match in the database at ``path`` fresh seeds for the seeds
    not yet revealed; how many matches. An unreadable one is left for the server to set
    aside when it is loaded."""
    count = 0
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        rows = db.execute("SELECT player, CAST(data AS BLOB) FROM matches").fetchall()
        for player, data in rows:
            try:
                match = reseeded(parse(bytes(data)), rng)
            except Unreadable:
                continue
            db.execute(
                "UPDATE matches SET version = ?, data = ? WHERE player = ?",
                (match.version, orjson.dumps(to_record(match)).decode(), player),
            )
            count += 1
    return count


def _partial(target: Path) -> Path:
    """A new empty private file beside ``target``, to be moved over it once complete."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    datadir.private_file(partial)
    return partial


def _copy_private(source: Path, target: Path) -> Path:
    partial = _partial(target)
    with source.open("rb") as reading, partial.open("wb") as writing:
        shutil.copyfileobj(reading, writing)
        writing.flush()
        os.fsync(writing.fileno())
    partial.replace(target)
    return target


def _check_database(path: Path) -> None:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            db.execute("SELECT count(*) FROM matches").fetchone()
    except sqlite3.Error as err:
        raise BackupError(f"{path} is not a readable matches database: {err}") from None
    if verdict != "ok":
        raise BackupError(f"{path} failed SQLite's integrity check: {verdict}")
