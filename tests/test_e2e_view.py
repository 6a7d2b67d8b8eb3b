"""End-to-end: the AI page's smaller promises. Links wear the page's colours in both
schemes, visited or not; Enter on a finished board starts what comes next (on one device
too); two players on one device are told who won by name."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import (
    Axe,
    board,
    expect_no_violations,
    first_empty,
    focused_cell,
    open_game,
    play,
    play_game,
    settle,
    start_match,
    version,
    wait_past,
)
from browser_rooms import click_cell, open_room, status
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

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


NEXT_GAME = re.compile(r"^Game 2 · ")


def test_enter_on_a_finished_board_starts_the_next_game(page: Page, server: Any) -> None:
    open_game(page, server.url)
    play_game(page)  # by clicks: the focus stays on the board
    expect(page.get_by_role("button", name="Next game")).to_be_visible()
    assert focused_cell(page) >= 0
    page.keyboard.press("Enter")
    expect(page.get_by_text(NEXT_GAME)).to_be_visible()
    settle(page)
    assert focused_cell(page) >= 0, "the focus left the board"
    expect(page.locator("#notice")).to_have_text("")  # no move was tried on the old board


def test_enter_on_a_finished_match_starts_a_new_one(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=1, ai_hp=1)  # one game decides it
    play_game(page)
    expect(page.get_by_role("button", name="New match")).to_be_visible()
    before = version(page)
    page.get_by_role("grid", name="Board").get_by_role("button").first.focus()
    page.keyboard.press("Enter")
    wait_past(page, before)
    expect(page.get_by_text(re.compile(r"^Game 1 · "))).to_be_visible()
    expect(board(page)).to_have_attribute("data-status", "playing")


# Two people on one device: X wins three in a column (b1, b2, b3), O plays a1 and c1.
X_WINS = (4, 0, 1, 2, 7)


def test_one_device_names_the_winner(page: Page, server: Any, axe: Axe) -> None:
    open_room(page, server.url + "/local")
    for target in X_WINS:
        click_cell(page, target)
    expect(status(page)).to_have_text("Player 1 (X) wins")
    expect_no_violations(axe, page, "one device, a game won")
    page.get_by_role("button", name="Next game").click()
    expect(page.locator("#game-meta")).to_have_text("Game 2 · Player 2 is X, Player 1 is O")
    for target in X_WINS:
        click_cell(page, target)
    expect(status(page)).to_have_text("Player 2 (X) wins")


def test_enter_on_a_finished_board_of_one_device_starts_the_next_game(
    page: Page, server: Any
) -> None:
    open_room(page, server.url + "/local")
    for target in X_WINS:
        click_cell(page, target)
    expect(status(page)).to_have_text("Player 1 (X) wins")
    page.get_by_role("grid").get_by_role("button").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#game-meta")).to_have_text("Game 2 · Player 2 is X, Player 1 is O")
    expect(status(page)).to_have_text("X to move")
