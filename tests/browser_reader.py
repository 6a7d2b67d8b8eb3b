"""What browser tests of the screen-reader mode share: the switch turned on, the one
assertive live region, a command typed."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect


def reader_on(page: Page) -> Locator:
    """Turn the mode on by its switch; the command box, focused."""
    page.get_by_role("switch", name="Screen-reader mode").check()
    box = page.get_by_role("textbox", name="Command")
    expect(box).to_be_focused()
    return box


def said(page: Page) -> Locator:
    """The page's one assertive live region."""
    regions = page.locator("[aria-live=assertive]")
    expect(regions).to_have_count(1)
    return regions


def command(page: Page, box: Locator, typed: str) -> None:
    """Type ``typed`` into the command box and send it with Enter."""
    box.fill(typed)
    box.press("Enter")
