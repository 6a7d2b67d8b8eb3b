"""A setting's row in config.py's table, and how its text becomes its value: the parsers.

Each parser raises ValueError with the range it expects; config.py names the variable.
"""

from __future__ import annotations

from collections.abc import Callable
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
