"""Every setting of the server in one table: name, environment variable, default, parser, doc.

``SETTINGS`` is the one table: the serving settings (config_serving.py), the storage
settings (config_storage.py) and, here, the game's and the limits'. ``load(environ)``
reads it from the environment; the app factory lays the test config over it. README's
configuration table is checked against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config_serving import SERVING
from .config_storage import STORAGE
from .values import Setting, integer, number


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
