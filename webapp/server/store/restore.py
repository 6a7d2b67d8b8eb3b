"""A backup (store/backup.py) put back into a stopped server's data dir.

A restore refuses while a server holds the data dir's lock, or, with Redis, while any
server's heartbeat is there (store/running.py), but one left by a process of this host that
is gone. It checks the backup first (the database's
integrity, the key's length), moves what it replaces aside, never deletes it, and gives
the files the data dir owner's user and group. A seed kept in the backup may have been
revealed since, so every restored match gets fresh seeds for its unfinished game and its
next one (docs/fairness.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import orjson

from webapp.game.match import reseeded
from webapp.game.records import to_record
from webapp.server.store import datadir, running, signing
from webapp.server.store.backup import FILES, BackupError, check_database, copy_private
from webapp.server.store.interface import Unreadable, parse
from webapp.server.store.sqlite.db import DATABASE_FILE


@dataclasses.dataclass(frozen=True)
class Restored:
    """What a restore did: the files it set aside, how many matches in Redis got fresh
    seeds (None: the matches are in SQLite), and the heartbeats in Redis it ignored, of
    processes of this host that are gone."""

    aside: list[Path]
    reseeded_in_redis: int | None = None
    ignored: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def restore(
    source: Path,
    data_dir: Path,
    *,
    redis_url: str | None = None,
    say: Callable[[str], Any] = print,
) -> Restored:
    """Put a backup's files into ``data_dir``; refused while a server runs on it (or, with
    ``redis_url``, on that Redis), before anything changes; ``say`` tells of a wait."""
    present = _checked_backup(source)
    datadir.prepare(data_dir)
    try:
        with running.stopped(data_dir, redis_url, say=say) as ignored:
            aside = _replace(source, data_dir, present)
            # The matches in Redis came back from its own dump: fresh seeds for them too.
            count = reseed_redis(redis_url, random.SystemRandom()) if redis_url else None
    except running.ServerRunning as err:
        raise BackupError(str(err)) from None
    return Restored(aside, count, ignored)


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
        check_database(source / DATABASE_FILE)
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
        copy = copy_private(source / name, data_dir / name)
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
