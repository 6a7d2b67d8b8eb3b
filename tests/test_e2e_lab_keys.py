"""The lab by keyboard: a button that goes off under the focus hands it on (never back
to the page's top), Next cut answers at once where no search can cut, each scoring's
name is read whole in its field, and a 0 under a depth limit is not called a draw; axe on
each state, and screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import cell_name
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

Axe = Callable[[Page], list[dict[str, Any]]]
# Each option's text, its width, and the room its closed select gives it (less the arrow's).
OPTION_ROOM = """select => {
  const pen = document.createElement("canvas").getContext("2d");
  pen.font = getComputedStyle(select).font;
  const style = getComputedStyle(select);
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const needs = (o) => Math.ceil(pen.measureText(o.text).width);
  return [...select.options].map(o => [o.text, needs(o), room - 20]);
}"""


def test_buttons_that_go_off_hand_the_focus_on(page: Page, server: Any, axe: Axe) -> None:
    page.goto(server.url + "/lab?board=X...O....")
    step_of = page.locator("#step-of")
    expect(step_of).to_have_text("Step 1 of 2,934.")
    slider = page.get_by_role("slider", name="Step")
    page.get_by_role("button", name="Last step").click()
    expect(step_of).to_have_text("Step 2,934 of 2,934.")
    expect(slider).to_be_focused()  # not the page's top: the slider says where it is
    page.get_by_role("button", name="Previous").click()
    page.get_by_role("button", name="Next", exact=True).click()
    expect(step_of).to_have_text("Step 2,934 of 2,934.")
    expect(slider).to_be_focused()
    page.keyboard.press("Home")
    page.get_by_role("button", name="Next", exact=True).click()
    page.get_by_role("button", name="Previous").click()
    expect(step_of).to_have_text("Step 1 of 2,934.")
    expect(slider).to_be_focused()
    assert axe(page) == []

    # Undo back to the position the page opened on: the focus goes to the board.
    board = page.get_by_role("grid", name="Position to search")
    board.get_by_role("button", name=re.compile(f"^{cell_name(1)}, ")).focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"board=XX\.\.O\.\.\.\.$"))
    undo = page.get_by_role("button", name="Undo a move")
    undo.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"board=X\.\.\.O\.\.\.\.$"))
    expect(undo).to_be_disabled()
    expect(board.locator('[tabindex="0"]')).to_be_focused()
    assert axe(page) == []


def test_next_cut_without_pruning_says_there_are_none(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    page.goto(server.url + "/lab?board=.........")
    # Unchecked at once, while the pruned search's first page may still be awaited: the
    # step-through then shows the new search's first step, not nothing.
    page.get_by_role("checkbox", name="Alpha-beta pruning").uncheck()
    step_of = page.locator("#step-of")
    expect(step_of).to_have_text("Step 1 of 1,649,837.")
    page.get_by_role("button", name="Next cut").click()
    # At once, and from here: not a walk through 1.6 million steps, page by page.
    expect(page.locator("#step-words")).to_have_text(
        "Without alpha-beta pruning the search visits every move: there are no cuts. "
        "Turn pruning on to see them."
    )
    expect(step_of).to_have_text("Step 1 of 1,649,837.")
    expect(page.locator("#notice")).to_have_text("")
    assert axe(page) == []
    shoot(page, "lab-no-cuts")


def test_each_scoring_is_named_whole_in_its_field(page: Page, server: Any) -> None:
    page.goto(server.url + "/lab")
    scoring = page.get_by_role("combobox", name="Scoring")
    expect(scoring).to_have_value("depth")
    for width in (320, 390, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(100)
        for text, needs, room in scoring.evaluate(OPTION_ROOM):
            assert needs <= room, f"{width} px: “{text}” needs {needs} px, has {room}"


def test_a_depth_limit_never_calls_an_unseen_end_a_draw(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    # X threatens c1: O must block it, and every other move loses.
    page.goto(server.url + "/lab?board=XX..O....")
    tree = page.get_by_role("tree")
    expect(tree.get_by_role("treeitem").first).to_have_attribute("aria-expanded", "true")
    expect(tree.get_by_role("treeitem", name=re.compile("^after O a2: X wins"))).to_have_count(1)
    page.get_by_label("Depth limit").select_option("1")
    # One ply sees no end: each move counts 0, as if drawn, and is said to be no more.
    unseen = "no win or loss within 1 ply, value 0"
    expect(page.locator("#to-move")).to_have_text(f"O to move: {unseen}.")
    expect(tree.get_by_role("treeitem", name=f"after O a2: {unseen}")).to_have_count(1)
    expect(tree.get_by_role("treeitem", name=re.compile("a draw"))).to_have_count(0)
    assert axe(page) == []
    shoot(page, "lab-depth-limit")
    page.get_by_label("Depth limit").select_option("")
    expect(page.locator("#to-move")).to_have_text("O to move: a draw, value 0.")


# How far each node's words sit below the top of its small board, in px.
WORDS_DROP = """tree => [...tree.querySelectorAll(".node")].map(node => {
  const mini = node.querySelector(".mini").getBoundingClientRect();
  return node.querySelector(".node-words").getBoundingClientRect().top - mini.top;
})"""


def test_on_a_phone_the_tree_and_the_counts_keep_their_words_together(
    page: Page, server: Any
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server.url + "/lab?board=X...O....")
    tree = page.get_by_role("tree")
    expect(tree.get_by_role("treeitem").first).to_have_attribute("aria-expanded", "true")
    tree.get_by_role("treeitem").nth(1).focus()
    page.keyboard.press("ArrowRight")  # a second level open
    expect(page.locator(":focus")).to_have_attribute("aria-expanded", "true")
    drops = tree.evaluate(WORDS_DROP)
    assert len(drops) > 10 and max(drops) < 52, drops  # beside the board, not under it
    expect(page.locator("#chart li")).to_have_count(8)
    for numbers in page.locator(".chart-numbers").all_inner_texts():
        assert re.search(r"\d\u00a0ms$", numbers), numbers
