"""Commands about the server and its data: serve, backup, restore."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the web server under gunicorn's arbiter."""
    from webapp.server.process.serve import serve

    return serve(host=args.host, port=args.port, workers=args.workers)


def _data_dir(args: argparse.Namespace) -> tuple[Path, bool]:
    """The data dir (``--data-dir``, else the server's setting or default) and whether
    the matches are in Redis rather than in it."""
    from webapp.server import settings as config
    from webapp.server.store import datadir

    settings = config.load(os.environ)
    chosen = args.data_dir or settings["DATA_DIR"] or datadir.default(os.environ)
    return Path(chosen), bool(settings["REDIS_URL"])


def cmd_backup(args: argparse.Namespace) -> int:
    from webapp.server import settings as config
    from webapp.server.store.backup import BackupError, backup

    data_dir, in_redis = _data_dir(args)
    redis_url = config.load(os.environ)["REDIS_URL"] if in_redis else None
    try:
        written = backup(data_dir, Path(args.target), redis_url=redis_url)
    except (BackupError, OSError) as err:
        print(f"tictactoe backup: error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from webapp.server import settings as config
    from webapp.server.store.backup import BackupError
    from webapp.server.store.restore import restore

    data_dir, in_redis = _data_dir(args)
    redis_url = config.load(os.environ)["REDIS_URL"] if in_redis else None
    try:
        done = restore(
            Path(args.source),
            data_dir,
            redis_url=redis_url,
            say=lambda text: print(text, flush=True),
        )
    except (BackupError, OSError) as err:
        print(f"tictactoe restore: error: {err}", file=sys.stderr)
        return 2
    for beat in done.ignored:
        print(
            f"ignored the heartbeat in Redis of pid {beat['pid']} on {beat['host']}: it has stopped"
        )
    if done.reseeded_in_redis is not None:
        print(f"gave the {done.reseeded_in_redis} matches in Redis fresh seeds")
    for path in done.aside:
        print(f"set aside {path}")
    print(f"restored {args.source} into {data_dir}: start the server again")
    return 0


def add_server_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``serve``, ``backup`` and ``restore`` commands."""
    serve = sub.add_parser("serve", help="run the web server")
    serve.add_argument("--host", default=None, help="address to listen on (env TICTACTOE_HOST)")
    serve.add_argument(
        "--port", type=int, default=None, help="port to listen on (env TICTACTOE_PORT)"
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server processes sharing the port (env TICTACTOE_WORKERS; more than 1 needs"
        " TICTACTOE_REDIS_URL)",
    )
    serve.set_defaults(func=cmd_serve)

    backup = sub.add_parser(
        "backup",
        help="copy the matches, the secret key and the signing key into a folder, server running",
    )
    backup.add_argument("target", help="folder to write (created 0700; files 0600)")
    backup.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    backup.set_defaults(func=cmd_backup)

    restore = sub.add_parser("restore", help="put a backup into the data dir of a stopped server")
    restore.add_argument("source", help="a folder written by tictactoe backup")
    restore.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    restore.set_defaults(func=cmd_restore)
