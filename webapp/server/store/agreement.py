"""Hosts sharing one Redis must agree on their keys: the secret key that signs players'
cookies, and the signing key that signs finished games' records (docs/hosting.md,
"Several hosts").

Each worker's heartbeat in Redis (store/running.py) carries fingerprints of its keys, never a
key: an HMAC-SHA256 of a fixed text under each secret key it accepts, and the SHA-256 of
each public key it publishes. Before a host starts, it reads the heartbeats of the
servers that run on that Redis, and refuses to start, naming the setting, when one uses
a key this host does not know and does not know this host's. A rotation stays possible:
a key listed in the ``_FALLBACKS`` setting of either side is known. The fingerprints
leave with their heartbeats: a host that stops takes them out, one that died is
forgotten when its heartbeat expires (or at once, if it was on this host).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from webapp.server.store.signing import Signer

SECRET_LABEL = b"tictactoe-hp: the secret key's fingerprint"
FINGERPRINT_HEX = 32  # 128 bits: enough to tell keys apart, too short to matter as a hash
# (current key, every key accepted, the setting, what it signs, what a rotation lists)
KEYS = (
    ("secret_key", "secret_keys", "TICTACTOE_SECRET_KEY", "players' cookies", "the other key"),
    (
        "signing_key",
        "signing_keys",
        "TICTACTOE_SIGNING_KEY",
        "finished games' records",
        "the other key's public half, as `tictactoe keys` prints it,",
    ),
)


class Disagreement(ValueError):
    """Another server on the same Redis uses a key this one does not know; the message
    names the setting."""


def secret_fingerprint(key: str) -> str:
    """A secret key's fingerprint: an HMAC under the key, which tells nothing of it."""
    return hmac.new(key.encode(), SECRET_LABEL, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX]


def public_fingerprint(public: bytes) -> str:
    """A signing key's fingerprint: the SHA-256 of its public half."""
    return hashlib.sha256(public).hexdigest()[:FINGERPRINT_HEX]


def fingerprints(config: Mapping[str, Any], signer: Signer) -> dict[str, Any]:
    """The fingerprints of this server's keys: the current ones and every one accepted."""
    fallbacks = config["SECRET_KEY_FALLBACKS"] or []
    if isinstance(fallbacks, str):  # as set, before the app splits it
        fallbacks = [item.strip() for item in fallbacks.split(",") if item.strip()]
    secrets = [str(config["SECRET_KEY"]), *fallbacks]
    return {
        "secret_key": secret_fingerprint(secrets[0]),
        "secret_keys": [secret_fingerprint(key) for key in secrets],
        "signing_key": public_fingerprint(signer.public),
        "signing_keys": [public_fingerprint(key) for key in signer.keys.values()],
    }


def check(ours: Mapping[str, Any], beats: list[dict[str, Any]]) -> None:
    """Raise Disagreement if a heartbeat shows a key that ``ours`` does not know and that
    does not know ours."""
    for beat in beats:
        theirs = beat.get("keys")
        if not isinstance(theirs, dict):
            continue  # a release that did not say
        for current, accepted, setting, signs, listed in KEYS:
            if theirs.get(current) in ours[accepted] or ours[current] in theirs.get(accepted, []):
                continue
            raise Disagreement(
                f"the server {beat.get('host')} (pid {beat.get('pid')}) on this Redis signs"
                f" {signs} with another {setting}: set the same {setting} on every host (while"
                f" rotating it, list {listed} in {setting}_FALLBACKS)"
            )
