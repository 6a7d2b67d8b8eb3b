"""The serving settings of config.py's table: where to listen, the processes, the proxy
in front, the time a client has for each step.

README's configuration table lists them with the rest (config.py's ``SETTINGS``).
"""

from __future__ import annotations

from .values import Setting, base_path, boolean, integer, number, text

SERVING: tuple[Setting, ...] = (
    Setting("HOST", "127.0.0.1", text, "address to listen on", ("HOST",)),
    Setting("PORT", 5000, integer(1, 65535), "port to listen on", ("PORT",)),
    Setting(
        "WORKERS",
        1,
        integer(1, 64),
        "server processes sharing the port (more than 1 needs `TICTACTOE_REDIS_URL`)",
    ),
    Setting(
        "BASE_PATH",
        None,
        base_path,
        "serve the site under this path, e.g. `/tictactoe`, as the proxy forwards it"
        " (unset: at the root)",
    ),
    Setting(
        "ACCESS_LOG",
        True,
        boolean,
        "one line per request on stderr: client address, time, request, status, bytes,"
        " duration, browser (`0`: none)",
    ),
    Setting(
        "ALLOWED_ORIGINS",
        None,
        text,
        "comma-separated origins allowed to open the websocket (unset: same origin only)",
    ),
    Setting(
        "TRUST_PROXY",
        False,
        boolean,
        "`1` behind one reverse proxy: honour its `X-Forwarded-*` headers",
    ),
    Setting(
        "PUBLIC_HOSTS",
        None,
        text,
        "comma-separated host names the site is served as: the only ones taken from the"
        " proxy's `X-Forwarded-Host`",
    ),
    Setting(
        "POLLING",
        False,
        boolean,
        "`1` lets browsers fall back to long-polling (needs sticky sessions)",
    ),
    Setting(
        "HEADER_TIMEOUT",
        10.0,
        number(1, 300),
        "seconds a client has to send a request's head (line and headers)",
    ),
    Setting(
        "HANDSHAKE_TIMEOUT",
        10.0,
        number(1, 300),
        "seconds a new connection has to join the game (Socket.IO connect) after it opens",
    ),
    Setting(
        "WORKER_CONNECTIONS",
        10_000,
        integer(10, 1_000_000),
        "connections one process holds at most",
    ),
    Setting(
        "STOP_SECONDS",
        3,
        integer(1, 600),
        "on stop or reload, how long open connections get to finish",
    ),
    Setting(
        "WORKER_TIMEOUT",
        30,
        integer(2, 3600),
        "a process that stops answering its manager for this long is replaced",
    ),
    Setting("ASYNC_MODE", "threading", text, "Flask-SocketIO's async mode", internal=True),
)
