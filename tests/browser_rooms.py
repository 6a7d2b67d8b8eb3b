"""What the room tests share: opening rooms, and playing them as two people would."""

from __future__ import annotations

import re
from collections.abc import Callable

from browser import board, cell, cell_name, focused_cell, marks, walk_to
from playwright.sync_api import Locator, Page, expect

VERSION = re.compile(r"^\d+$")
YOU_PLAY = re.compile(r"You play ([XO])$")
RESULTS = ("You win!", "Your friend wins", "Draw", "You resigned", "Your friend resigned")
OUTCOME_FOR_FRIEND = {
    "You win!": "Your friend wins",
    "Your friend wins": "You win!",
    "Draw": "Draw",
    "You resigned": "Your friend resigned",
    "Your friend resigned": "You resigned",
}


def score(mine: int, friends: int, draws: int) -> str:
    """The score line a player reads: "You 2 \N{EN DASH} 1 Friend, 1 draw"."""
    return f"You {mine} \N{EN DASH} {friends} Friend, {draws} draw{'' if draws == 1 else 's'}"


def status(page: Page) -> Locator:
    """The status line (inside the page's live region)."""
    return page.locator("#status-text")


def invite_link(page: Page) -> Locator:
    """The read-only field holding the invite link."""
    return page.get_by_role("textbox", name="Invite link")


def open_room(page: Page, url: str) -> None:
    """Load a room's page and wait for its first snapshot."""
    page.goto(url)
    expect(board(page)).to_have_attribute("data-version", VERSION)


def start_room(page: Page, base: str) -> str:
    """Open the home page, press "Play a friend" there and under the rules, and return
    the invite link."""
    page.goto(base + "/")
    page.get_by_role("button", name="Play a friend").click()
    page.get_by_role("button", name="Play a friend").click()  # the rules as they are: classic
    expect(page).to_have_url(re.compile(r"/r/[A-Za-z0-9_-]{22}$"))
    expect(board(page)).to_have_attribute("data-version", VERSION)
    expect(status(page)).to_have_text("Waiting for your friend to open the link")
    return invite_link(page).input_value()


def version(page: Page) -> str:
    """The version of the room snapshot the page shows."""
    return board(page).get_attribute("data-version") or ""


def in_step(*pages: Page) -> None:
    """Wait until every page shows the same snapshot, the newest any of them shows (one
    that moves on meanwhile is followed: a move's answer may still be on its way)."""
    for _ in range(10):
        newest = max(int(version(page) or 0) for page in pages)
        for page in pages:
            page.wait_for_function(
                "v => Number(document.getElementById('board').dataset.version) >= v",
                arg=newest,
            )
        if len({version(page) for page in pages}) == 1:
            return
    raise AssertionError([version(page) for page in pages])


def mark_of(page: Page) -> str:
    """The mark this player plays in the current game."""
    meta = page.locator("#game-meta")
    expect(meta).to_have_text(YOU_PLAY)
    found = YOU_PLAY.search(meta.inner_text())
    assert found
    return found[1]


def to_move(page: Page) -> str:
    """The mark to move, or "none" once the game is over."""
    return board(page).get_attribute("data-turn") or "none"


def click_cell(page: Page, index: int) -> None:
    """Click an empty cell and wait until it holds a mark."""
    name = cell_name(index)
    page.get_by_role("gridcell", name=f"{name}, empty", exact=True).click()
    expect(cell(page, index)).not_to_have_accessible_name(f"{name}, empty")


def key_cell(page: Page, index: int) -> None:
    """Play an empty cell by the keyboard alone: Tab into the board, arrows, Enter."""
    for _ in range(20):
        if focused_cell(page) >= 0:
            break
        page.keyboard.press("Tab")
    walk_to(page, index)
    page.keyboard.press("Enter")
    expect(cell(page, index)).not_to_have_accessible_name(f"{cell_name(index)}, empty")


Mover = Callable[[Page, int], None]


def play_out(players: dict[Page, Mover], cells: list[int] | None = None) -> None:
    """Play the game under way to its end: each player moves when its mark is to move,
    into ``cells`` in order (the first empty cell when none are given)."""
    pages = list(players)
    marks_of = {page: mark_of(page) for page in pages}
    queue = list(cells or [])
    while to_move(pages[0]) != "none":
        mover = next(page for page in pages if marks_of[page] == to_move(pages[0]))
        expect(status(mover)).to_have_text(f"Your turn (you play {marks_of[mover]})")
        target = queue.pop(0) if queue else marks(mover).index(".")
        players[mover](mover, target)
        in_step(*pages)


def expect_same_ending(first: Page, second: Page) -> str:
    """Both players see the same final board, and opposite results; returns the first's."""
    in_step(first, second)
    expect(status(first)).to_have_text(re.compile("^(" + "|".join(RESULTS) + ")$"))
    said = status(first).inner_text()
    expect(status(second)).to_have_text(OUTCOME_FOR_FRIEND[said])
    assert marks(first) == marks(second)
    return said
