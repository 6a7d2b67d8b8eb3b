"""How a setting's text becomes its value: the parsers of config.py's table.

Each raises ValueError with the range it expects; config.py names the variable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Parser = Callable[[str], Any]


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
