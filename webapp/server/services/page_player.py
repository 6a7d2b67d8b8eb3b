"""Which player a page is for: a token the server gives each socket as it connects (the
``player`` push), which its page names again on every reconnect and sends with its
forms, so that a tab opened before "Delete everything" learns that its player was
deleted, whatever cookie the browser holds by then (none, or a new player's). The
token is not in the page itself, which stays the same for everyone (pages/static_files.py).

The token is the player id and its HMAC under the app's secret key (read with any key
the app still accepts); it is made for this one purpose, so it can never stand for a
cookie. It only ever answers "was this page's player deleted?": nothing acts as the
player it names.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

PURPOSE = b"tictactoe page player:"
LONGEST = 200  # a player id is 24 characters; a longer token is not one of ours


def _mac(key: object, player: str) -> str:
    secret = key if isinstance(key, bytes) else str(key).encode()
    return hmac.new(secret, PURPOSE + player.encode(), hashlib.sha256).hexdigest()


def page_token(config: Mapping[str, Any], player: str | None) -> str:
    """The token of a page made for ``player`` ("" for none)."""
    return "" if player is None else f"{player}.{_mac(config['SECRET_KEY'], player)}"


def page_player(config: Mapping[str, Any], token: object) -> str | None:
    """The player a page's ``token`` names; None for no token, or one not signed here."""
    if not isinstance(token, str) or len(token) > LONGEST or "." not in token:
        return None
    player, mac = token.rsplit(".", 1)
    keys = [config["SECRET_KEY"], *(config.get("SECRET_KEY_FALLBACKS") or [])]
    signed = any(hmac.compare_digest(mac, _mac(key, player)) for key in keys)
    return player if signed and player else None
