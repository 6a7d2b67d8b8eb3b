"""The storage settings of config.py's table: where data lives, the keys, and how long
and how much of it is kept.

README's configuration table lists them with the rest (config.py's ``SETTINGS``).
"""

from __future__ import annotations

from .values import Setting, integer, number, text

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
