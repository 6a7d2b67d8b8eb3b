"""End-to-end: the rules in the settings, their odds, and the match's own tools."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import (
    CHANCES,
    ODDS,
    board,
    confirmation,
    expect_accessible,
    expect_no_violations,
    first_empty,
    focused_cell,
    open_game,
    open_rules,
    play,
    rules_dialog,
    settle,
    start_match,
)
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

REFUSED_HP = re.compile(r"^Your starting HP must be a whole number from 1 to 100$")
EMPTY_HP = re.compile(r"^Your starting HP: enter a whole number from 1 to 100$")
NOT_STARTED = "Not started: one setting needs a change. Fix “Your starting HP” above."


def rules(page: Page) -> Locator:
    """The Rules group of the settings (adaptive mode only)."""
    return page.get_by_role("group", name="Rules")


def number(page: Page, label: str) -> Locator:
    """One rule's number input, by its label."""
    return rules(page).get_by_role("spinbutton", name=label, exact=True)


def preset(page: Page) -> Locator:
    """The preset choice."""
    return rules(page).get_by_role("combobox", name="Preset")


def move_once(page: Page) -> None:
    """Play one move, if it is the player's turn, and wait for the AI's reply."""
    if settle(page) == "human":
        play(page, first_empty(page))
        settle(page)


def odds_after(page: Page, before: str) -> str:
    """Wait for the odds line to say something other than ``before``; return it."""
    line = page.get_by_text(ODDS)
    expect(line).to_be_visible()
    expect(line).not_to_have_text(before)
    return line.inner_text()


def test_rules_change_the_odds(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    line = page.get_by_text(ODDS)
    expect(line).to_be_visible()
    classic = line.inner_text()
    expect(preset(page)).to_have_value("classic")

    preset(page).select_option(label="Brutal")
    expect(
        rules(page).get_by_text("Even a perfect player loses at least 40% of matches")
    ).to_be_visible()
    expect(number(page, "HP you lose on a draw")).to_have_value("15")
    brutal = odds_after(page, classic)

    number(page, "HP the AI loses when you win").fill("20")
    expect(preset(page)).to_have_value("custom")
    custom = odds_after(page, brutal)
    assert ODDS.match(custom)

    # The numbers of a preset are that preset again.
    number(page, "HP the AI loses when you win").fill("10")
    expect(preset(page)).to_have_value("brutal")
    expect(page.get_by_text(ODDS)).to_have_text(brutal)


def test_out_of_range_number_is_refused_by_its_field(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    expect(page.get_by_text(ODDS)).to_be_visible()
    yours = number(page, "Your starting HP")
    yours.fill("0")
    expect(yours).to_have_attribute("aria-invalid", "true")
    expect(yours).to_have_accessible_description(REFUSED_HP)
    expect(rules(page).get_by_text(REFUSED_HP)).to_be_visible()
    expect(page.get_by_text(ODDS)).to_have_count(0)
    expect(rules(page).get_by_text("No odds until “Your starting HP” is fixed")).to_be_visible()

    version = board(page).get_attribute("data-version")
    page.get_by_role("button", name="Start match").click()
    alert = page.get_by_role("alert")
    expect(alert).to_have_text(NOT_STARTED)
    expect(yours).to_be_focused()
    page.wait_for_timeout(300)
    expect(board(page)).to_have_attribute("data-version", version or "")

    yours.fill("40")
    expect(yours).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text(ODDS)).to_be_visible()
    expect(rules(page).get_by_text(REFUSED_HP)).to_have_count(0)


def test_a_number_that_is_not_whole_is_refused_by_its_field(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    expect(page.get_by_text(ODDS)).to_be_visible()
    yours = number(page, "Your starting HP")
    yours.fill("1.5")  # sent as typed, a number but not an integer: the wrong type
    expect(yours).to_have_attribute("aria-invalid", "true")
    expect(rules(page).get_by_text(REFUSED_HP)).to_be_visible()
    expect(rules(page).get_by_text("got")).to_have_count(0)
    expect(rules(page).get_by_text("No odds until “Your starting HP” is fixed")).to_be_visible()


def test_rules_refused_as_a_whole_say_why(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    expect(page.get_by_text(ODDS)).to_be_visible()
    number(page, "HP you lose on a draw").fill("0")
    expect(page.get_by_text(ODDS)).to_be_visible()  # the AI still loses 2 on a draw
    number(page, "HP the AI loses on a draw").fill("0")
    expect(rules(page).get_by_text(re.compile(r"^A draw must cost you or the AI"))).to_be_visible()
    expect(page.get_by_text(ODDS)).to_have_count(0)
    for draw in ("HP you lose on a draw", "HP the AI loses on a draw"):  # both, at their fields
        expect(number(page, draw)).to_have_attribute("aria-invalid", "true")


def test_custom_numbers_start_the_match(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    page.get_by_role("radio", name="Adaptive", exact=True).check()
    number(page, "The most HP either side can have").fill("200")
    expect(number(page, "Your starting HP")).to_have_attribute("max", "200")
    start_match(page, "Adaptive", human_hp=150, ai_hp=120)
    open_rules(page)
    expect(page.locator("#human-hp")).to_have_text("150")
    expect(page.locator("#ai-hp")).to_have_text("120")
    you = page.get_by_role("meter", name="Your HP")
    expect(you).to_have_attribute("aria-valuenow", "150")
    expect(you).to_have_attribute("aria-valuemax", "200")
    expect(page.locator("#human-fill")).to_have_attribute("style", "width: 75%;")
    expect(preset(page)).to_have_value("custom")


def test_lock_difficulty(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", ai_hp=60)
    expect(page.locator("#difficulty")).to_have_text("40")
    lock = page.get_by_role("button", name="Lock difficulty")
    expect(lock).to_have_attribute("aria-pressed", "false")
    lock.click()
    asked = page.get_by_role("dialog", name="Lock the difficulty?")
    expect(asked).to_be_visible()
    expect(asked).to_have_accessible_description(
        re.compile(r"40% of the time for the rest of this match")
    )
    expect(asked.get_by_role("button", name="Keep it adaptive")).to_be_focused()
    page.keyboard.press("Escape")  # asked again, nothing changed, the focus back on Lock
    expect(asked).to_be_hidden()
    expect(lock).to_be_focused()
    expect(lock).to_have_attribute("aria-pressed", "false")
    lock.click()
    asked.get_by_role("button", name="Keep it adaptive").click()
    expect(lock).to_have_attribute("aria-pressed", "false")
    lock.click()
    asked.get_by_role("button", name="Lock at 40").click()
    locked = page.get_by_role("button", name="Difficulty locked at 40")
    expect(locked).to_have_attribute("aria-pressed", "true")
    expect(locked).to_be_disabled()

    start_match(page, "Medium")
    expect(
        page.get_by_role("button", name=re.compile("^(Lock difficulty|Difficulty locked)"))
    ).to_be_hidden()


def test_chances_of_the_match_under_way(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    toggle = page.get_by_role("button", name="Show my chances")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_text(CHANCES)).to_have_count(0)

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_text(CHANCES)).to_be_visible()

    toggle.click()
    expect(page.get_by_text(CHANCES)).to_be_hidden()


def test_page_is_accessible(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    expect(page.get_by_text(ODDS)).to_be_visible()
    expect_accessible(axe, page)

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_accessible(axe, page)


def test_settings_with_an_error_are_accessible(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    number(page, "Your starting HP").fill("0")
    expect(rules(page).get_by_text(REFUSED_HP)).to_be_visible()
    page.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("alert")).to_be_visible()
    seed = page.get_by_role("textbox", name="Your dice seed")
    seed.fill("not a seed!")
    expect(seed).to_have_attribute("aria-invalid", "true")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_accessible(axe, page)


def test_invalid_rules_are_refused_before_any_abandon_question(page: Page, server: Any) -> None:
    open_game(page, server.url)
    move_once(page)  # the match has something to lose
    version = board(page).get_attribute("data-version")
    dialog = open_rules(page)
    yours = number(page, "Your starting HP")
    yours.fill("")
    dialog.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("alert")).to_have_text(NOT_STARTED)
    expect(yours).to_be_focused()
    expect(yours).to_have_attribute("aria-invalid", "true")
    expect(yours).to_have_accessible_description(EMPTY_HP)
    note = rules(page).get_by_text(EMPTY_HP)
    expect(note).to_be_in_viewport()
    expect(confirmation(page)).to_be_hidden()  # nothing was offered to be abandoned
    expect(dialog.get_by_text("got")).to_have_count(0)
    expect(board(page)).to_have_attribute("data-version", version or "")

    # Fixed, the same press asks first, and then starts: the dialogs close on the board.
    yours.fill("40")
    dialog.get_by_role("button", name="Start match").click()
    expect(confirmation(page)).to_be_visible()
    confirmation(page).get_by_role("button", name="Start new match").click()
    expect(rules_dialog(page)).to_be_hidden()
    expect(page.locator("#human-hp")).to_have_text("40")
    assert focused_cell(page) >= 0
    expect(board(page)).to_be_in_viewport(ratio=1)


def test_the_rules_dialog_keeps_and_returns_the_focus(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
    opener = page.get_by_role("button", name="Choose the rules…")
    opener.click()
    dialog = rules_dialog(page)
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("radio", name="Adaptive", exact=True)).to_be_focused()
    expect(dialog.get_by_text(ODDS)).to_be_visible()
    expect_no_violations(axe, page, "the rules dialog open")
    inside = "() => document.getElementById('rules-dialog').contains(document.activeElement)"
    for key in ["Tab"] * 30 + ["Shift+Tab"] * 30:
        page.keyboard.press(key)
        assert page.evaluate(inside), f"the focus left the dialog after {key}"
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(opener).to_be_focused()

    opener.click()
    dialog.get_by_role("button", name="Cancel").click()
    expect(opener).to_be_focused()
    opener.click()
    dialog.get_by_role("button", name="Close").click()
    expect(opener).to_be_focused()


def test_abandon_question_and_lock_question_are_accessible(
    page: Page, server: Any, axe: Any
) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", ai_hp=60)
    move_once(page)  # the match has something to lose
    open_rules(page).get_by_role("button", name="Start match").click()
    expect(confirmation(page)).to_be_visible()
    expect_no_violations(axe, page, "the abandon question open")
    confirmation(page).get_by_role("button", name="Keep playing").click()
    expect(rules_dialog(page).get_by_role("button", name="Start match")).to_be_focused()
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Lock difficulty").click()
    expect(page.get_by_role("dialog", name="Lock the difficulty?")).to_be_visible()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"the lock question open ({scheme})")


def test_screenshots_of_the_dialogs(
    page: Page, server: Any, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", ai_hp=60)
    move_once(page)  # the match has something to lose
    shoot(page, "rules-closed")
    dialog = open_rules(page)
    expect(dialog.get_by_text(ODDS)).to_be_visible()
    shoot(page, "rules-dialog")
    dialog.get_by_role("button", name="Start match").click()
    expect(confirmation(page)).to_be_visible()
    shoot(page, "rules-abandon")
    confirmation(page).get_by_role("button", name="Keep playing").click()
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Lock difficulty").click()
    shoot(page, "lock-question")
