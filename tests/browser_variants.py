"""What the browser tests of rooms beyond 3x3 share: choosing the rules, opening a room
on them, and playing it in step as two people would."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

VERSION = re.compile(r"^\d+$")
YOU_PLAY = re.compile(r"You play (X|O|first|second)$")


def boards(page: Page) -> Locator:
    """The room's board element: one grid, or the group of several."""
    return page.locator("#board")


def play(page: Page, name: str) -> None:
    """Click the empty cell called ``name`` and wait until it holds its mark."""
    page.get_by_role("button", name=f"{name}, empty", exact=True).click()
    expect(page.get_by_role("button", name=re.compile(f"^{name}, [XO]"))).to_have_count(1)


def choose_and_open(page: Page, base: str, variant: str, button: str) -> None:
    """From the home page, choose the rules for a game with a person, and open one."""
    page.goto(base + "/")
    page.get_by_role("button", name="Play a friend", exact=True).click()
    choice = page.get_by_role("radio", name=re.compile(f"^{variant} "))
    choice.check()
    expect(choice).to_be_checked()
    page.get_by_role("button", name=button, exact=True).click()
    expect(boards(page)).to_have_attribute("data-version", VERSION)
    expect(page.locator("#room-rules")).to_contain_text(f"Rules: {variant} · ")


def in_step(*pages: Page) -> None:
    """Wait until every page shows the newest snapshot any of them shows."""
    newest = max(int(boards(page).get_attribute("data-version") or "0") for page in pages)
    for page in pages:
        expect(boards(page)).to_have_attribute("data-version", str(newest))


def mark_of(page: Page) -> str:
    """The mark this player has in the current game (in Notakto: first or second)."""
    meta = page.locator("#game-meta")
    expect(meta).to_have_text(YOU_PLAY)
    found = YOU_PLAY.search(meta.inner_text())
    assert found
    return found[1]
