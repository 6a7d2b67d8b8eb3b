"""``tictactoe verify``: a game record's signature, completeness and dice; ``tictactoe keys``:
the public keys that sign records."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

from ..game.signed import check_complete, is_signed, opened
from ..game.variant import CLASSIC
from ..game.verification import Mismatch, Verified, verify

MAX_KEYS_BYTES = 1 << 20
VERIFY_HELP = """\
Check a game record downloaded from the page (or from History).

A signed record is checked in this order: its Ed25519 signature against the server's
public keys (--keys, else this server's own), that it is a whole finished game (every
move, replaying to the recorded end, the server seed revealed only once it ended),
then its dice: the seed against its commitment, every roll and pick against the
stream, the rules and the engine.

What a verified, signed record proves: the server holding that key issued exactly this
record: its moves, its mode and rules, the AI's HP and every number of its dice. A
practice game's record says so ("practice"), and verify prints it with the position the
game was set up from: its result is that of the practice, not of a game of a match.

What it does not prove: that the server did not try many seeds before committing to
one (beyond what the commit-reveal rules out: the seed was fixed before your client
seed and your moves); that the key was never leaked or stolen; who the player was.

An unsigned record (from 0.4.0, or with its signature stripped) can still have its
dice checked, but nothing shows which server issued it, or that it was not made up.

Exit status: 0 verified and signed; 1 not verified (the reason is printed); 2 the
record or the keys cannot be read; 3 the dice verified but the signature was not
checked (an unsigned record, or no public key at hand).
"""
KEYS_HELP = """\
Print the public keys of this server (from TICTACTOE_SIGNING_KEY or the data dir, and
TICTACTOE_SIGNING_KEY_FALLBACKS): the same list it serves at
/.well-known/tictactoe-keys.json. The current key comes first.
"""


class KeysUnavailable(RuntimeError):
    """No public keys could be had; the message says where they were looked for."""


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a record's signature, completeness and dice (VERIFY_HELP)."""
    try:
        document = json.loads(Path(args.record).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        print(f"tictactoe verify: cannot read {args.record}: {err}", file=sys.stderr)
        return 2
    try:
        keys, source = _keys(args)
    except KeysUnavailable as err:
        if args.keys:
            print(f"tictactoe verify: {err}", file=sys.stderr)
            return 2
        keys, source = None, f"no --keys FILE_OR_URL given, and {err}"
    try:
        signed_by, record = _signature(document, keys)
        check_complete(record)
        found = verify(record)
    except Mismatch as err:
        print(f"not verified: {err}")
        return 1
    on = "" if found.variant == CLASSIC else f" of {found.variant.name}"
    dice = (
        f"game {found.game}{on}, {found.ai_moves} AI move(s); every move is there, the seed"
        " matches its commitment, and every roll and pick follows from the dice and the engine"
    )
    if signed_by:
        print(f"verified: signed by key {signed_by} ({source}); {dice}")
    elif is_signed(document):
        print(f"dice verified, signature NOT checked ({source}): {dice}")
    else:
        print(f"dice verified, UNSIGNED: nothing shows which server issued this record; {dice}")
    if found.practice:
        print(practice_words(found))
    return 0 if signed_by else 3


def practice_words(found: Verified) -> str:
    """What a practice game's record is, in words: not a game of a match, and where it began."""
    variant = found.variant
    marks = ("X", "X") if variant.notakto else ("X", "O")  # in Notakto both place X
    named = enumerate(found.setup)
    position = ", ".join(f"{marks[i % 2]} {variant.cell_name(c)}" for i, c in named)
    began = f"the set-up position {position}" if position else "the empty board"
    return (
        f"PRACTICE: a practice game, not a game of a match (no HP at stake), begun from {began};"
        " its status is that of the practice game alone"
    )


def _signature(document: Any, keys: dict[str, bytes] | None) -> tuple[str | None, Any]:
    """The id of the key that signed ``document`` (None if unsigned or not checked) and
    the record it holds."""
    if not is_signed(document):
        return None, document
    signed = opened(document)
    if keys is None:
        return None, signed.record
    from webapp.server.store.signing import check_signature

    return check_signature(keys, signed), signed.record


def _keys(args: argparse.Namespace) -> tuple[dict[str, bytes], str]:
    """The public keys to check with, and where they came from, in words."""
    from webapp.server.store.signing import published_keys

    if not args.keys:
        signer, data_dir = _local_signer(args)
        return dict(signer.keys), f"a key of this server, data dir {data_dir}"
    try:
        document = json.loads(_read(args.keys))
        return published_keys(document), f"a key listed in {args.keys}"
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise KeysUnavailable(f"cannot read the keys in {args.keys}: {err}") from None


def _read(source: str) -> bytes:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=10) as reply:
            return bytes(reply.read(MAX_KEYS_BYTES))
    return Path(source).read_bytes()[:MAX_KEYS_BYTES]


def _local_signer(args: argparse.Namespace) -> tuple[Any, Path]:
    """This server's signer, from its settings and data dir, never creating a key."""
    import os

    from webapp.server import settings as config
    from webapp.server.store.datadir import DataDirError
    from webapp.server.store.signing import signer

    from .server import _data_dir

    data_dir, _ = _data_dir(args)
    try:
        return signer(config.load(os.environ), data_dir, create=False), data_dir
    except (DataDirError, ValueError) as err:
        raise KeysUnavailable(f"this server has no signing key to read: {err}") from None


def cmd_keys(args: argparse.Namespace) -> int:
    """Print this server's public keys (KEYS_HELP)."""
    try:
        signer, _ = _local_signer(args)
    except KeysUnavailable as err:
        print(f"tictactoe keys: {err}", file=sys.stderr)
        return 2
    document = signer.published()
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    for key in document["keys"]:
        role = "current" if key["current"] else "earlier"
        print(f"{key['id']}  {key['public_key']}  {role}")
    return 0
