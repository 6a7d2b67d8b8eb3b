"""End-to-end: the rules dialog keeps its place. What the player just changed and what it
changed stay in view at a phone's and a laptop's size; the slider and the number of the
chance asked for never disagree; a refusal sits at the fields it is about; Cancel puts
back what was there; and after a match, New match offers the rules just played."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser import (
    ODDS,
    Axe,
    expect_no_violations,
    open_game,
    open_rules,
    screenshot,
)
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
DEFAULTS = "Adaptive · Classic rules · 100 HP each"
TARGET_FIELD = re.compile("^I want to win about")
TARGET_WORDS = "Enter a whole number from 1 to 99"
DRAWS = re.compile(r"^A draw must cost you or the AI at least 1 HP")
TOO_LONG = re.compile(r"^Under these rules a match could last \d+ games")


def body(dialog: Locator) -> Locator:
    """The part of the dialog that scrolls, between its head and its buttons."""
    return dialog.locator(".rules-body")


def expect_in_view(dialog: Locator, *parts: Locator) -> None:
    """Each part's box lies wholly inside the dialog's visible scroll area and the viewport."""
    page = dialog.page
    view = page.viewport_size or {}
    area = body(dialog).bounding_box()
    assert area, "the dialog's body has no box"
    for part in parts:
        expect(part).to_be_visible()
        box = part.bounding_box()
        assert box, part
        top, bottom = box["y"], box["y"] + box["height"]
        seen = (area["y"] - 0.5 <= top and bottom <= area["y"] + area["height"] + 0.5) and (
            top >= 0 and bottom <= view["height"]
        )
        assert seen, f"{part} at {box} is not inside the dialog's {area} and the {view} viewport"


def shots(page: Page, artifacts: Path, axe: Axe, moment: str, size: str) -> None:
    """axe finds nothing and the screen is saved, light and dark, at the size it has."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.wait_for_timeout(100)
        expect_no_violations(axe, page, f"{moment} ({size}, {scheme})")
        screenshot(page, artifacts / f"rules-{moment}-{size}-{scheme}.png")


def target_field(dialog: Locator) -> Locator:
    """The number box of the chance asked for."""
    return dialog.get_by_role("spinbutton", name=TARGET_FIELD)


def target_slider(dialog: Locator) -> Locator:
    """The slider of the chance asked for."""
    return dialog.get_by_role("slider", name=TARGET_FIELD)


def rule(dialog: Locator, label: str) -> Locator:
    """One rule's number box, by its label."""
    return dialog.get_by_role("spinbutton", name=label, exact=True)


@pytest.mark.parametrize("size", SIZES)
def test_choosing_a_target_brings_its_field_and_preview_into_view(
    page: Page, server: Any, axe: Axe, artifacts: Path, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    page.emulate_media(reduced_motion="reduce")
    open_game(page, server.url)
    dialog = open_rules(page)
    expect(dialog.get_by_text(ODDS)).to_be_visible()
    choice = dialog.get_by_role("radio", name="The chance of winning I ask for")
    choice.check()
    preview = dialog.locator("#target-preview")
    expect(preview).to_have_attribute("data-state", re.compile("^(shown|out-of-reach)$"))
    expect_in_view(dialog, choice, target_slider(dialog), target_field(dialog), preview)
    shots(page, artifacts, axe, "target-in-view", size)

    # A rule changed far from its odds: the number and the odds it gives both in view.
    dialog.get_by_role("radio", name="A preset or my own numbers").check()
    most = rule(dialog, "The most HP either side can have")
    most.fill("120")
    odds = dialog.get_by_text(ODDS)
    expect(odds).to_be_visible()
    expect_in_view(dialog, most, odds)


@pytest.mark.parametrize("size", SIZES)
def test_an_out_of_range_target_is_refused_at_its_field_and_the_slider_stays(
    page: Page, server: Any, axe: Axe, artifacts: Path, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    dialog = open_rules(page)
    dialog.get_by_role("radio", name="The chance of winning I ask for").check()
    field, slider = target_field(dialog), target_slider(dialog)
    field.fill("70")
    expect(slider).to_have_value("70")
    expect(dialog.locator("#target-preview")).to_have_attribute("data-state", "shown")

    field.fill("150")
    # The box says what was typed and why it is refused; the slider keeps the last chance
    # that could be asked, and says it is not the one in the box.
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(re.compile(f"^{TARGET_WORDS}"))
    expect(slider).to_have_value("70")
    expect(slider).to_have_attribute("aria-invalid", "true")
    expect(slider).to_have_accessible_description(re.compile(f"^{TARGET_WORDS}"))
    expect(field).to_have_value("150")
    note = dialog.locator("#target-error")
    expect(note).to_have_text(TARGET_WORDS)
    expect_in_view(dialog, field, note)
    shots(page, artifacts, axe, "target-error", size)

    # The slider moved: the box takes its number, and neither is marked any more.
    slider.fill("40")
    expect(field).to_have_value("40")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(slider).not_to_have_attribute("aria-invalid", "true")
    expect(note).to_be_hidden()


@pytest.mark.parametrize("size", SIZES)
def test_rules_refused_together_are_marked_at_their_fields(
    page: Page, server: Any, axe: Axe, artifacts: Path, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    dialog = open_rules(page)
    expect(dialog.get_by_text(ODDS)).to_be_visible()
    yours, ais = rule(dialog, "HP you lose on a draw"), rule(dialog, "HP the AI loses on a draw")
    yours.fill("0")
    expect(dialog.get_by_text(ODDS)).to_be_visible()  # the AI still loses 2 on a draw
    ais.fill("0")
    for field in (yours, ais):
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(field).to_have_accessible_description(DRAWS)
    note = dialog.locator(".rule .field-error").filter(has_text=DRAWS)
    expect(note).to_have_count(1)
    expect(dialog.get_by_text(ODDS)).to_have_count(0)
    expect_in_view(dialog, ais, note)
    shots(page, artifacts, axe, "draws-error", size)

    dialog.get_by_role("button", name="Start match").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Not started: one setting needs a change. "
        "Fix “HP you lose on a draw” or “HP the AI loses on a draw” above."
    )
    expect(yours).to_be_focused()

    ais.fill("2")
    for field in (yours, ais):
        expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(dialog.get_by_text(ODDS)).to_be_visible()

    # Rules refused as a whole, no field of their own: the number just changed is marked.
    win = rule(dialog, "HP the AI loses when you win")
    win.fill("1")
    expect(win).to_have_attribute("aria-invalid", "true")
    expect(win).to_have_accessible_description(TOO_LONG)
    expect_in_view(dialog, win, dialog.locator("#rule-human_win_ai_damage-error"))
    win.fill("10")
    expect(win).not_to_have_attribute("aria-invalid", "true")
    expect(dialog.get_by_text(ODDS)).to_be_visible()


def test_cancel_puts_back_what_was_there(page: Page, server: Any) -> None:
    open_game(page, server.url)
    next_match = page.locator("#rules-next")
    expect(next_match).to_have_text(DEFAULTS)
    seed = page.get_by_role("textbox", name="Your dice seed", include_hidden=True)
    for close in ("Cancel", "Close", "Escape"):
        dialog = open_rules(page)
        dialog.get_by_role("radio", name="The chance of winning I ask for").check()
        target_field(dialog).fill("60")
        expect(next_match).to_have_text("Adaptive · Win about 60% · rules tuned for you")
        seed.fill(f"seed-{close}")
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            dialog.get_by_role("button", name=close, exact=True).click()
        expect(dialog).to_be_hidden()
        expect(next_match).to_have_text(DEFAULTS)
        # The seed stays: saved as typed, it is the dice of every game, the next one too.
        expect(seed).to_have_value(f"seed-{close}")
        dialog = open_rules(page)
        expect(dialog.get_by_role("radio", name="A preset or my own numbers")).to_be_checked()
        expect(dialog.get_by_role("combobox", name="Preset")).to_have_value("classic")
        page.keyboard.press("Escape")

    # Rules changed and kept by Start match are what Cancel goes back to.
    dialog = open_rules(page)
    rule(dialog, "Your starting HP").fill("80")
    dialog.get_by_role("button", name="Start match").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#human-hp")).to_have_text("80")
    dialog = open_rules(page)
    dialog.get_by_role("combobox", name="Preset").select_option(label="Brutal")
    dialog.get_by_role("button", name="Cancel").click()
    expect(next_match).to_have_text("Adaptive · Custom rules · you 80 HP, the AI 100 HP")
    dialog = open_rules(page)
    expect(rule(dialog, "Your starting HP")).to_have_value("80")
    expect(rule(dialog, "HP you lose on a draw")).to_have_value("10")
