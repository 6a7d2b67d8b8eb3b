"""End-to-end accessibility: axe-core on every state, the keyboard alone, and sound."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import (
    RESULT,
    best,
    board,
    cell,
    cell_name,
    confirmation,
    expect_no_violations,
    expect_one_tab_stop,
    focused_cell,
    hints,
    marks,
    open_game,
    open_rules,
    play,
    play_game,
    play_until,
    press_start,
    settle,
    start_match,
    walk_to,
    worst,
)
from playwright.sync_api import BrowserContext, Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

Axe = Callable[[Page], list[dict[str, Any]]]

# The screens every state is checked on: the page's colours, motion and width.
SCREENS = {
    "desktop-light": {"color_scheme": "light", "viewport": {"width": 1280, "height": 900}},
    "desktop-dark": {"color_scheme": "dark", "viewport": {"width": 1280, "height": 900}},
    "reduced-motion": {"reduced_motion": "reduce", "viewport": {"width": 1280, "height": 900}},
    "phone-390": {"viewport": {"width": 390, "height": 844}},
}

# Counts the AudioContexts the page makes and the notes it plays.
COUNT_AUDIO = """(() => {
  const Base = window.AudioContext;
  window.audioSeen = { contexts: 0, notes: 0 };
  window.AudioContext = class extends Base {
    constructor(...args) { super(...args); window.audioSeen.contexts += 1; }
    createOscillator() { window.audioSeen.notes += 1; return super.createOscillator(); }
  };
})();"""


@pytest.mark.parametrize("screen", SCREENS)
def test_every_state_is_accessible(
    new_context: Callable[..., BrowserContext], server: Any, axe: Axe, screen: str
) -> None:
    page = new_context(**SCREENS[screen]).new_page()
    open_game(page, server.url)
    expect(page.get_by_text(re.compile(r"^A perfect player wins"))).to_be_attached()
    expect_no_violations(axe, page, f"{screen}: a fresh page")

    hint = page.get_by_role("button", name="Hint")
    hint.click()
    play(page, best(page))
    if settle(page) == "human":
        hints(page)
        expect_no_violations(axe, page, f"{screen}: mid-game, hints on")

    play_game(page, best)
    expect_no_violations(axe, page, f"{screen}: game over")

    open_rules(page)
    expect_no_violations(axe, page, f"{screen}: the rules dialog open")
    rules = page.get_by_role("group", name="Rules")
    rules.get_by_role("spinbutton", name="Your starting HP").fill("0")
    press_start(page)  # refused before the page asks anything
    expect(page.get_by_role("alert")).to_be_visible()
    expect_no_violations(axe, page, f"{screen}: the settings with an error")
    rules.get_by_role("spinbutton", name="Your starting HP").fill("50")
    page.get_by_role("button", name="Start match").click()
    expect(confirmation(page)).to_be_visible()  # the match has a game to lose
    expect_no_violations(axe, page, f"{screen}: the abandon question")
    confirmation(page).get_by_role("button", name="Keep playing").click()
    page.keyboard.press("Escape")
    page.get_by_role("region", name="Dice").get_by_text("How the dice are checked").click()
    expect_no_violations(axe, page, f"{screen}: the dice's details open")


@pytest.mark.parametrize(
    ("mode", "result", "choose"),
    [("Easy", "You win!", best), ("Impossible", "AI wins", worst), ("Impossible", "Draw", best)],
)
def test_each_game_over_is_accessible(
    page: Page, server: Any, axe: Axe, mode: str, result: str, choose: Callable[[Page], int]
) -> None:
    open_game(page, server.url)
    start_match(page, mode)
    page.get_by_role("button", name="Hint").click()
    play_until(page, result, choose)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"{result} ({scheme})")


def number_keys(page: Page) -> Locator:
    """The setting that lets keys 1-9 play cells."""
    return page.get_by_role("switch", name="Number keys play cells")


def expect_digit_ignored(page: Page) -> None:
    """A digit key for an empty cell plays nothing: the board's version stays."""
    version = board(page).get_attribute("data-version")
    target = marks(page).index(".")
    page.keyboard.press(str(target + 1))
    page.wait_for_timeout(500)  # time enough for a move and the AI's answer to show
    expect(board(page)).to_have_attribute("data-version", version or "")
    expect(cell(page, target)).to_have_accessible_name(f"{cell_name(target)}, empty")


def tab_until(page: Page, found: Callable[[], bool], key: str = "Tab") -> None:
    """Press ``key`` until ``found()`` holds (a dozen times at most)."""
    for _ in range(12):
        if found():
            return
        page.keyboard.press(key)
    assert found(), f"not reached with {key}"


def test_keyboard_only_game_and_number_keys_setting(page: Page, server: Any) -> None:
    open_game(page, server.url)
    expect(number_keys(page)).to_be_checked()
    expect(board(page)).to_have_accessible_description(re.compile("keys 1 to 9 play a cell"))
    page.keyboard.press("Tab")
    assert focused_cell(page) >= 0, "the board is the first tab stop"

    turn = 0
    while settle(page) == "human":
        target = marks(page).index(".")
        if turn % 2:
            page.keyboard.press(str(target + 1))
        else:
            walk_to(page, target)
            page.keyboard.press("Enter")
        expect(cell(page, target)).not_to_have_accessible_name(f"{cell_name(target)}, empty")
        expect_one_tab_stop(page)
        turn += 1
    expect(page.locator("#status-text")).to_have_text(RESULT)

    next_button = page.get_by_role("button", name="Next game")
    tab_until(page, lambda: next_button.evaluate("b => b === document.activeElement"))
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"^Game 2 · "))).to_be_visible()
    settle(page)
    assert focused_cell(page) >= 0, "the focus returns to the board"

    # On, but the focus is outside the board: a digit is just a key.
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Hint")).to_be_focused()
    expect_digit_ignored(page)

    # Off: digits do nothing in the board either; arrows and Enter still play.
    switch = number_keys(page)
    tab_until(page, lambda: switch.evaluate("s => s === document.activeElement"))
    page.keyboard.press("Space")
    expect(switch).not_to_be_checked()
    expect(board(page)).not_to_have_accessible_description(re.compile("keys 1 to 9"))
    tab_until(page, lambda: focused_cell(page) >= 0, key="Shift+Tab")
    expect_digit_ignored(page)
    target = marks(page).index(".")
    walk_to(page, target)
    page.keyboard.press("Enter")
    expect(cell(page, target)).not_to_have_accessible_name(f"{cell_name(target)}, empty")

    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(number_keys(page)).not_to_be_checked()


def sound(page: Page) -> Locator:
    """The Sound toggle."""
    return page.get_by_role("button", name="Sound", exact=True)


def audio_seen(page: Page) -> dict[str, int]:
    """How many AudioContexts the page made, and how many notes it played."""
    return dict(page.evaluate("window.audioSeen"))


def test_sound_toggle_is_remembered(page: Page, server: Any) -> None:
    open_game(page, server.url)
    toggle = sound(page)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_attribute("data-sound", "on")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(toggle).to_have_attribute("data-sound", "off")

    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(sound(page)).to_have_attribute("aria-pressed", "false")
    sound(page).click()
    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(sound(page)).to_have_attribute("aria-pressed", "true")


def test_audio_waits_for_a_gesture_and_follows_moves(page: Page, server: Any) -> None:
    page.add_init_script(COUNT_AUDIO)
    open_game(page, server.url)
    page.wait_for_timeout(300)
    assert audio_seen(page) == {"contexts": 0, "notes": 0}, "no audio before a gesture"

    play(page, marks(page).index("."))
    assert audio_seen(page)["contexts"] == 1
    page.wait_for_function("window.audioSeen.notes > 0")  # your move, and the AI's

    sound(page).click()
    expect(sound(page)).to_have_attribute("aria-pressed", "false")
    if settle(page) == "human":
        notes = audio_seen(page)["notes"]
        play(page, marks(page).index("."))
        page.wait_for_timeout(200)
        assert audio_seen(page)["notes"] == notes, "muted: no sound"


def test_reduced_motion_starts_muted(
    new_context: Callable[..., BrowserContext], server: Any
) -> None:
    page = new_context(reduced_motion="reduce").new_page()
    page.add_init_script(COUNT_AUDIO)
    open_game(page, server.url)
    expect(sound(page)).to_have_attribute("aria-pressed", "false")
    play(page, marks(page).index("."))
    assert audio_seen(page)["contexts"] == 0, "muted: no AudioContext, even after a gesture"

    sound(page).click()
    expect(sound(page)).to_have_attribute("aria-pressed", "true")
    assert audio_seen(page)["contexts"] == 1


def test_screenshots_of_preferences(
    page: Page, server: Any, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    page.get_by_role("button", name="Hint").click()
    hints(page)
    number_keys(page).focus()
    shoot(page, "preferences")
