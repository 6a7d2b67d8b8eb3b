"""End-to-end: what a first-time player meets. The page asks before a match is lost, says
hints in the player's own moves and the AI's moves in plain words, shows when it is cut
off from the server and why a move was refused, and lets a fixed mode's player choose
who goes first."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import (
    Axe,
    best,
    board,
    cell,
    cell_name,
    confirmation,
    expect_no_violations,
    first_empty,
    focused_cell,
    hints,
    marks,
    open_game,
    open_rules,
    play,
    play_game,
    play_until,
    settle,
    start_match,
    version,
    wait_past,
    walk_to,
)
from playwright.sync_api import BrowserContext, Locator, Page, expect

from webapp.game import engine
from webapp.game.board import Board

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

TITLE = "Tic-tac-toe HP"
DEFAULTS = "Adaptive · Classic rules · 100 HP each"


def summary(page: Page) -> Locator:
    """The line of the settings that says what Start match would start."""
    return page.get_by_text(re.compile(r"^Starts: "))


def live_notice(page: Page, text: str) -> Locator:
    """A status (a polite live region) that says ``text``."""
    return page.get_by_role("status").filter(has_text=text)


def in_dialog(page: Page) -> bool:
    """Whether the focus is inside the confirmation dialog."""
    return bool(
        page.evaluate(
            "[...document.querySelectorAll('dialog[open]')].at(-1)?.contains(document.activeElement)"
        )
    )


# --- 1. Starting over asks first; the form shows what it will start ------------------------


def test_starting_over_mid_game_asks_first(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    play(page, first_empty(page))
    before, seen = marks(page), version(page)
    start = open_rules(page).get_by_role("button", name="Start match")

    start.click()
    dialog = confirmation(page)
    expect(dialog).to_be_visible()
    keep = dialog.get_by_role("button", name="Keep playing")
    expect(keep).to_be_focused()
    expect(dialog).to_have_accessible_description(
        f"Game 1 is under way. You have 100 HP, the AI 100. The new match: {DEFAULTS}."
    )
    for _ in range(3):  # the page behind the dialog is out of reach
        page.keyboard.press("Tab")
        assert in_dialog(page)
    expect_no_violations(axe, page, "the confirmation")
    shoot(page, "confirm-dialog")

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(start).to_be_focused()
    start.click()
    keep.click()
    expect(dialog).to_be_hidden()
    page.wait_for_timeout(300)
    assert (marks(page), version(page)) == (before, seen)

    start.click()
    dialog.get_by_role("button", name="Start new match").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("dialog", name="New match")).to_be_hidden()
    wait_past(page, seen)
    settle(page)
    assert marks(page).count(".") >= 8


def test_a_fresh_game_starts_over_without_asking(page: Page, server: Any) -> None:
    open_game(page, server.url)
    seen = version(page)
    open_rules(page).get_by_role("button", name="Start match").click()
    expect(confirmation(page)).to_be_hidden()
    wait_past(page, seen)


def test_the_form_shows_what_it_starts_and_offers_it_again_when_the_match_ends(
    page: Page, server: Any, axe: Axe
) -> None:
    open_game(page, server.url)
    expect(page.get_by_text(f"Next match: {DEFAULTS}")).to_be_visible()
    open_rules(page)
    expect(summary(page)).to_have_text(f"Starts: {DEFAULTS}")
    start_match(page, "Adaptive", human_hp=1, ai_hp=1)
    expect(page.get_by_text("Next match: Adaptive · Custom rules · 1 HP each")).to_be_visible()
    open_rules(page)
    expect(summary(page)).to_have_text("Starts: Adaptive · Custom rules · 1 HP each")
    page.keyboard.press("Escape")

    play_game(page)  # at 1 HP each, whatever happens ends the match
    # New match offers the rules just played, not the defaults.
    played = "Adaptive · Custom rules · 1 HP each"
    again = page.get_by_role("button", name="New match")
    expect(again).to_be_visible()
    expect(again).to_have_accessible_description(f"New match: {played}")
    expect(
        page.get_by_role("spinbutton", name="Your starting HP", include_hidden=True)
    ).to_have_value("1")
    expect(page.locator("#settings-summary")).to_have_text(played)  # the dialog's, closed
    expect(page.get_by_text(f"Next match: {played}")).to_be_visible()
    expect(page.get_by_role("button", name="Hint")).to_be_hidden()
    expect_no_violations(axe, page, "the match over")
    again.click()
    expect(board(page)).to_have_attribute("data-status", "playing")
    expect(page.locator("#human-hp")).to_have_text("1")
    expect(page.locator("#ai-hp")).to_have_text("1")


def test_back_to_defaults_is_one_click(page: Page, server: Any) -> None:
    open_game(page, server.url)
    open_rules(page)
    page.get_by_role("radio", name="Hard", exact=True).check()
    page.get_by_role("radio", name="The AI", exact=True).check()
    expect(summary(page)).to_have_text("Starts: Hard · the AI starts")
    page.get_by_role("button", name="Back to defaults").click()
    expect(summary(page)).to_have_text(f"Starts: {DEFAULTS}")
    expect(page.get_by_role("radio", name="Adaptive", exact=True)).to_be_checked()
    expect(page.get_by_role("group", name="Who goes first")).to_be_hidden()


# --- 2. Hints in the player's own moves, remembered ------------------------------------------


# Positions from the engine, X to move: each cell's hint as the page words it.
HINT_EXAMPLES = [
    (
        "XO..X..O.",
        {
            8: ("win now", "win now: three in a row"),
            2: ("win · 2 moves", "win in 2 of your moves"),
        },
    ),
    (
        "XO.......",
        {3: ("win · 3 moves", "win in 3 of your moves"), 2: ("draw", "draw with best play")},
    ),
    (
        "XX.OO....",
        {2: ("win now", "win now: three in a row"), 6: ("loses", "loses against best play")},
    ),
    ("X...O....", {8: ("draw", "draw with best play")}),
]
HINT_WORDS = """async value => {
  const { hintWords } = await import("/static/js/words.js");
  return hintWords(value);
}"""


def expected_hint(value: engine.Value) -> tuple[str, str]:
    """The label and sentence of a hint, worked out from the engine: a win in n plies is
    ceil(n / 2) of the player's own moves, this one included."""
    result = value.result.value
    if result == "draw":
        return "draw", "draw with best play"
    if result == "loss":
        return "loses", "loses against best play"
    mine = math.ceil(value.plies / 2)
    if mine == 1:
        return "win now", "win now: three in a row"
    return f"win · {mine} moves", f"win in {mine} of your moves"


def test_hint_words_count_the_players_own_moves(page: Page, server: Any) -> None:
    open_game(page, server.url)
    for cells, cases in HINT_EXAMPLES:
        moves = engine.analyse(Board(cells)).moves
        for index, words in cases.items():
            assert expected_hint(moves[index]) == words, (cells, index)
            shown = page.evaluate(HINT_WORDS, moves[index].to_dict())
            assert (shown["label"], shown["sentence"]) == words, (cells, index)


def expect_hints_from_the_engine(page: Page) -> None:
    """Every empty cell shows the engine's value of it, in the page's words."""
    shown = hints(page)
    analysis = engine.analyse(Board(marks(page))).moves
    for index, label in shown.items():
        words = expected_hint(analysis[index])
        assert label == words[0], (index, label)
        described = cell(page, index)
        expect(described).to_have_accessible_name(f"{cell_name(index)}, empty")
        expect(described).to_have_accessible_description(f"hint: {words[1]}")


def test_hints_stay_on_after_a_refresh(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    hint = page.get_by_role("button", name="Hint")
    hint.click()
    expect(hint).to_have_attribute("aria-pressed", "true")
    expect_hints_from_the_engine(page)
    play(page, best(page))
    if settle(page) == "human":
        expect_hints_from_the_engine(page)

    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    hint = page.get_by_role("button", name="Hint")
    expect(hint).to_have_attribute("aria-pressed", "true")
    if settle(page) == "human":
        expect_hints_from_the_engine(page)
        expect_no_violations(axe, page, "hints on")
        shoot(page, "hints-on")
    play_game(page, best)
    expect(hint).to_be_hidden()  # nothing to hint once the game is over

    page.get_by_role("button", name="Next game").click()
    expect(hint).to_be_visible()
    hint.click()
    expect(hint).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(page.get_by_role("button", name="Hint")).to_have_attribute("aria-pressed", "false")


# --- 3, 7. The line about the latest move, and the tab's title -----------------------------


def test_the_line_and_the_title_follow_the_latest_move(page: Page, server_factory: Any) -> None:
    slow = server_factory(TICTACTOE_AI_DELAY_MS="800")
    open_game(page, slow.url)
    expect(page).to_have_title(f"Your turn · {TITLE}")
    explain = page.locator("#explain")
    index = first_empty(page)
    page.get_by_role("gridcell", name=f"{cell_name(index)}, empty").click()
    expect(explain).to_have_text(f"You played {cell_name(index)}. The AI is thinking…")
    expect(page).to_have_title(f"AI is thinking… · {TITLE}")

    settle(page)
    expect(page).to_have_title(f"Your turn · {TITLE}")
    # At difficulty 0 the AI moves at random, and no roll is spoken of.
    expect(explain).to_have_text(re.compile(r"^Difficulty 0: the AI moved at random, [abc][123]$"))


def test_the_players_winning_move_is_the_one_described(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Easy")
    page.get_by_role("button", name="Hint").click()
    play_until(page, "You win!", best)
    said = r"^You played [abc][123]: three in a row, you win$"
    expect(page.locator("#explain")).to_have_text(re.compile(said))
    expect(page).to_have_title(f"You win! · {TITLE}")


# --- 4. HP feedback -----------------------------------------------------------------------


def test_a_win_at_full_hp_says_why_nothing_healed(page: Page, server: Any) -> None:
    open_game(page, server.url)
    # No HP lost on a draw, so the player is still at full HP when the win comes.
    open_rules(page)
    page.get_by_role("spinbutton", name="HP you lose on a draw").fill("0")
    start_match(page, "Adaptive")
    page.get_by_role("button", name="Hint").click()
    play_until(page, "You win!", best)
    expect(page.locator("#human-delta")).to_have_text("already at full HP")
    expect(page.locator("#human-hp")).to_have_text("100")


# --- 5. The phone: the tagline and what difficulty means, near the top -------------------


def test_a_phone_shows_what_difficulty_means_near_the_top(
    new_context: Callable[..., BrowserContext], server: Any, axe: Axe
) -> None:
    page = new_context(viewport={"width": 390, "height": 844}).new_page()
    open_game(page, server.url)
    tagline = page.get_by_text(re.compile(r"^Drain the AI.s hit points"))
    expect(tagline).to_be_in_viewport()
    # Board first: the board fills the first screen, and the match card, with what the
    # difficulty means, comes right after it, within a screen and a half of the top;
    # "How it works" is in the same card, a few lines below, and starts within 1.6 screens
    # of the top, as the home's other three things do (test_e2e_layout.py).
    expect(board(page)).to_be_in_viewport(ratio=1)
    difficulty = page.get_by_text(re.compile(r"the AI plays its best move 0% of the time"))
    how = page.get_by_text("How it works", exact=True)
    said, told = difficulty.bounding_box(), how.bounding_box()
    assert said and said["y"] + said["height"] < 1.5 * 844, said
    assert told and 0 < told["y"] - said["y"] < 200, (said, told)
    assert told["y"] + told["height"] <= 1.6 * 844, told
    how.click()
    meaning = page.get_by_text(re.compile(r"^The AI.s difficulty is 100 minus its HP"))
    expect(meaning).to_be_visible()
    expect_no_violations(axe, page, "phone, how it works open")

    start_match(page, "Medium")
    expect(meaning).to_be_hidden()
    expect(
        page.get_by_text(
            re.compile(r"^Medium mode — Picks the move with the best odds\. No hit points")
        )
    ).to_be_visible()


# --- 6. Cut off from the server, and refused moves ------------------------------------------


@pytest.mark.fresh_server  # stops and restarts the server
def test_a_disconnected_board_says_so_and_play_resumes(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    play(page, first_empty(page))
    server.stop()

    expect(page.get_by_text("Not connected: reconnecting…", exact=True)).to_be_visible()
    expect(board(page)).to_have_attribute("aria-disabled", "true")
    expect(page).to_have_title(f"Not connected · {TITLE}")
    target = first_empty(page)
    name = cell_name(target)
    page.get_by_role("gridcell", name=f"{name}, empty").click(force=True)  # it looks inert
    expect(live_notice(page, f"Not connected: {name} was not played")).to_be_visible()
    page.keyboard.press(str(target + 1))  # the number key is refused the same way
    expect(live_notice(page, f"Not connected: {name} was not played")).to_be_visible()
    expect_no_violations(axe, page, "disconnected")
    shoot(page, "disconnected")

    server.start()
    expect(board(page)).to_have_attribute("aria-disabled", "false", timeout=20_000)
    expect(page.get_by_text("Your turn", exact=True)).to_be_visible()
    left = marks(page).count(".")
    play(page, first_empty(page))
    assert marks(page).count(".") < left


def test_a_refused_move_is_the_servers_answer(page: Page, server: Any) -> None:
    # The page judges no move: a move on a taken cell goes to the server, whose refusal
    # is what the player reads.
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(str(frame))))
    open_game(page, server.url)
    play(page, first_empty(page))
    taken = next(i for i, mark in enumerate(marks(page)) if mark != ".")
    seen = version(page)
    assert focused_cell(page) >= 0, "the cell clicked keeps the focus"
    walk_to(page, taken)
    page.keyboard.press("Enter")
    notice = live_notice(page, "That cell is taken")
    expect(notice).to_be_visible()
    expect(notice).to_have_attribute("role", "status")
    assert any('"cell_taken"' in frame for frame in frames), "the server was asked"
    assert version(page) == seen


# --- 7. Who goes first in a fixed mode -------------------------------------------------------


def test_a_player_can_go_second_in_a_fixed_mode(page: Page, server: Any, axe: Axe) -> None:
    open_game(page, server.url)
    open_rules(page)
    who = page.get_by_role("group", name="Who goes first")
    expect(who).to_be_hidden()  # an HP match tosses a coin
    page.get_by_role("radio", name="Hard", exact=True).check()
    expect(who).to_be_visible()
    expect(who.get_by_role("radio", name="Coin toss")).to_be_checked()
    expect_no_violations(axe, page, "who goes first")

    start_match(page, "Hard", first="The AI")
    expect(page.get_by_text("Game 1 · You play O, the AI goes first")).to_be_visible()
    play_game(page)
    dice = page.get_by_role("region", name="Dice")
    expect(
        dice.get_by_role("status").filter(has_text=re.compile("^Dice checked ✓$"))
    ).to_be_visible()
