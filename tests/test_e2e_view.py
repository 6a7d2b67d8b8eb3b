"""End-to-end: the AI page's smaller promises. Links wear the page's colours in both
schemes, visited or not; Enter on a finished board starts what comes next; two players
on one device are told who won by name."""

from __future__ import annotations

from typing import Any

import pytest
from browser import (
    Axe,
    expect_no_violations,
    first_empty,
    open_game,
    play,
)
from playwright.sync_api import Page, expect

# Every visible link that is not dressed as a button: its words and its colour, beside
# the colour of the page's accent (--you) as the browser computes it.
LINK_COLOURS = """() => {
  const probe = document.createElement('span');
  probe.style.color = 'var(--you)';
  document.body.append(probe);
  const accent = getComputedStyle(probe).color;
  probe.remove();
  const links = [...document.querySelectorAll('a[href]:not(.btn)')]
    .filter((link) => link.checkVisibility({ visibilityProperty: true }))
    .map((link) => [link.textContent.trim(), getComputedStyle(link).color]);
  return { accent, links };
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_links_wear_the_page_colours_visited_or_not(
    page: Page, server: Any, axe: Axe, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
    open_game(page, server.url)
    play(page, first_empty(page))  # the AI has moved: "Why this move?" is offered
    expect(page.get_by_role("link", name="Why this move?")).to_be_visible()
    found = page.evaluate(LINK_COLOURS)
    names = [name for name, _ in found["links"]]
    assert {"History", "Why this move?"} <= set(names), names
    for name, colour in found["links"]:
        assert colour == found["accent"], (scheme, name, colour, found["accent"])
    expect_no_violations(axe, page, f"{scheme}: the AI page's links")

    # Once visited, a link is drawn as before. The browser keeps :visited from scripts and
    # keeps no history here, so DevTools marks the link visited and the pixels are compared.
    history = page.get_by_role("link", name="History", exact=True)
    page.mouse.move(0, 0)
    unvisited = history.screenshot(animations="disabled")
    force_visited(page, ".home-help a")
    assert history.screenshot(animations="disabled") == unvisited, "visited, it changed colour"


def force_visited(page: Page, selector: str) -> None:
    """Draw the element at ``selector`` as a visited link (Chromium's DevTools protocol)."""
    devtools = page.context.new_cdp_session(page)
    devtools.send("DOM.enable")
    devtools.send("CSS.enable")
    root = devtools.send("DOM.getDocument")["root"]["nodeId"]
    node = devtools.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    devtools.send("CSS.forcePseudoState", {"nodeId": node, "forcedPseudoClasses": ["visited"]})
