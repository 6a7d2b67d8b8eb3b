"""The lab's step-through in a browser, over the whole trace: the slider spans every
step, End and the Last step button reach the search's last one, and a step deep in the
trace is drawn in its place; axe on the new states, and screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

Axe = Callable[[Page], list[dict[str, Any]]]


def test_the_slider_and_end_reach_the_last_step_of_a_large_trace(
    page: Page, server_factory: Any, axe: Axe, shoot: Any
) -> None:
    # A share of work that the walks below never spend: the waits for a spent share are
    # the next test's, and here they would only add tens of seconds on a busy machine.
    server = server_factory(TICTACTOE_LAB_MS_PER_SECOND="10000", TICTACTOE_LAB_BURST_MS="60000")
    page.goto(server.url + "/lab?board=.........")
    step_of = page.locator("#step-of")
    expect(step_of).to_have_text("Step 1 of 70,289.")
    slider = page.get_by_role("slider", name="Step")
    expect(slider).to_have_attribute("max", "70288")
    slider.focus()
    page.keyboard.press("End")
    expect(step_of).to_have_text("Step 70,289 of 70,289.")
    expect(slider).to_have_attribute("aria-valuetext", "Step 70,289 of 70,289.")
    expect(page.locator("#step-words")).to_have_text("Leave node 0: value 0, searched.")
    expect(page.locator("#step-depth")).to_have_text("0")  # the root, entered 70,288 steps before
    expect(page.get_by_role("button", name="Next", exact=True)).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    expect(step_of).to_have_text("Step 70,288 of 70,289.")
    expect(page.locator("#step-words")).to_contain_text("node 0 takes c3\u2019s value")
    assert axe(page) == []
    shoot(page, "lab-last-step")

    # Plain minimax: 1,649,837 steps, its last one reached with the button.
    page.get_by_role("checkbox", name="Alpha-beta pruning").uncheck()
    expect(step_of).to_have_text("Step 1 of 1,649,837.")
    page.get_by_role("button", name="Last step").click()
    # Seconds of walking (the whole trace, walked again to its end).
    expect(step_of).to_have_text("Step 1,649,837 of 1,649,837.", timeout=60_000)
    expect(page.locator("#step-words")).to_have_text("Leave node 0: value 0, searched.")
    page.get_by_role("button", name="Previous").click()
    expect(step_of).to_have_text("Step 1,649,836 of 1,649,837.")
    assert axe(page) == []


def test_a_page_refused_for_a_spent_share_is_asked_again_when_the_share_is_back(
    page: Page, server_factory: Any, axe: Axe
) -> None:
    # A share of 20 ms of work a second, and no burst: each answer's work is owed at once.
    slow = server_factory(TICTACTOE_LAB_MS_PER_SECOND="20", TICTACTOE_LAB_BURST_MS="1")
    page.goto(slow.url + "/lab?board=.........")
    step_of = page.locator("#step-of")
    expect(step_of).to_have_text("Step 1 of 70,289.")  # the first answers, asked again
    expect(page.locator('#chart li[data-kind="minimax"]')).to_contain_text("nodes")
    notice = page.locator("#notice")
    expect(notice).to_have_text("")
    # The jump to the last step walks the whole trace: tens of milliseconds, a debt of
    # seconds, in which the next search's first page is refused.
    page.get_by_role("button", name="Last step").click()
    expect(step_of).to_have_text("Step 70,289 of 70,289.")
    page.get_by_role("checkbox", name="Alpha-beta pruning").uncheck()
    waiting = re.compile("^This page\u2019s share of the server\u2019s work is spent for a moment:")
    expect(notice).to_have_text(waiting)
    expect(notice).to_have_css("opacity", "1")  # seen, not only heard: at the screen's foot
    expect(notice).to_be_in_viewport()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert axe(page) == [], scheme
    # Asked again by the page when the server said the share would be back.
    expect(step_of).to_have_text("Step 1 of 1,649,837.")
    expect(notice).to_have_text("")
    expect(notice).not_to_have_class(re.compile(r"\bis-visible\b"))
