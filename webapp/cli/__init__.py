"""The ``tictactoe`` console command and the terminal game."""

from .main import main

__all__ = ["main"]
