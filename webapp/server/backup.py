"""Backups of the data dir, taken while the server runs, and their restore.

A backup is a folder holding ``matches.sqlite3`` (SQLite's online backup: a consistent
copy even while players move), ``secret_key`` (without it no player's cookie finds
their match again) and ``signing_key`` (the key that signs game records, when it is
kept in the data dir), all 0600 in a 0700 folder. Matches kept in Redis are backed up with
Redis's own dump instead (docs/hosting.md); the key is copied all the same.

A restore goes into a stopped server's data dir. It checks the backup first (the
database's integrity, the key's length), moves what it replaces aside, never deletes it,
and gives the files the data dir owner's user and group. A seed kept in the backup may
have been revealed since, so every restored match gets fresh seeds for its unfinished
game and its next one (docs/fairness.md).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import sqlite3
import time
from pathlib import Path
from typing import cast

import orjson

from ..game.match import reseeded
from ..game.records import to_record
from . import datadir, signing
from .sqlite_store import DATABASE_FILE
from .storage import Unreadable, parse

FILES = (DATABASE_FILE, datadir.KEY_FILE, signing.KEY_FILE)


class BackupError(RuntimeError):
    """A backup or restore cannot be done; the message says why and what to do."""


def backup(data_dir: Path, target: Path, *, with_database: bool = True) -> list[Path]:
    """Copy the data dir's key (and, unless matches are in Redis, its database) to ``target``."""
    key = data_dir / datadir.KEY_FILE
    database = data_dir / DATABASE_FILE
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
    return written


def restore(source: Path, data_dir: Path) -> list[Path]:
    """Put a backup's files into ``data_dir`` (the server stopped); returns what was set aside."""
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
    datadir.prepare(data_dir)
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
