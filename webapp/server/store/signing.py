"""The server's Ed25519 key that signs finished games' records, and the public keys it
publishes (docs/fairness.md).

The private key comes from ``TICTACTOE_SIGNING_KEY`` (the same on every host), or is
made once in the data dir (``signing_key``, mode 0600) before the workers start, as the
secret key is. Earlier keys' public halves, listed in ``TICTACTOE_SIGNING_KEY_FALLBACKS``,
stay published, so that records signed before a rotation still verify.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from webapp.game.signed import Data, Opened, envelope, key_id
from webapp.game.verification import Mismatch
from webapp.server.store import datadir
from webapp.server.store.datadir import DataDirError

KEY_FILE = "signing_key"
KEYS_KIND = "tictactoe-hp-keys"
KEYS_PATH = "/.well-known/tictactoe-keys.json"
ALGORITHM = "Ed25519"
HEX_KEY = re.compile(r"[0-9a-f]{64}")
SIGNATURES_KEPT = 1024  # the newest records signed, whose state is shown again signed


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def parse_key(text: str, what: str) -> bytes:
    """A key's 32 bytes from its 64 hex digits; ``ValueError`` naming ``what`` if not."""
    cleaned = text.strip().lower()
    if not HEX_KEY.fullmatch(cleaned):
        raise ValueError(f"{what} must be 64 hex digits (32 bytes)")
    return bytes.fromhex(cleaned)


class Signer:
    """Signs records with the current key; knows every public key it publishes."""

    def __init__(self, private: bytes, fallbacks: tuple[bytes, ...] = ()) -> None:
        self.private = Ed25519PrivateKey.from_private_bytes(private)
        self.public = _raw(self.private.public_key())
        self.key = key_id(self.public)
        earlier = [key for key in fallbacks if key != self.public]
        self.keys: dict[str, bytes] = {self.key: self.public}
        self.keys.update((key_id(key), key) for key in earlier)
        # Ed25519 signs the same bytes the same way: a finished game's state, sent again
        # on each reconnect, reuses the signature its end made (history keeps its own).
        self._signature = functools.lru_cache(maxsize=SIGNATURES_KEPT)(self.private.sign)

    def sign(self, record: Data) -> Data:
        """``record`` in its signed envelope: its JSON bytes and their signature."""
        payload = orjson.dumps(record)  # compact JSON in UTF-8, as json.dumps would make it
        return envelope(payload, self.key, self._signature(payload))

    def published(self) -> Data:
        """The document served at ``KEYS_PATH``: every key, the current one first."""
        keys = [
            {"id": name, "algorithm": ALGORITHM, "public_key": raw.hex(), "current": n == 0}
            for n, (name, raw) in enumerate(self.keys.items())
        ]
        return {"kind": KEYS_KIND, "format": 1, "keys": keys}


def signer(config: Mapping[str, Any], data_dir: Path, *, create: bool = True) -> Signer:
    """The signer the settings ask for: their key, else the data dir's (made if none,
    unless not ``create``: then a missing one is a ``DataDirError``)."""
    path = data_dir / KEY_FILE
    if not (config["SIGNING_KEY"] or create or path.exists()):
        raise DataDirError(f"no {KEY_FILE} in {data_dir}: the server makes it when it first starts")
    text = config["SIGNING_KEY"] or signing_key(data_dir)
    fallbacks = [item for item in str(config["SIGNING_KEY_FALLBACKS"] or "").split(",") if item]
    return Signer(
        parse_key(text, "TICTACTOE_SIGNING_KEY"),
        tuple(parse_key(item, "each of TICTACTOE_SIGNING_KEY_FALLBACKS") for item in fallbacks),
    )


def published_keys(document: object) -> dict[str, bytes]:
    """The public keys of a keys document (as ``Signer.published`` makes), by id;
    ``ValueError`` if it is not one."""
    if not isinstance(document, dict) or document.get("kind") != KEYS_KIND:
        raise ValueError(f"not a keys document (kind {KEYS_KIND!r})")
    found = {}
    for entry in document.get("keys") or []:
        raw = parse_key(str(entry.get("public_key", "")), "a public key")
        if entry.get("algorithm") != ALGORITHM or entry.get("id") != key_id(raw):
            raise ValueError(f"the key {entry.get('id')!r} is not an {ALGORITHM} key of that id")
        found[key_id(raw)] = raw
    if not found:
        raise ValueError("the keys document lists no key")
    return found


def check_signature(keys: Mapping[str, bytes], signed: Opened) -> str:
    """The id of the key in ``keys`` whose signature ``signed`` carries; ``Mismatch`` if
    it names another key or its signature does not match its bytes."""
    public = keys.get(signed.key)
    if public is None:
        known = ", ".join(sorted(keys))
        raise Mismatch(
            f"signed by key {signed.key}, which is not one of the public keys at hand ({known})"
        )
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signed.signature, signed.payload)
    except InvalidSignature:
        raise Mismatch(
            f"the signature does not match the record's bytes (key {signed.key})"
        ) from None
    return signed.key


# --- the key file in the data dir ----------------------------------------------------------


def signing_key(data_dir: Path) -> str:
    """The private key kept in the data dir, created once (mode 0600) if there is none yet."""
    path = data_dir / KEY_FILE
    if not path.exists():
        datadir.create_key_file(path)
    return read_key(path)


def read_key(path: Path) -> str:
    """The key in ``path`` as hex; a damaged file is an error, never replaced silently."""
    try:
        text = path.read_text().strip()
        parse_key(text, "the signing key")
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise DataDirError(
            f"the signing key file {path} cannot be used ({err}): restore it from a backup,"
            " or delete it to create a new one (and list the old public key in"
            " TICTACTOE_SIGNING_KEY_FALLBACKS)"
        ) from None
    return text
