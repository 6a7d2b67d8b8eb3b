"""The data dir: made private and checked writable, and the secret key kept in it.

The process manager calls ``prepare`` once before any worker starts, so every worker
reads the same key; the key file is written whole or not at all.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

KEY_FILE = "secret_key"
KEY_MIN_LENGTH = 32


class DataDirError(RuntimeError):
    """The data dir or its key file cannot be used; the message says what to do."""


def prepare(data_dir: Path) -> None:
    """Create the data dir if needed and prove that this process can write in it."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.TemporaryFile(dir=data_dir):
            pass
    except OSError as err:
        raise DataDirError(
            f"the data dir {data_dir} is not writable ({err.strerror}): "
            "set TICTACTOE_DATA_DIR to a directory this user owns"
        ) from None


def secret_key(data_dir: Path) -> str:
    """The key kept in the data dir, created once (mode 0600) if there is none yet."""
    path = data_dir / KEY_FILE
    if not path.exists():
        _create_key(path)
    return read_key(path)


def read_key(path: Path) -> str:
    """The key in ``path``; an empty or short file is an error, never replaced silently."""
    try:
        key = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as err:
        raise DataDirError(f"cannot read the secret key file {path}: {err}") from None
    if len(key) < KEY_MIN_LENGTH:
        raise DataDirError(
            f"the secret key file {path} is empty or damaged ({len(key)} characters, needs"
            f" {KEY_MIN_LENGTH}): restore it from a backup, or delete it to create a new one"
            " (which signs every player out of their match)"
        )
    return key


def _create_key(path: Path) -> None:
    # Written in full to a private temporary file, then linked into place: a reader
    # never sees a half-written key, and of two racing creators the first one wins.
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
