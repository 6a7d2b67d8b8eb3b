"""End-to-end: the rules dialog's odds say they are exact, at a phone's and a laptop's
size, light and dark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser import ODDS, Axe, expect_no_violations, open_game, open_rules, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.mark.parametrize("size", SIZES)
def test_the_rules_odds_say_they_are_exact(
    page: Page, server: Any, axe: Axe, artifacts: Path, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    dialog = open_rules(page)
    odds = dialog.get_by_text(ODDS)
    expect(odds).to_be_visible()
    expect(odds).to_contain_text("(exact odds)")
    odds.scroll_into_view_if_needed()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.wait_for_timeout(100)
        expect_no_violations(axe, page, f"exact odds ({size}, {scheme})")
        screenshot(page, artifacts / f"odds-exact-{size}-{scheme}.png")
