"""Each variant's opening book (game/book.py), cached in the data dir's ``books/``.

A book is built once by the engine (4x4k4's takes about 9 s of CPU) and written to
``books/<variant>.book`` in full or not at all (a private temporary file, then renamed
into place); later processes load it. A file that is not a whole book of this release
(its digest or its bytes do not check, or its depth is not the variant's) is rebuilt.
Each build and each load says one line, through ``say`` (the log by default).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...game.book import BOOK_DEPTH, Book, BookError, build_book, solver_with
from ...game.solver import Solver
from ...game.variant import Variant
from . import datadir

BOOKS_DIR = "books"
_DIGEST = b"sha256 "
log = logging.getLogger("webapp.server.books")
_loaded: dict[tuple[Path | None, str], Book] = {}
_solvers: dict[tuple[Path | None, str], Solver] = {}


def book_path(data_dir: Path, variant: Variant) -> Path:
    """Where ``variant``'s book is cached in ``data_dir``."""
    return data_dir / BOOKS_DIR / f"{variant.name}.book"


def opening_book(
    variant: Variant, data_dir: Path | None, *, say: Callable[[str], Any] = log.info
) -> Book:
    """The variant's book: from the cache when it is whole, else built (and cached when
    there is a data dir). Kept for the life of the process."""
    known = _loaded.get((data_dir, variant.name))
    if known is None:
        known = _load(variant, data_dir, say) if data_dir is not None else None
        if known is None:
            known = _build(variant, data_dir, say)
        _loaded[data_dir, variant.name] = known
    return known


def solver(
    variant: Variant, data_dir: Path | None, *, say: Callable[[str], Any] = log.info
) -> Solver:
    """The process's solver for ``variant``, which looks the first plies up in its book;
    one per variant, so that its table of proved bounds serves every later move."""
    known = _solvers.get((data_dir, variant.name))
    if known is None:
        known = _solvers[data_dir, variant.name] = solver_with(
            opening_book(variant, data_dir, say=say)
        )
    return known


def _load(variant: Variant, data_dir: Path, say: Callable[[str], Any]) -> Book | None:
    path = book_path(data_dir, variant)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        say(f"cannot read the {variant.name} opening book in {path} ({err.strerror}): rebuilding")
        return None
    try:
        book = _from_file(variant, data)
    except BookError as err:
        say(f"the cached {variant.name} opening book in {path} is damaged ({err}): rebuilding")
        return None
    say(f"loaded the {variant.name} opening book from cache, {path}")
    return book


def _from_file(variant: Variant, data: bytes) -> Book:
    """The book in a cache file: a digest line, then the book's own bytes."""
    head, _, body = data.partition(b"\n")
    if not head.startswith(_DIGEST) or head[len(_DIGEST) :].decode(errors="replace") != (
        hashlib.sha256(body).hexdigest()
    ):
        raise BookError("its digest does not match its bytes")
    book = Book.from_bytes(variant, body)
    if book.depth != BOOK_DEPTH[variant.name]:
        raise BookError(
            f"it goes {book.depth} plies deep, this release's {BOOK_DEPTH[variant.name]}"
        )
    return book


def _build(variant: Variant, data_dir: Path | None, say: Callable[[str], Any]) -> Book:
    started = time.perf_counter()
    book = build_book(variant)
    took = f"built the {variant.name} opening book in {time.perf_counter() - started:.1f} s"
    if data_dir is None:
        say(f"{took}, kept in memory (no data dir to cache it in)")
        return book
    path = book_path(data_dir, variant)
    try:
        _write(path, cache_bytes(book))
    except (OSError, datadir.DataDirError) as err:
        say(f"{took}, kept in memory: cannot cache it in {path} ({err})")
        return book
    say(f"{took}, cached in {path}")
    return book


def cache_bytes(book: Book) -> bytes:
    """A cache file's bytes: a digest line, then the book's own bytes."""
    body = book.to_bytes()
    return _DIGEST + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a private temporary file, renamed into place."""
    datadir.prepare(path.parent.parent)
    with contextlib.suppress(FileExistsError):
        path.parent.mkdir(mode=datadir.PRIVATE_DIR)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
