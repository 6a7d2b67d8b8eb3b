"""Memory per idle player: the game server against the bare Flask-SocketIO echo server.

Starts ``tictactoe serve`` of this checkout and bench/echo_server.py (served exactly as
the game is: same worker, same settings), then on each: ``--warm`` players connect and
stay (so that lazy imports, caches and the allocator's first arenas count as base), RSS
is read, ``--players`` more connect (each with its own cookie, its first ``state``
received; not offering compression unless ``--deflate``, so that both are served alike)
and sit idle, and RSS is read again after ``--settle`` seconds. What a player
costs on the echo is what the libraries hold for a connection (Engine.IO's session and
socket, Socket.IO's entries, the websocket's greenlets and buffers, the WSGI environ)
plus the echo's own state (about 3 KB: a random generator and a board); what the game
costs beyond it, plus that, is ours.

    .venv/bin/python bench/idle.py --players 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from players import CONNECT_ERRORS, Client, Server, new_player

ENV = {"TICTACTOE_AI_DELAY_MS": "0", "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0"}


async def connect(
    server: Server, count: int, clients: list[Client], errors: list[str], deflate: bool
) -> None:
    """``count`` new players on ``server``, 50 at a time, each kept in ``clients``."""
    queue = iter(range(count))

    async def worker() -> None:
        for _ in queue:
            client = Client(deflate=deflate)
            try:
                await new_player(client, server.port)
            except CONNECT_ERRORS as err:
                errors.append(type(err).__name__)
            clients.append(client)

    await asyncio.gather(*(worker() for _ in range(50)))


async def measure(server: Server, args: argparse.Namespace) -> dict[str, Any]:
    """RSS before and after ``--players`` idle players join ``--warm`` others."""
    clients: list[Client] = []
    errors: list[str] = []
    await connect(server, args.warm, clients, errors, args.deflate)
    await asyncio.sleep(args.settle)
    before = server.rss_kb()
    await connect(server, args.players, clients, errors, args.deflate)
    await asyncio.sleep(args.settle)
    after = server.rss_kb()
    await asyncio.gather(*(client.close() for client in clients), return_exceptions=True)
    return {
        "server": server.name,
        "players": args.players,
        "rss_before_mb": round(before / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "kb_per_player": round((after - before) / args.players, 1),
        "errors": len(errors),
    }


def main() -> int:
    """Measure the echo, then the game; print a line each and the game's own share."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2000, help="idle players (2000)")
    parser.add_argument("--warm", type=int, default=100, help="players connected first (100)")
    parser.add_argument("--settle", type=float, default=5, help="seconds before reading RSS")
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="offer permessage-deflate, as browsers do: the echo accepts it (a compressor a "
        "connection), the game refuses it; without it both are uncompressed",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if args.players < 1:
        parser.error("--players must be at least 1")
    results = {}
    for name in ("echo", "game"):
        with Server.echo(ENV) if name == "echo" else Server.game(ENV) as server:
            results[name] = asyncio.run(measure(server, args))
        print(json.dumps(results[name]), file=sys.stderr)
    own = results["game"]["kb_per_player"] - results["echo"]["kb_per_player"]
    if args.json:
        print(json.dumps({**results, "game_minus_echo_kb": round(own, 1)}, indent=2))
    else:
        for row in results.values():
            print(
                f"{row['server']:<6}{row['kb_per_player']:>8.1f} KB a player "
                f"({row['rss_before_mb']} -> {row['rss_after_mb']} MB, errors {row['errors']})"
            )
        print(f"game - echo: {own:.1f} KB a player (ours, less the echo's own state)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
