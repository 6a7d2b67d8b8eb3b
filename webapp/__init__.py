"""Tic-tac-toe against a perfect-play AI whose strength adapts through hit points."""

__version__ = "0.5.1.dev0"
