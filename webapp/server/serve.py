"""The process side: checks before starting, then gunicorn's arbiter with gevent workers.

``serve()`` checks everything that would stop a worker from starting (settings, the
data dir and its key, the port, Redis) and exits with one line naming the cause, so
the arbiter never retries something that cannot work. Work that must happen once (the
secret key, the engine's tables) happens here, before any worker is forked. Each worker
then monkey-patches for gevent, builds the app, and serves websockets through
gevent-websocket with the Origin checked before the upgrade.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import socket
import sqlite3
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler

from .. import __version__
from ..game import engine
from ..game.board import Board
from . import config, datadir

log = logging.getLogger(__name__)
LOG_FORMAT = "[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s"
LOG_DATE_FORMAT = "%Y-%m-%d %H:%M:%S %z"  # as gunicorn writes its own lines
PRUNE_EVERY_SECONDS = 6 * 3600
RESPAWN_INTERVAL = 1.0  # seconds between replacements of workers that keep dying
LISTEN_BACKLOG = 2048


class StartupError(RuntimeError):
    """The server cannot start; the message names the cause and the fix."""


# --- before the arbiter -----------------------------------------------------------------


def default_data_dir() -> Path:
    """Flask's instance folder for this package: ``instance/`` beside it in a checkout."""
    from flask import Flask

    return Path(Flask("webapp").instance_path)


def preflight(settings: dict[str, Any]) -> None:
    """Check what would stop a worker, and do the once-only work; raise StartupError."""
    if settings["WORKERS"] > 1 and not settings["REDIS_URL"]:
        raise StartupError(
            "several workers share their matches through Redis: set TICTACTOE_REDIS_URL"
        )
    data_dir = Path(settings["DATA_DIR"] or default_data_dir())
    settings["DATA_DIR"] = str(data_dir)
    try:
        datadir.prepare(data_dir)
        if not settings["SECRET_KEY"]:
            settings["SECRET_KEY"] = datadir.secret_key(data_dir)
    except datadir.DataDirError as err:
        raise StartupError(str(err)) from None
    check_port(settings["HOST"], settings["PORT"])
    if settings["REDIS_URL"]:
        check_redis(settings["REDIS_URL"])
    else:
        check_database(data_dir)


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


def check_redis(url: str) -> None:
    """Fail now if Redis does not answer at ``url``."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()
    except (redis.RedisError, ValueError) as err:
        raise StartupError(f"cannot reach Redis at {url}: {err}") from None


def check_database(data_dir: Path) -> None:
    """Fail now if the SQLite database cannot be opened (or created) in the data dir."""
    from .store import DATABASE_FILE, SQLiteStore

    try:
        SQLiteStore(data_dir / DATABASE_FILE).close()
    except sqlite3.Error as err:
        raise StartupError(f"cannot open {data_dir / DATABASE_FILE}: {err}") from None


def build_tables() -> None:
    """Solve the game now, so that every worker shares the tables instead of building them."""
    for cells in engine.solved():
        engine.analyse(Board(cells))
    gc.collect()
    gc.freeze()  # keep them out of the collector's way in every worker too


# --- the arbiter's hooks -----------------------------------------------------------------


class RespawnPacer:
    """Lets the arbiter replace a dying worker at most once every ``interval`` seconds.

    gunicorn respawns at once; a worker that dies on start would otherwise be restarted
    hundreds of times a second. The first workers start without waiting.
    """

    def __init__(
        self,
        interval: float = RESPAWN_INTERVAL,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval, self.clock, self.sleep = interval, clock, sleep
        self.deaths = 0
        self.last_fork = float("-inf")

    def worker_died(self) -> None:
        """Count a worker that exited; later forks are paced."""
        self.deaths += 1

    def before_fork(self) -> None:
        """Wait, if needed, so that replacements are ``interval`` apart."""
        if self.deaths:
            wait = self.last_fork + self.interval - self.clock()
            if wait > 0:
                self.sleep(wait)
        self.last_fork = self.clock()


def _log_stuck_worker(worker: Any) -> None:
    """In a worker the arbiter is about to replace: say where it was stuck."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    stack = "".join(traceback.format_stack(frame)) if frame else "(no stack)"
    log.error("worker %s stopped answering and is replaced; it was at:\n%s", worker.pid, stack)


def _start_worker_tasks(worker: Any) -> None:
    """In each worker once the app is built: keep it out of the GC's way, start pruning."""
    app = worker.wsgi
    gc.collect()
    gc.freeze()
    app.extensions["socketio"].start_background_task(_prune_forever, app)


def _prune_forever(app: Any) -> None:
    """Delete idle matches every few hours, for servers that run for months."""
    idle_seconds = float(app.config["IDLE_DAYS"]) * 86400
    while True:
        app.extensions["socketio"].sleep(PRUNE_EVERY_SECONDS)
        pruned = app.extensions["tictactoe"].store.prune(idle_seconds)
        log.info("pruned %d idle match(es)", pruned)


# --- the worker ---------------------------------------------------------------------------


class Worker(GeventPyWSGIWorker):  # type: ignore[misc]
    """gunicorn's gevent worker, serving websockets with the Origin checked first.

    On stop it closes every open websocket at once, so that clients reconnect (to a
    new worker on reload) instead of holding the worker for the whole grace period.
    """

    def init_process(self) -> None:
        """After the fork: build the handler class (gevent is patched by then), then run."""
        from geventwebsocket.handler import WebSocketHandler

        from .patches import origin_checking_handler
        from .security import handshake_allowed

        base = type("Handler", (PyWSGIHandler, WebSocketHandler), {})
        self.wsgi_handler = origin_checking_handler(handshake_allowed, base)
        with warnings.catch_warnings():
            # gunicorn's own modules import ssl in the arbiter, so gevent warns that it
            # patches ssl late. Modules using ssl here reach it as ``ssl.X`` at call time
            # and get the patched classes; TLS itself ends at the reverse proxy.
            warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl")
            super().init_process()

    def handle_exit(self, sig: int, frame: object) -> None:
        """SIGTERM: stop accepting, and close the open websockets."""
        import gevent

        from .patches import close_all_sockets

        super().handle_exit(sig, frame)
        app = getattr(self, "wsgi", None)
        if app is not None:
            gevent.spawn(close_all_sockets, app.extensions["socketio"])


class Application(BaseApplication):  # type: ignore[misc]
    """``tictactoe serve`` as a gunicorn application (gunicorn's "Custom Application")."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)
        self.pacer = RespawnPacer()
        super().__init__()

    def load_config(self) -> None:
        """gunicorn's settings, from ours."""
        pacer = self.pacer
        options = {
            "bind": [f"{self.settings['HOST']}:{self.settings['PORT']}"],
            "workers": self.settings["WORKERS"],
            "worker_class": Worker,
            "worker_connections": self.settings["WORKER_CONNECTIONS"],
            "graceful_timeout": self.settings["STOP_SECONDS"],
            "timeout": self.settings["WORKER_TIMEOUT"],
            "backlog": LISTEN_BACKLOG,
            "keepalive": 5,
            "proc_name": "tictactoe",
            "control_socket_disable": True,  # no socket in the service user's home
            "loglevel": "info",
            "errorlog": "-",
            "pre_fork": lambda arbiter, worker: pacer.before_fork(),
            "child_exit": lambda arbiter, worker: pacer.worker_died(),
            "post_worker_init": _start_worker_tasks,
            "worker_abort": _log_stuck_worker,
        }
        for key, value in options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """The app, built in each worker after gevent has patched it."""
        from .app import create_app

        return create_app({**self.settings, "ASYNC_MODE": "gevent"})


def serve(*, host: str | None = None, port: int | None = None, workers: int | None = None) -> int:
    """Check, prepare, then run the arbiter until stopped; returns the exit status."""
    logging.basicConfig(
        level=logging.INFO, format=LOG_FORMAT, datefmt=LOG_DATE_FORMAT, stream=sys.stderr
    )
    try:
        settings = config.load(os.environ)
        overrides = {"HOST": host, "PORT": port, "WORKERS": workers}
        settings.update({key: value for key, value in overrides.items() if value is not None})
        preflight(settings)
    except (config.SettingError, StartupError) as err:
        print(f"tictactoe serve: error: {err}", file=sys.stderr)
        return 2
    build_tables()
    log.info(
        "tictactoe %s on http://%s:%s with %d worker(s)",
        __version__,
        settings["HOST"],
        settings["PORT"],
        settings["WORKERS"],
    )
    Application(settings).run()
    return 0
