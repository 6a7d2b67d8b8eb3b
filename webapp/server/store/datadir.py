"""The data dir: where it is, made private and checked writable, and the secret key in it.

The process manager calls ``prepare`` once before any worker starts, so every worker
reads the same key; the key file is written whole or not at all. Everything the server
creates in it is private to its user (the dir 0700, files 0600), whatever the umask.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path

KEY_FILE = "secret_key"
KEY_MIN_LENGTH = 32
CHECKOUT = Path(__file__).resolve().parents[3]  # the folder holding webapp/, in a checkout
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


class DataDirError(RuntimeError):
    """The data dir or its key file cannot be used; the message says what to do."""


def default(environ: Mapping[str, str]) -> Path:
    """The data dir when ``TICTACTOE_DATA_DIR`` is not set.

    A systemd service's state directory (``StateDirectory=``); else ``instance/`` in a
    checkout; else ``$XDG_DATA_HOME/tictactoe`` (``~/.local/share/tictactoe``).
    """
    state = environ.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        return Path(state)
    if (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "webapp").is_dir():
        return CHECKOUT / "instance"
    data_home = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "tictactoe"


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (SQLite's -wal and -shm
    files then take the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))


def prepare(data_dir: Path) -> None:
    """Create the data dir if needed (0700) and prove that this process can write in it."""
    try:
        if not data_dir.is_dir():
            data_dir.mkdir(parents=True, exist_ok=True)
            data_dir.chmod(PRIVATE_DIR)  # mkdir's mode is cut by the umask, never widened
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
        create_key_file(path)
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


def create_key_file(path: Path) -> None:
    """Write a new random key (32 bytes as hex) to ``path`` unless one is there already."""
    # Written in full to a private temporary file, then linked into place: a reader
    # never sees a half-written key, and of two racing creators the first one wins.
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
