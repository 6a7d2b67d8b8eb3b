"""The core's one error type, below every module of the rules (board.py re-exports it)."""

from __future__ import annotations


class RuleError(ValueError):
    """A position or move that breaks the rules; ``code`` is stable for clients."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
