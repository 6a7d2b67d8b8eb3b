"""What browser tests of the AI page beyond 3x3 share: the board of one grid or
several, the player's playable cells by name, a cell clicked, a match started on a
variant from the rules dialog."""

from __future__ import annotations

import re

from browser import open_rules, press_start
from playwright.sync_api import Locator, Page, expect


def board(page: Page) -> Locator:
    """The AI page's board element: one grid, or the group of several."""
    return page.locator("#board")


def settle(page: Page) -> None:
    """Wait until the player is to move or the game is over."""
    expect(board(page)).to_have_attribute("data-turn", re.compile(r"^(human|none)$"))


def empty_names(page: Page) -> list[str]:
    """The names of the empty cells a player may play, in reading order."""
    labels = page.locator("#board [data-cell]").evaluate_all(
        "cells => cells.filter(c => c.getAttribute('aria-disabled') === 'false')"
        ".map(c => c.getAttribute('aria-label'))"
    )
    return [label.split(",")[0] for label in labels]


def click_cell(page: Page, name: str) -> None:
    """Play the empty cell called ``name`` by a click; wait for the answer and the turn."""
    before = board(page).get_attribute("data-version") or ""
    page.get_by_role("button", name=f"{name}, empty", exact=True).click()
    expect(board(page)).not_to_have_attribute("data-version", before)
    settle(page)


def choose(page: Page, variant: str, mode: str, **numbers: str) -> None:
    """Start a new match on ``variant`` in ``mode`` from the rules dialog, the player first
    in a fixed mode."""
    dialog = open_rules(page)
    game = dialog.get_by_role("group", name="Game")
    game.get_by_role("radio", name=re.compile(f"^{variant} ")).check()
    dialog.get_by_role("radio", name=mode, exact=True).check()
    for label, number in numbers.items():
        dialog.get_by_role("spinbutton", name=label).fill(number)
    if mode != "Adaptive":
        dialog.get_by_role("group", name="Who goes first").get_by_role("radio", name="Me").check()
    expect(dialog.locator("#settings-summary")).to_contain_text(f"{variant} · {mode}")
    press_start(page)
    expect(page.locator("#game-meta")).to_contain_text("Game 1 · ")
    settle(page)
