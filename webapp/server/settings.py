"""Every setting of the server in one table: name, environment variable, default, parser, doc.

``SETTINGS`` is the one table, in three groups: serving (where to listen, the processes,
the proxy in front, the time a client has for each step), storage (where data lives, the
keys, how long and how much is kept), and the game's and the limits'. Each row is a
``Setting`` whose parser turns the variable's text into its value, raising ValueError
with the range it expects. ``load(environ)`` reads the table from the environment; the
app factory lays the test config over it. README's configuration table is checked
against it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Parser = Callable[[str], Any]


@dataclass(frozen=True)
class Setting:
    """One setting: its key in ``app.config``, where it is read from and what it means."""

    name: str
    default: Any
    parse: Parser
    doc: str
    aliases: tuple[str, ...] = ()
    internal: bool = False  # set only by code (tests, the process manager)

    @property
    def env(self) -> str | None:
        """Its environment variable: ``TICTACTOE_`` and its name."""
        return None if self.internal else f"TICTACTOE_{self.name}"

    @property
    def variables(self) -> tuple[str, ...]:
        """Environment variables read for this setting, first found wins."""
        return ((self.env,) if self.env else ()) + self.aliases


def boolean(text: str) -> bool:
    """1/0, true/false, yes/no or on/off."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("expected 1/0, true/false, yes/no or on/off")


def integer(low: int, high: int) -> Parser:
    """An integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise ValueError(f"expected an integer from {low} to {high}")
        return value

    return parse


def number(low: float, high: float) -> Parser:
    """A number from ``low`` to ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            value = float("nan")
        if not low <= value <= high:  # also refuses NaN
            raise ValueError(f"expected a number from {low:g} to {high:g}")
        return value

    return parse


def text(text: str) -> str:
    """Any text, without surrounding spaces."""
    return text.strip()


def base_path(text: str) -> str:
    """A URL path such as /tictactoe, without its last slash."""
    path = text.strip().rstrip("/")
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
    if path and (not path.startswith("/") or "//" in path or not set(path) <= allowed):
        raise ValueError("expected a path such as /tictactoe (letters, digits, - . _ ~ /)")
    return path


# The serving settings.
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
        "on stop or reload, how long requests being answered get to finish",
    ),
    Setting(
        "WORKER_TIMEOUT",
        30,
        integer(2, 3600),
        "a process that stops answering its manager for this long is replaced",
    ),
    Setting("ASYNC_MODE", "threading", text, "Flask-SocketIO's async mode", internal=True),
)

# The storage settings.
STORAGE: tuple[Setting, ...] = (
    Setting(
        "DATA_DIR",
        None,
        text,
        "the SQLite database and the secret key (unset: the service's `StateDirectory=`,"
        " else `instance/` in a checkout, else `$XDG_DATA_HOME/tictactoe`)",
    ),
    Setting(
        "SECRET_KEY",
        None,
        text,
        "signs session cookies (unset: created once in the data dir, mode 0600)",
    ),
    Setting(
        "SECRET_KEY_FALLBACKS",
        None,
        text,
        "comma-separated earlier keys whose cookies stay valid after a key change",
    ),
    Setting(
        "SIGNING_KEY",
        None,
        text,
        "64 hex digits: the Ed25519 private key that signs finished games' records, the same"
        " on every host (unset: created once in the data dir, mode 0600)",
    ),
    Setting(
        "SIGNING_KEY_FALLBACKS",
        None,
        text,
        "comma-separated public keys (64 hex digits, as `tictactoe keys` prints them) of"
        " earlier signing keys, still published so that their records verify",
    ),
    Setting(
        "IDLE_DAYS", 30.0, number(0.001, 36_500), "matches untouched for this long are deleted"
    ),
    Setting(
        "REDIS_URL",
        None,
        text,
        "e.g. `redis://127.0.0.1:6379/0`: matches and messages in Redis, for several "
        "processes or hosts",
    ),
    Setting(
        "MAX_MATCHES",
        100_000,
        integer(0, 1_000_000_000),
        "stored matches at most; a new one past it deletes the longest idle; 0 for no cap",
    ),
    Setting(
        "HISTORY_PER_PLAYER",
        500,
        integer(1, 100_000),
        "finished games kept for each player, newest first",
    ),
    Setting(
        "MAX_HISTORY_GAMES",
        200_000,
        integer(1, 1_000_000_000),
        "finished games kept for all players together; past it the oldest games of the"
        " players with the most stored are deleted first (the longest idle first among"
        " equals), never their lifetime figures",
    ),
    Setting(
        "HISTORY_FLOOR",
        20,
        integer(0, 100_000),
        "finished games each player keeps whatever `MAX_HISTORY_GAMES` says (their newest);"
        " when every player is down to it, the cap waits for idle players to expire",
    ),
    Setting(
        "MAX_FORGOTTEN_PLAYERS",
        100_000,
        integer(1, 1_000_000_000),
        "deleted players' ids kept (for `IDLE_DAYS`) so that an old tab or cookie cannot act"
        " as them again; past it the oldest are dropped",
    ),
    Setting(
        "ROOM_IDLE_HOURS",
        24.0,
        number(0.01, 24 * 365),
        "a room with a friend is deleted this long after its last change",
    ),
    Setting(
        "MAX_ROOMS",
        10_000,
        integer(1, 1_000_000_000),
        "open rooms (with a friend or on one device) for all players together; past it a"
        " new one is refused (`rooms_full`)",
    ),
    Setting(
        "MIN_FREE_MB",
        100,
        integer(0, 1 << 40),
        "`/healthz` fails when the data dir's disk has less free space than this",
    ),
    Setting(
        "QUICK_CHECK_MINUTES",
        10.0,
        number(0.01, 7 * 24 * 60),
        "how often SQLite's full `quick_check` of the database runs in the background (in a"
        " thread, not holding up players); damage it finds fails `/healthz`",
    ),
    Setting(
        "MAX_DATA_MB",
        1024,
        integer(1, 1 << 30),
        "the SQLite database's size at most; past it a write that would grow it is refused"
        " (`storage_full`); with Redis, Redis's own `maxmemory` is the ceiling",
    ),
)


class SettingError(ValueError):
    """A setting's value cannot be used; the message names the variable and the range."""


# The game's settings and the limits on what a connection, an address or a player may do.
GAME_AND_LIMITS: tuple[Setting, ...] = (
    Setting(
        "AI_DELAY_MS",
        350,
        integer(0, 60_000),
        "the AI's thinking pause before its move is pushed; 0 for none",
    ),
    Setting(
        "RATE_PER_SECOND",
        20.0,
        number(0.1, 10_000),
        "socket events a connection may send per second, on average",
    ),
    Setting("RATE_BURST", 40, integer(1, 100_000), "socket events a connection may send at once"),
    Setting(
        "RATE_PER_ADDRESS",
        100.0,
        number(0, 1_000_000),
        "socket events all connections from one client address may send per second,"
        " per process (0: no limit)",
    ),
    Setting(
        "UNJOINED_PACKETS",
        8,
        integer(1, 10_000),
        "packets a connection may send before it joins the game (it is closed past them,"
        " or after `TICTACTOE_HANDSHAKE_TIMEOUT`)",
    ),
    Setting(
        "ODDS_MS_PER_SECOND",
        100.0,
        number(1, 1_000_000),
        "milliseconds of work on odds a connection may spend per second, on average",
    ),
    Setting(
        "ODDS_BURST_MS",
        1000.0,
        number(1, 1_000_000),
        "milliseconds of work on odds a connection may spend at once",
    ),
    Setting(
        "ODDS_SHARE",
        0.25,
        number(0.01, 1),
        "the share of a process's time the odds of all its connections may take together",
    ),
    Setting(
        "ODDS_MS_PER_ADDRESS",
        200.0,
        number(0, 1_000_000),
        "milliseconds of work on odds all connections from one client address may spend per"
        " second, on average, per process, bursts as one connection's (0: no limit); a new"
        " socket gets no new budget",
    ),
    Setting(
        "PAID_AT_ONCE_PER_ADDRESS",
        2,
        integer(1, 10_000),
        "answers of odds, and of the lab, one client address may have under way at once, per"
        " process; the rest wait in line",
    ),
    Setting(
        "COOLDOWN_SECONDS",
        10.0,
        number(0, 3600),
        "a player cut off for staying over the rate waits this long to reconnect",
    ),
    Setting(
        "MAX_SOCKETS_PER_PLAYER",
        8,
        integer(1, 1000),
        "open connections (tabs) one player may have",
    ),
    Setting(
        "MAX_SOCKETS_PER_ADDRESS",
        256,
        integer(0, 1_000_000),
        "open connections from one client address, many players behind one NAT (0: no cap)",
    ),
    Setting(
        "LAB_MS_PER_SECOND",
        100.0,
        number(1, 1_000_000),
        "milliseconds of work on the lab's answers a connection may spend per second, on average",
    ),
    Setting(
        "LAB_BURST_MS",
        1000.0,
        number(1, 1_000_000),
        "milliseconds of work on the lab's answers a connection may spend at once",
    ),
    Setting(
        "LAB_MS_PER_ADDRESS",
        200.0,
        number(0, 1_000_000),
        "milliseconds of work on the lab's answers all connections from one client address"
        " may spend per second, on average, per process, bursts as one connection's"
        " (0: no limit)",
    ),
    Setting("LAB_PAGE_SIZE", 200, integer(1, 10_000), "steps of a search's trace in one lab page"),
    Setting(
        "LAB_CURSORS",
        64,
        integer(1, 100_000),
        "connections whose lab step-through is kept to go on from (others start again)",
    ),
    Setting("MAX_PAYLOAD_BYTES", 2048, integer(64, 1 << 20), "largest JSON payload of one event"),
    Setting(
        "MAX_ROOMS_PER_PLAYER", 5, integer(1, 1000), "open rooms one player may hold a seat in"
    ),
    Setting(
        "NEW_ROOMS_PER_HOUR",
        30,
        integer(0, 1_000_000),
        "new rooms (with a friend or on one device) one client address may open per clock"
        " hour (all processes together); 0 for no limit",
    ),
    Setting(
        "ROOM_NAME_CHARS",
        20,
        integer(1, 100),
        "longest name a player may give themselves in a room, in characters after NFC (`bad_name`)",
    ),
    Setting("MAX_SPECTATORS", 50, integer(0, 100_000), "connections watching one room at most"),
    Setting(
        "NEW_PLAYERS_PER_MINUTE",
        30,
        integer(0, 1_000_000),
        "new players one client address may start per minute (all processes together);"
        " 0 for no limit",
    ),
    Setting(
        "COSTLY_PER_PLAYER_MINUTE",
        20,
        integer(0, 1_000_000),
        "whole histories (`/history/games.json`, the `history` event) one player may ask for"
        " per minute (all processes together); 0 for no limit",
    ),
    Setting(
        "COSTLY_PER_ADDRESS_MINUTE",
        120,
        integer(0, 1_000_000),
        "whole histories all players from one client address may ask for per minute"
        " (all processes together); 0 for no limit",
    ),
    Setting(
        "TRAIN_PER_PLAYER_MINUTE",
        120,
        integer(0, 1_000_000),
        "the Train page's JSON requests (`/train/state.json`, `/train/answer`, `/train/solve`)"
        " one player may make per minute (all processes together); 0 for no limit",
    ),
    Setting(
        "TRAIN_PER_ADDRESS_MINUTE",
        600,
        integer(0, 1_000_000),
        "the Train page's JSON requests all players from one client address may make per"
        " minute (all processes together); 0 for no limit",
    ),
    Setting("SEED", None, integer(0, 2**63), "seeds the AI's dice (tests)"),
)
SETTINGS: tuple[Setting, ...] = SERVING + STORAGE + GAME_AND_LIMITS
DEFAULTS: dict[str, Any] = {setting.name: setting.default for setting in SETTINGS}


def load(environ: Mapping[str, str]) -> dict[str, Any]:
    """Every setting: its default, or the value of its environment variable."""
    values = dict(DEFAULTS)
    for setting in SETTINGS:
        for variable in setting.variables:
            if environ.get(variable):
                values[setting.name] = _parse(setting, variable, environ[variable])
                break
    return values


def _parse(setting: Setting, variable: str, text: str) -> Any:
    try:
        return setting.parse(text)
    except ValueError as err:
        raise SettingError(f"{variable}={text!r} is not valid: {err}") from None
