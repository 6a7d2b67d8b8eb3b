"""End-to-end: the game page keeps room for what it draws, so that nothing moves as it
connects and draws its first state (Lighthouse's cumulative layout shift)."""

from __future__ import annotations

from typing import Any

import pytest
from browser import open_game
from playwright.sync_api import Page

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
MOST_SHIFT = 0.1  # Lighthouse's own line between a good and a poor layout shift
# Every layout shift the page has had without a recent input, with what moved.
SHIFTS = """() => new Promise((done) => {
  const seen = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const moved = entry.sources.map((s) => s.node && (s.node.id || s.node.className || s.node.nodeName));
      seen.push({value: entry.value, moved: moved.map(String)});
    }
  }).observe({type: "layout-shift", buffered: true});
  requestAnimationFrame(() => requestAnimationFrame(() => done(seen)));
})"""


def layout_shifts(page: Page) -> list[dict[str, Any]]:
    """The layout shifts so far, each with its value and the elements that moved."""
    shifts: list[dict[str, Any]] = page.evaluate(SHIFTS)
    return shifts


@pytest.mark.parametrize("size", SIZES)
def test_first_state_moves_nothing(page: Page, server: Any, shoot: Any, size: str) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    shifts = layout_shifts(page)
    total = sum(shift["value"] for shift in shifts)
    assert total < MOST_SHIFT, f"{size}: layout shift {total:.3f}: {shifts}"
    if size == "phone":
        shoot(page, "fresh-page")
