"""End-to-end: the game page keeps room for what it draws, so that nothing moves as it
connects and draws its first state (Lighthouse's cumulative layout shift)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser import open_game
from playwright.sync_api import Page, Route

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
MOST_SHIFT = 0.1  # Lighthouse's own line between a good and a poor layout shift
SCRIPT_LATE_S = 0.3  # long enough for a first paint before the script runs
# Every layout shift the page has had without a recent input, with what moved.
SHIFTS = """() => new Promise((done) => {
  const seen = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const name = (node) => node && (node.id || node.className || node.nodeName);
      seen.push({value: entry.value, moved: entry.sources.map((s) => String(name(s.node)))});
    }
  }).observe({type: "layout-shift", buffered: true});
  requestAnimationFrame(() => requestAnimationFrame(() => done(seen)));
})"""


def layout_shifts(page: Page) -> list[dict[str, Any]]:
    """The layout shifts so far, each with its value and the elements that moved."""
    shifts: list[dict[str, Any]] = page.evaluate(SHIFTS)
    return shifts


def paint_before_scripts(page: Page) -> None:
    """Hold the page's script back a moment, as a slow network would, so that the page
    is painted from its HTML and styles alone before the script draws into it."""

    def late(route: Route) -> None:
        time.sleep(SCRIPT_LATE_S)
        route.continue_()

    page.route("**/js/main.js", late)


@pytest.mark.parametrize("size", SIZES)
def test_first_state_moves_nothing(page: Page, server: Any, shoot: Any, size: str) -> None:
    page.set_viewport_size(SIZES[size])
    paint_before_scripts(page)
    open_game(page, server.url)
    shifts = layout_shifts(page)
    total = sum(shift["value"] for shift in shifts)
    assert total < MOST_SHIFT, f"{size}: layout shift {total:.3f}: {shifts}"
    if size == "phone":
        shoot(page, "fresh-page")
