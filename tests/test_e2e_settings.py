"""End-to-end: the rules in the settings, their odds, and the match's own tools."""

from __future__ import annotations

import re
from typing import Any

from browser import CHANCES, ODDS, board, expect_accessible, open_game, start_match
from playwright.sync_api import Locator, Page, expect

REFUSED_HP = re.compile(r"your starting HP must be an integer from 1 to 100, got 0", re.I)


def rules(page: Page) -> Locator:
    """The Rules group of the settings (adaptive mode only)."""
    return page.get_by_role("group", name="Rules")


def number(page: Page, label: str) -> Locator:
    """One rule's number input, by its label."""
    return rules(page).get_by_role("spinbutton", name=label, exact=True)


def preset(page: Page) -> Locator:
    """The preset choice."""
    return rules(page).get_by_role("combobox", name="Preset")


def odds_after(page: Page, before: str) -> str:
    """Wait for the odds line to say something other than ``before``; return it."""
    line = page.get_by_text(ODDS)
    expect(line).to_be_visible()
    expect(line).not_to_have_text(before)
    return line.inner_text()


def test_rules_change_the_odds(page: Page, server: Any) -> None:
    open_game(page, server.url)
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
    expect(alert).to_have_text(re.compile(r"^Not started: " + REFUSED_HP.pattern, re.I))
    expect(yours).to_be_focused()
    page.wait_for_timeout(300)
    expect(board(page)).to_have_attribute("data-version", version or "")

    yours.fill("40")
    expect(yours).not_to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text(ODDS)).to_be_visible()
    expect(rules(page).get_by_text(REFUSED_HP)).to_have_count(0)


def test_a_number_that_is_not_whole_is_refused_by_its_field(page: Page, server: Any) -> None:
    open_game(page, server.url)
    expect(page.get_by_text(ODDS)).to_be_visible()
    yours = number(page, "Your starting HP")
    yours.fill("1.5")  # sent as typed, a number but not an integer: the wrong type
    expect(yours).to_have_attribute("aria-invalid", "true")
    expect(rules(page).get_by_text("your starting HP must be an integer, got 1.5")).to_be_visible()
    expect(rules(page).get_by_text("No odds until “Your starting HP” is fixed")).to_be_visible()


def test_rules_refused_as_a_whole_say_why(page: Page, server: Any) -> None:
    open_game(page, server.url)
    expect(page.get_by_text(ODDS)).to_be_visible()
    number(page, "HP you lose on a draw").fill("0")
    expect(page.get_by_text(ODDS)).to_be_visible()  # the AI still loses 2 on a draw
    number(page, "HP the AI loses on a draw").fill("0")
    expect(rules(page).get_by_text(re.compile(r"^a draw must cost you or the AI"))).to_be_visible()
    expect(page.get_by_text(ODDS)).to_have_count(0)
    expect(
        rules(page).get_by_role("spinbutton", name="HP the AI loses on a draw")
    ).not_to_have_attribute("aria-invalid", "true")


def test_custom_numbers_start_the_match(page: Page, server: Any) -> None:
    open_game(page, server.url)
    page.get_by_role("radio", name="Adaptive", exact=True).check()
    number(page, "The most HP either side can have").fill("200")
    expect(number(page, "Your starting HP")).to_have_attribute("max", "200")
    start_match(page, "Adaptive", human_hp=150, ai_hp=120)
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
    expect(page.get_by_text(ODDS)).to_be_visible()
    expect_accessible(axe, page)

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_accessible(axe, page)


def test_settings_with_an_error_are_accessible(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
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
