"""Tic-tac-toe against a perfect minimax AI whose strength adapts through hit points."""

__version__ = "0.1.0"
