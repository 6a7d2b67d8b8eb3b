"""What the history tests share: playing a game with a mistake in it, and opening the
newest game's replay."""

from __future__ import annotations

import re

from browser import marks, play, settle
from playwright.sync_api import Page, expect

from webapp.game import engine
from webapp.game.board import Board
from webapp.game.review import verdict


def slip(cells: str) -> int | None:
    """A move that throws away the mover's result (a mistake or a blunder), if any."""
    analysis = engine.analyse(Board(cells))
    for cell, value in analysis.moves.items():
        if verdict(analysis.value, value) in ("mistake", "blunder"):
            return cell
    return None


def play_with_a_mistake(page: Page) -> int:
    """Play the game out, slipping at the first chance; the ply of the slip."""
    slipped = 0
    while settle(page) == "human":
        cells = marks(page)
        cell = None if slipped else slip(cells)
        if cell is not None:
            slipped = 10 - cells.count(".")
        play(page, cells.index(".") if cell is None else cell)
    return slipped


def open_newest_replay(page: Page, url: str) -> None:
    """Go to History and open the newest game's replay."""
    page.goto(url + "/history")
    rows = page.locator("#games-rows tr")
    expect(rows.first).to_be_visible()
    rows.first.get_by_role("button", name=re.compile("^Replay the game of")).click()
    expect(page.get_by_role("grid", name="Replay board")).to_be_visible()
