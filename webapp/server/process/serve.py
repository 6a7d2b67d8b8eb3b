"""The process side: gunicorn's arbiter with gevent workers, started by ``serve()``.

``serve()`` reads the settings and runs the checks of process/preflight.py (one line and a
non-zero exit if anything is wrong), then hands over to the arbiter. Each worker
monkey-patches for gevent, builds the app, and serves websockets through Engine.IO's
gevent driver (simple-websocket) with the Origin checked before the upgrade; what it
runs beside its requests is process/worker_tasks.py's.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.workers.ggevent import GeventWorker

from webapp import __version__
from webapp.server import settings as config
from webapp.server.limits.rates import QuietLog
from webapp.server.process.preflight import StartupError, build_tables, preflight
from webapp.server.process.worker_tasks import end_worker_tasks, start_worker_tasks

log = logging.getLogger("webapp.server.serve")
LOG_FORMAT = "[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s"
LOG_DATE_FORMAT = "%Y-%m-%d %H:%M:%S %z"  # as gunicorn writes its own lines
# gunicorn's atoms: the client's address (the proxy's X-Forwarded-For with TRUST_PROXY,
# which rewrites it before the line is written), time, request line, status, body bytes,
# milliseconds (a websocket's line is written when it closes), User-Agent.
ACCESS_LOG_FORMAT = '%(h)s %(t)s "%(r)s" %(s)s %(B)s %(M)sms "%(a)s"'
RESPAWN_INTERVAL = 1.0  # seconds between replacements of workers that keep dying
LISTEN_BACKLOG = 2048
_BAD_REQUESTS = QuietLog(logging.getLogger("webapp.server.http"))


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


# --- the worker ---------------------------------------------------------------------------


def quiet_bad_requests(record: logging.LogRecord) -> bool:
    """A logging filter: gunicorn's line for each bad request (with up to 8 KB of it)
    becomes one short line now and then, so that a client sending garbage cannot fill
    the log."""
    message = record.getMessage()
    if not message.startswith("Invalid request from ip="):
        return True
    _BAD_REQUESTS.warning("bad HTTP requests", message.removeprefix("Invalid request from ")[:100])
    return False


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker (``gunicorn -k gevent``), as Flask-SocketIO documents it.

    Engine.IO's gevent driver serves websockets through simple-websocket over the socket
    gunicorn puts in the WSGI environ (guarded by wire/websocket.py). A request's head
    must arrive within gunicorn's ``keepalive`` seconds (``HEADER_TIMEOUT``). On stop
    the worker closes every open websocket at once, so that clients reconnect (to a new
    worker on reload) instead of holding it for the whole grace period.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.idle: set[IdleWait] = set()  # the connections waiting for their next request

    def patch(self) -> None:
        """After the fork: gevent patches the standard library, then the app's modules load.

        gunicorn calls this first in ``init_process``, so Socket.IO, Engine.IO, Redis's
        client and the websocket layer are imported only once the patching is done.
        """
        with warnings.catch_warnings():
            # gunicorn's own modules import ssl in the arbiter, so gevent warns that it
            # patches ssl late. Modules using ssl here reach it as ``ssl.X`` at call time
            # and get the patched classes; TLS itself ends at the reverse proxy.
            warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl")
            super().patch()
        import gevent

        # gevent records each new greenlet's spawning stack and parent for debugging:
        # a few kilobytes for every connection's greenlets, never read here.
        gevent.config.track_greenlet_tree = False
        logging.getLogger("gunicorn.error").addFilter(quiet_bad_requests)

    def timeout_ctx(self) -> Any:
        """gunicorn's wait for a connection's next request (its keep-alive timeout), kept
        among the idle ones while it lasts, so that a stop can end it at once."""
        import gevent

        return IdleWait(self.idle, gevent.Timeout(self.cfg.keepalive, False))

    def handle_exit(self, sig: int, frame: object) -> None:
        """SIGTERM: stop accepting, close the open websockets, and end the connections
        waiting for another request: only requests being answered get the grace period
        (a reverse proxy's idle keep-alive connections would hold every stop for all of it)."""
        import gevent

        super().handle_exit(sig, frame)
        app = getattr(self, "wsgi", None)
        if app is not None:
            gevent.spawn(app.extensions["socketio"].server.eio.disconnect)
        gevent.spawn(self.end_idle)

    def end_idle(self) -> None:
        """End every connection's wait for another request."""
        for wait in list(self.idle):
            wait.end()


class IdleWait:
    """A connection's wait for its next request (gevent's Timeout of gunicorn's
    ``keepalive`` seconds, which ends it quietly), listed in ``idle`` while it lasts."""

    __slots__ = ("greenlet", "idle", "timeout")

    def __init__(self, idle: set[IdleWait], timeout: Any) -> None:
        self.idle, self.timeout, self.greenlet = idle, timeout, None

    def __enter__(self) -> Any:
        import gevent

        self.greenlet = gevent.getcurrent()
        self.idle.add(self)
        return self.timeout.__enter__()

    def __exit__(self, *raised: Any) -> bool:
        self.idle.discard(self)
        return bool(self.timeout.__exit__(*raised))

    def end(self) -> None:
        """End the wait now, as its timeout would: gunicorn closes the connection."""
        if self in self.idle and self.greenlet is not None:
            self.greenlet.kill(self.timeout, block=False)


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
            # gunicorn's gevent worker reads each request's head (the first one too)
            # within ``keepalive`` seconds: the deadline for slow heads.
            "keepalive": max(1, math.ceil(self.settings["HEADER_TIMEOUT"])),
            "proc_name": "tictactoe",
            "control_socket_disable": True,  # no socket in the service user's home
            "loglevel": "info",
            "errorlog": "-",
            "accesslog": "-" if self.settings["ACCESS_LOG"] else None,
            "access_log_format": ACCESS_LOG_FORMAT,
            "pre_fork": lambda arbiter, worker: pacer.before_fork(),
            "child_exit": lambda arbiter, worker: pacer.worker_died(),
            "post_worker_init": start_worker_tasks,
            "worker_exit": lambda arbiter, worker: end_worker_tasks(worker),
            "worker_abort": _log_stuck_worker,
        }
        for key, value in options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """The app, built in each worker after gevent has patched it."""
        from webapp.server.app import create_app

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
    build_tables(Path(settings["DATA_DIR"]))
    log.info(
        "tictactoe %s on http://%s:%s with %d worker(s)",
        __version__,
        settings["HOST"],
        settings["PORT"],
        settings["WORKERS"],
    )
    Application(settings).run()
    return 0
