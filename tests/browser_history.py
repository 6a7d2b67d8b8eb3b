"""What the history tests share: playing a game with a mistake in it, and opening the
newest game's replay."""

from __future__ import annotations

import re

from browser import board, marks, open_game, play, settle, start_match
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


# X a1, O b2, X b1, O c1 (both forced for a perfect O), then X c3 leaves a3 open: O wins.
OPENING = (0, 1)
SLIP = 8
BEFORE_SLIP = "XXO.O...."  # the practised position: only a3 keeps the draw
VERDICT = "Mistake: c3 loses in 1; a3 keeps the draw."
LESSON = "Here you played a mistake: c3 loses in 1. Try another move."


def lose_by_leaving_the_threat(page: Page, url: str) -> None:
    """An Impossible game, the player first, lost at the fifth move (the slip)."""
    open_game(page, url)
    start_match(page, "Impossible", first="Me")
    for cell in OPENING:
        play(page, cell)
    assert marks(page) == BEFORE_SLIP, "the perfect AI answers a1 with b2 and b1 with c1"
    play(page, SLIP)
    expect(board(page)).to_have_attribute("data-status", "ai_won")
