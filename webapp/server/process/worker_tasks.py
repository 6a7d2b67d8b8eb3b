"""What each worker runs beside its requests, started once its app is built: pruning what
has been idle past its time, SQLite's full check of the database on a schedule, its open
sockets kept counted in Redis, its heartbeat.

process/serve.py's arbiter hooks call ``start_worker_tasks`` and ``end_worker_tasks``.
"""

from __future__ import annotations

import gc
import logging
from typing import Any

log = logging.getLogger("webapp.server.worker_tasks")
PRUNE_EVERY_SECONDS = 6 * 3600


def start_worker_tasks(worker: Any) -> None:
    """In each worker once the app is built: keep it out of the GC's way, start pruning."""
    app = worker.wsgi
    gc.collect()
    gc.freeze()
    socketio = app.extensions["socketio"]
    socketio.start_background_task(_prune_forever, app)
    if hasattr(app.extensions["tictactoe"].store, "full_check"):  # SQLite
        socketio.start_background_task(_check_forever, app)
    if hasattr(app.extensions["presence"], "renew"):
        socketio.start_background_task(_renew_presence_forever, app)
    if app.config["REDIS_URL"]:  # seen by a restore on any host sharing this Redis
        from webapp.server.store.agreement import fingerprints
        from webapp.server.store.redis.client import connect
        from webapp.server.store.running import Heartbeat

        keys = fingerprints(app.config, app.extensions["signing"])  # checked by hosts to come
        heartbeat = Heartbeat(connect(app.config["REDIS_URL"]), about={"keys": keys})
        app.extensions["heartbeat"] = heartbeat
        socketio.start_background_task(heartbeat.forever, socketio.sleep)


def end_worker_tasks(worker: Any) -> None:
    """In a worker that stops: take its heartbeat out of Redis, so a restore may run."""
    heartbeat = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("heartbeat")
    if heartbeat is not None:
        heartbeat.end()


def _prune_forever(app: Any) -> None:
    """Delete idle matches, rooms and history every few hours, for servers that run for
    months."""
    while True:
        app.extensions["socketio"].sleep(PRUNE_EVERY_SECONDS)
        prune(app)


def prune(app: Any) -> tuple[int, int, int]:
    """Delete what has been idle past its time: matches, rooms, players' history."""
    idle_seconds = float(app.config["IDLE_DAYS"]) * 86400
    pruned = (
        app.extensions["tictactoe"].store.prune(idle_seconds),
        app.extensions["rooms"].store.prune(),
        app.extensions["history"].prune(),
    )
    app.extensions["training"].store.prune()  # idle players' cards (Redis expires its own)
    log.info("pruned %d idle match(es), %d room(s), %d finished game(s)", *pruned)
    return pruned


def _check_forever(app: Any) -> None:
    """Run SQLite's full ``quick_check`` every ``QUICK_CHECK_MINUTES``, in a thread (the
    store's ``full_check``): damage in the middle of a table, which no query may read
    for months, fails ``/healthz`` within that time."""
    every = float(app.config["QUICK_CHECK_MINUTES"]) * 60
    while True:
        app.extensions["socketio"].sleep(every)
        try:
            app.extensions["tictactoe"].store.full_check()
        except Exception as err:  # the next turn tries again; the check says why
            log.warning("the database's full check failed: %s: %s", type(err).__name__, err)


def _renew_presence_forever(app: Any) -> None:
    """Keep this worker's open sockets counted in Redis (they expire if it dies)."""
    from webapp.server.limits.presence import TTL_SECONDS

    while True:
        app.extensions["socketio"].sleep(TTL_SECONDS / 3)
        try:
            app.extensions["presence"].renew()
        except Exception as err:  # Redis away: try again next time
            log.warning("could not renew the socket counts in Redis: %s", err)
