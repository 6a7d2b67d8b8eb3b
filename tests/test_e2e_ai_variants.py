"""End-to-end: the match against the AI beyond 3x3. The rules dialog chooses the rule set
(each with its value and meaning in a line); a whole HP match of four in a row on 4x4 is
played to its end, with the keys and typed cell names; Notakto's boards, a dead one said;
the board, the turn line, the HP and the next action on one screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import expect_no_violations, open_rules, press_start
from browser_ai_variants import board, choose, click_cell, empty_names, settle
from browser_history import open_newest_replay
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
FOUR = "4x4k4 4x4, four in a row wins: a draw with perfect play"
MATCH_OVER = re.compile(r"won the match")
NAMES = ("misere", "4x4k3", "4x4k4", "notakto1", "notakto2", "notakto3")
GAMES = 12  # a match from 10 HP each ends long before this many games


# Everything said in the notice area from now on (a dead board, a refusal), kept.
KEEP_NOTICES = (
    "() => { window.said = []; new MutationObserver(() => window.said.push("
    "document.getElementById('notice').textContent)).observe("
    "document.getElementById('notice'), {childList: true, subtree: true,"
    " characterData: true}); }"
)
DICE_CHECKED = re.compile("^Dice checked ✓")


def expect_on_screen(page: Page, *parts: Locator) -> None:
    """At the top of the page, each part wholly inside the viewport."""
    page.evaluate("window.scrollTo(0, 0)")
    view = page.viewport_size or {}
    for part in parts:
        expect(part).to_be_visible()
        box = part.bounding_box()
        assert box, part
        assert box["x"] >= 0 and box["y"] >= 0, (part, box)
        assert box["x"] + box["width"] <= view["width"], (part, box, view)
        assert box["y"] + box["height"] <= view["height"], (part, box, view)


def in_view_at_each_size(page: Page, *parts: Locator) -> None:
    """The board, the turn line, both HP bars and ``parts`` on one screen of a phone and
    of a laptop."""
    for size in SIZES.values():
        page.set_viewport_size(size)
        page.wait_for_timeout(100)  # the layout of the new size, not a wait for the server
        hp = [page.get_by_role("meter", name=name) for name in ("Your HP", "AI HP")]
        expect_on_screen(page, board(page), page.locator("#status"), *hp, *parts)


def test_the_dialog_says_each_rule_set_in_a_line(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    # The server opened every variant's book before its workers started, and said so.
    logged = server.log.read_text()
    assert all(f"loaded the {name} opening book from cache" in logged for name in NAMES)
    page.goto(server.url)
    settle(page)
    dialog = open_rules(page)
    game = dialog.get_by_role("group", name="Game")
    expect(game.get_by_role("radio")).to_have_count(7)
    expect(game.get_by_role("radio", name=re.compile("^classic "))).to_be_checked()
    expect(game.get_by_role("radio", name=FOUR)).not_to_be_checked()
    expect(game).to_contain_text("Three boards, both play X")
    target = dialog.get_by_role("radio", name="The chance of winning I ask for")
    # Every variant's skill players have exact odds: a chance can be asked for on each.
    for name in ("notakto3", *NAMES):
        game.get_by_role("radio", name=re.compile(f"^{name} ")).check()
        expect(target).to_be_enabled()
    game.get_by_role("radio", name=FOUR).check()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"the rules dialog on 4x4k4 ({scheme})")
    shoot(page, "ai-rules-variant")


def test_a_chance_of_winning_asked_for_tunes_the_rules_of_4x4(page: Page, server: Any) -> None:
    page.goto(server.url)
    settle(page)
    dialog = open_rules(page)
    dialog.get_by_role("group", name="Game").get_by_role("radio", name=FOUR).check()
    dialog.get_by_role("radio", name="The chance of winning I ask for").check()
    dialog.get_by_role("spinbutton", name=re.compile("^I want to win about")).fill("60")
    expect(dialog.locator("#target-preview")).to_have_attribute("data-state", "shown")
    expect(dialog.locator("#settings-summary")).to_contain_text("4x4k4 · Adaptive · Win about 60%")
    press_start(page)
    expect(page.locator("#game-meta")).to_contain_text("Game 1 · ")
    expect(page.get_by_role("gridcell")).to_have_count(16)
    expect(page.locator("#rules-next")).to_contain_text("4x4k4 · Adaptive")


def test_a_whole_hp_match_of_four_in_a_row_on_4x4(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    page.goto(server.url)
    settle(page)
    choose(page, "4x4k4", "Adaptive", **{"Your starting HP": "10", "The AI's starting HP": "10"})
    expect(page.get_by_role("grid", name="Board")).to_be_visible()
    expect(page.get_by_role("gridcell")).to_have_count(16)
    expect(page.locator("#rules-next")).to_contain_text("4x4k4 · Adaptive")
    page.evaluate(KEEP_NOTICES)
    # The hints come from the server's solver of 4x4k4: a value on every empty cell.
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("#board .hint-label:not(:empty)")).to_have_count(len(empty_names(page)))
    page.get_by_role("button", name="Hint").click()
    # The keys: a typed name takes the focus to its cell, Enter plays it.
    page.get_by_role("button", name=re.compile(r"^[a-d][1-4], ")).first.focus()
    if board(page).get_attribute("data-turn") == "human":
        target = empty_names(page)[-1]
        page.keyboard.type(target)
        expect(page.locator(":focus")).to_have_attribute("aria-label", f"{target}, empty")
        page.keyboard.press("Enter")
        played = page.get_by_role("button", name=re.compile(f"^{target}, [XO]"))
        expect(played).to_have_count(1)
        settle(page)
    in_view_at_each_size(page)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"a 4x4 match under way ({scheme})")
    shoot(page, "ai-4x4k4-playing")
    for _ in range(GAMES):
        while board(page).get_attribute("data-turn") == "human":
            click_cell(page, empty_names(page)[0])
        # The page checks each finished game's dice, on the 4x4 board.
        expect(page.locator("#dice-check")).to_have_text(DICE_CHECKED)
        if MATCH_OVER.search(page.locator("#status-text").inner_text()):
            break
        in_view_at_each_size(page, page.get_by_role("button", name="Next game"))
        page.get_by_role("button", name="Next game").click()
        expect(page.locator("#status-text")).to_have_text(re.compile("Your turn|thinking"))
        settle(page)
    expect(page.locator("#status-text")).to_have_text(MATCH_OVER)
    expect(page.get_by_role("gridcell")).to_have_count(16)
    assert page.evaluate("window.said.filter(Boolean)") == []  # one click, one move: no refusal
    in_view_at_each_size(page, page.get_by_role("button", name="New match", exact=True))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"a 4x4 match over ({scheme})")
    shoot(page, "ai-4x4k4-over")


def test_notakto_against_the_ai_says_a_dead_board(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    page.goto(server.url)
    settle(page)
    choose(page, "notakto2", "Impossible")
    expect(page.get_by_role("grid")).to_have_count(2)
    expect(page.locator("#game-meta")).to_have_text("Game 1 · Both place X, you go first")
    # A name typed on the boards, its board's number first, takes the focus there.
    page.get_by_role("button", name="1:a1, empty", exact=True).focus()
    page.keyboard.type("2:c3")
    expect(page.locator(":focus")).to_have_attribute("aria-label", "2:c3, empty")
    page.evaluate(KEEP_NOTICES)
    # Three in a row on board 1, by the player or the AI, kills it.
    for _ in range(5):
        names = [name for name in empty_names(page) if name.startswith("1:")]
        if page.locator('[data-dead="true"]').count() or not names:
            break
        click_cell(page, names[0])
    expect(page.get_by_role("grid", name="Board 1 is dead")).to_be_visible()
    assert "Board 1 is dead" in page.evaluate("window.said.join(' ')")
    assert not [name for name in empty_names(page) if name.startswith("1:")]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"notakto with a dead board ({scheme})")
    shoot(page, "ai-notakto2-dead")
    for _ in range(9):
        if board(page).get_attribute("data-turn") != "human":
            break
        click_cell(page, empty_names(page)[0])
    expect(page.locator("#explain")).to_contain_text("killed the last board")
    expect(page.locator("#dice-check")).to_have_text(DICE_CHECKED)


def test_practice_from_a_mistake_on_4x4(page: Page, server: Any, axe: Any) -> None:
    page.goto(server.url)
    settle(page)
    # The first player wins 4x4k3 with perfect play: the first empty cell each time
    # throws that away against the Impossible AI, which then wins.
    choose(page, "4x4k3", "Impossible")
    while board(page).get_attribute("data-turn") == "human":
        click_cell(page, empty_names(page)[0])
    expect(board(page)).to_have_attribute("data-status", "ai_won")
    open_newest_replay(page, server.url)
    # The AI's reply, the game's second move, offers the lab at the position before it.
    page.get_by_role("button", name="First", exact=True).click()
    for _ in range(2):
        page.get_by_role("button", name="Next", exact=True).click()
    lab = page.locator("#replay-lab")
    expect(lab).to_be_visible()
    expect(lab).to_have_attribute("href", re.compile(r"board=X\.{15}&variant=4x4k3&played="))
    page.get_by_role("button", name="Retry from your first mistake").click()
    expect(page).to_have_url(server.url + "/practice")
    settle(page)
    expect(page.get_by_role("gridcell")).to_have_count(16)
    expect(page.locator("#practice-lesson")).to_have_text(
        re.compile(
            r"^Here you played a (mistake|blunder): [a-d][1-4] loses in \d+\. Try another move\.$"
        )
    )
    expect_no_violations(axe, page, "practice from a 4x4 mistake")


def test_why_this_move_on_4x4_opens_the_lab_at_that_position(page: Page, server: Any) -> None:
    page.goto(server.url)
    settle(page)
    choose(page, "4x4k4", "Impossible")
    click_cell(page, "a1")
    why = page.get_by_role("link", name="Why this move?")
    address = why.get_attribute("href") or ""
    assert "variant=4x4k4" in address and "board=X..............." in address, address
    why.click()
    grid = page.get_by_role("grid", name="Position to search")
    expect(grid.get_by_role("button")).to_have_count(16)
    expect(grid.get_by_role("button", name=re.compile("^a1, X"))).to_have_count(1)
    said = page.get_by_role("region", name="Why this move?").locator("p")
    expect(said).to_have_text(re.compile(r"^The AI played [a-d][1-4]"))
