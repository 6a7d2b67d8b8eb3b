"""Before the arbiter starts: everything that would stop a worker is checked once, and the
work that must happen once (the secret key, the engine's tables, the opening books) is done.

A failure is a ``StartupError`` whose message names the cause and the fix, so that
``tictactoe serve`` exits with one line instead of letting the arbiter retry.
"""

from __future__ import annotations

import errno
import gc
import importlib.util
import logging
import os
import socket
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webapp.game import engine, odds
from webapp.game.board import Board
from webapp.game.variant import CLASSIC, VARIANTS
from webapp.server.store import agreement, books, datadir, running, signing
from webapp.server.store.redis import client as redis_client

log = logging.getLogger("webapp.server.preflight")


class StartupError(RuntimeError):
    """The server cannot start; the message names the cause and the fix."""


def preflight(settings: dict[str, Any]) -> None:
    """Check what would stop a worker, and do the once-only work; raise StartupError."""
    if settings["WORKERS"] > 1 and not settings["REDIS_URL"]:
        raise StartupError(
            "several workers share their matches through Redis: set TICTACTOE_REDIS_URL"
        )
    data_dir = Path(settings["DATA_DIR"] or datadir.default(os.environ))
    settings["DATA_DIR"] = str(data_dir)
    try:
        datadir.prepare(data_dir)
        running.hold(data_dir)  # a restore refuses while the server runs, and the reverse
        if not settings["SECRET_KEY"]:
            settings["SECRET_KEY"] = datadir.secret_key(data_dir)
        signer = signing.signer(settings, data_dir)  # the data dir's key made once, both checked
    except (datadir.DataDirError, ValueError) as err:
        raise StartupError(str(err)) from None
    check_websocket_server()
    check_port(settings["HOST"], settings["PORT"])
    if settings["REDIS_URL"]:
        check_redis(settings["REDIS_URL"], agreement.fingerprints(settings, signer))
    else:
        check_database(data_dir)


def open_books(data_dir: Path) -> None:
    """Load every variant's opening book from the data dir, building (and caching) the
    ones it lacks (about 10 s of CPU at a first start), so that no worker builds one while
    players wait; each says so in the log. Classic plays from the engine's own table."""
    for variant in VARIANTS:
        if variant != CLASSIC:
            books.opening_book(variant, data_dir)


def check_websocket_server(find_spec: Callable[[str], object] = importlib.util.find_spec) -> None:
    """Engine.IO's gevent driver serves websockets through gevent-websocket whenever it is
    installed (a venv upgraded in place from 0.4.0 keeps it), and then answers every
    websocket 500 under gunicorn's gevent worker: simple-websocket must serve them."""
    if find_spec("geventwebsocket") is not None:
        raise StartupError(
            "gevent-websocket is installed, and Engine.IO would serve websockets through it: "
            "remove it (pip uninstall gevent-websocket), it is no longer used"
        )


def check_port(host: str, port: int) -> None:
    """Fail now if ``host:port`` cannot be listened on (in use, or not ours)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            why = "already in use" if err.errno == errno.EADDRINUSE else err.strerror
            raise StartupError(f"cannot listen on {host}:{port}: {why}") from None


def check_redis(url: str, keys: dict[str, Any] | None = None) -> None:
    """Fail now if Redis does not answer at ``url``, or if a server on it uses ``keys``
    this one does not know (their fingerprints); warn of each setting docs/hosting.md asks
    of Redis and it lacks."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        client.ping()
        for warning in redis_client.warnings(client):
            log.warning(warning)
        if keys is not None:
            agreement.check(keys, running.live_servers(client))
    except agreement.Disagreement as err:
        raise StartupError(str(err)) from None
    except (redis.RedisError, ValueError) as err:
        raise StartupError(f"cannot reach Redis at {url}: {err}") from None


def check_database(data_dir: Path) -> None:
    """Fail now if the SQLite database cannot be opened (or created) in the data dir."""
    from webapp.server.store.matches import DATABASE_FILE, SQLiteStore

    try:
        SQLiteStore(data_dir / DATABASE_FILE).close()
    except sqlite3.Error as err:
        raise StartupError(f"cannot open {data_dir / DATABASE_FILE}: {err}") from None


def build_tables(data_dir: Path | None = None) -> None:
    """Solve the game and its odds now, and open the data dir's opening books, so that
    every worker shares the tables instead of building them."""
    for cells in engine.solved():
        engine.analyse(Board(cells))
    odds.build_tables()
    if data_dir is not None:
        open_books(data_dir)
    gc.collect()
    gc.freeze()  # keep them out of the collector's way in every worker too
