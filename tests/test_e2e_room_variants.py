"""End-to-end rooms beyond 3x3: the rules chosen before a room is made, a friend's game
of Notakto on three boards (a dead board greyed, crossed, said and inert) played to the
end in two browsers, four in a row on 4x4 and misère on one device, the keys of each
board, and the board, the turn and the next action on one screen."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import expect_no_violations, focused_cell
from browser_rooms import invite_link, status
from browser_variants import VERSION, boards, choose_and_open, in_step, mark_of, play
from playwright.sync_api import BrowserContext, Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

NewContext = Callable[..., BrowserContext]
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


def expect_on_screen(page: Page, *parts: Locator) -> None:
    """Each part wholly inside the viewport, the page not scrolled (as test_e2e_layout)."""
    view = page.viewport_size or {}
    for part in parts:
        box = part.bounding_box()
        assert box, part
        right, bottom = box["x"] + box["width"], box["y"] + box["height"]
        assert box["x"] >= 0 and box["y"] >= 0, (part, box)
        assert right <= view["width"] and bottom <= view["height"], (part, box, view)


def name_of(cell: int, columns: int, boards_count: int = 1) -> str:
    """A cell's name as the page says it: b2 on one board, 2:b2 on several."""
    per = columns * (columns if boards_count == 1 else 3)
    board, place = divmod(cell, per)
    name = f"{'abcd'[place % columns]}{place // columns + 1}"
    return f"{board + 1}:{name}" if boards_count > 1 else name


KEEP_NOTICES = """() => {
  const notice = document.getElementById("notice");
  window.announced = [];
  new MutationObserver(() => window.announced.push(notice.textContent)).observe(notice, {
    childList: true, characterData: true, subtree: true,
  });
}"""


def test_the_rules_are_chosen_before_a_room_is_made(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    page.goto(server.url + "/")
    page.get_by_role("link", name="Two players, this device").click()
    rules = page.get_by_role("group", name="Rules")
    expect(rules.get_by_role("radio")).to_have_count(7)
    expect(page.get_by_role("radio", name=re.compile("^classic "))).to_be_checked()
    four = page.get_by_role("radio", name="4x4k4 4x4, four in a row wins: a draw with perfect play")
    expect(four).not_to_be_checked()
    expect(rules).to_contain_text("Three boards, both play X")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"the rules before a room ({scheme})")
    shoot(page, "people-rules")


def test_a_friends_game_of_notakto_on_three_boards_to_the_end(
    new_context: NewContext, server: Any, axe: Any, shoot: Any
) -> None:
    host = new_context().new_page()
    choose_and_open(host, server.url, "notakto3", "Play a friend")
    expect(status(host)).to_have_text("Waiting for your friend to open the link")
    guest = new_context().new_page()
    guest.goto(invite_link(host).input_value())
    expect(boards(guest)).to_have_attribute("data-version", VERSION)
    in_step(host, guest)
    expect(guest.locator("#room-rules")).to_contain_text("Rules: notakto3 · Three boards")
    for page in (host, guest):
        expect(page.get_by_role("grid")).to_have_count(3)
        expect(page.get_by_role("grid", name="Board 2")).to_be_visible()
        page.evaluate(KEEP_NOTICES)
    first, second = (host, guest) if mark_of(host) == "first" else (guest, host)
    expect(second.locator("#game-meta")).to_have_text("Game 1 · You play second")
    # Board 1 dies on the third move, board 2 on the sixth, board 3 (the last) on the
    # ninth: the first player kills the last board and loses.
    moves = ["1:a1", "1:b1", "1:c1", "2:a1", "2:b1", "2:c1", "3:a1", "3:b1", "3:c1"]
    for n, name in enumerate(moves):
        mover = first if n % 2 == 0 else second
        expect(status(mover)).to_have_text(re.compile(r"^Your turn \(you play (first|second)\)$"))
        play(mover, name)
        in_step(first, second)
        if n == 2:
            for page in (first, second):
                dead = page.get_by_role("grid", name="Board 1 is dead")
                expect(dead).to_have_attribute("data-dead", "true")
                expect(page.locator(".board-caption").first).to_have_text("Board 1 is dead")
                # Its empty cells are inert and say where they are.
                empty = page.get_by_role("button", name="1:a2, empty, on a dead board")
                expect(empty).to_have_attribute("aria-disabled", "true")
            announced = second.evaluate("window.announced")
            assert "Board 1 is dead" in announced, announced
            expect_no_violations(axe, second, "notakto3: a dead board")
            shoot(second, "room-notakto3-dead-board")
    expect(status(second)).to_have_text("You win!")
    expect(status(first)).to_have_text("Your friend wins")
    for page in (first, second):
        expect(page.get_by_role("grid", name=re.compile(r"^Board \d is dead$"))).to_have_count(3)
    expect(second.locator("#score-wins")).to_have_text("You 1 \N{EN DASH} 0 Friend")
    expect_no_violations(axe, first, "notakto3: the game over")
    shoot(first, "room-notakto3-over")


def test_a_dead_boards_cell_cannot_be_played(new_context: NewContext, server: Any) -> None:
    page = new_context().new_page()
    choose_and_open(page, server.url, "notakto2", "Two players, this device")
    for name in ("1:a1", "1:b1", "1:c1"):
        play(page, name)
    version = boards(page).get_attribute("data-version")
    dead_cell = page.get_by_role("button", name="1:a3, empty, on a dead board")
    dead_cell.click(force=True)  # nothing is sent: the next move is still O's
    dead_cell.press("Enter")
    play(page, "2:b2")
    assert int(boards(page).get_attribute("data-version") or 0) == int(version or 0) + 1
    expect(dead_cell).to_have_accessible_name("1:a3, empty, on a dead board")
    expect(page.locator("#notice")).not_to_have_text("1:a3 is on a dead board")


def test_four_in_a_row_on_one_device_to_the_end_by_keys(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    choose_and_open(page, server.url, "4x4k4", "Two players, this device")
    expect(page).to_have_url(server.url + "/local?variant=4x4k4")
    grid = page.get_by_role("grid", name="Board")
    expect(grid.get_by_role("gridcell")).to_have_count(16)
    expect(page.locator("#game-meta")).to_have_text("Game 1 · Player 1 is X, Player 2 is O")
    # The keys: across four columns and down four rows; no number key plays a cell.
    page.get_by_role("button", name="a1, empty", exact=True).focus()
    page.keyboard.press("End")
    assert focused_cell(page) == 3
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert focused_cell(page) == 15
    page.keyboard.press("5")
    expect(page.get_by_role("button", name="b2, empty", exact=True)).to_be_visible()
    page.keyboard.press("Control+Home")
    assert focused_cell(page) == 0
    # X takes row 1 by the keys, O plays row 2 beside it: four in a row wins.
    for n, name in enumerate(["a1", "a2", "b1", "b2", "c1", "c2", "d1"]):
        if n % 2 == 0:
            target = "abcd".index(name[0])
            page.get_by_role("button", name=re.compile(r"^a1, ")).focus()
            for _ in range(target):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            expect(page.get_by_role("button", name=f"{name}, X", exact=True)).to_be_visible()
        else:
            play(page, name)
        if n == 2:
            expect_no_violations(axe, page, "4x4k4: mid-game")
            shoot(page, "room-4x4k4-mid-game")
    expect(status(page)).to_have_text("Player 1 (X) wins")
    expect(page.get_by_role("definition").first).to_have_text("1")
    expect(grid.locator(".is-win")).to_have_count(4)
    expect_no_violations(axe, page, "4x4k4: game over")
    shoot(page, "room-4x4k4-over")


def test_misere_on_one_device_three_in_a_row_loses(page: Page, server: Any, axe: Any) -> None:
    choose_and_open(page, server.url, "misere", "Two players, this device")
    expect(page.locator("#room-rules")).to_contain_text("whoever makes three in a row loses")
    # Keys 1-9 still play a single 3x3 board: 1 is a1.
    page.get_by_role("button", name="a1, empty", exact=True).focus()
    page.keyboard.press("1")
    expect(page.get_by_role("button", name="a1, X", exact=True)).to_be_visible()
    for name in ("a2", "b1", "b2", "c1"):  # X makes a1 b1 c1: three in a row, and loses
        play(page, name)
    expect(status(page)).to_have_text("Player 2 (O) wins")
    expect_no_violations(axe, page, "misère: game over")


def test_a_stored_room_keeps_its_rules_and_one_device_changes_them(page: Page, server: Any) -> None:
    choose_and_open(page, server.url, "4x4k3", "Two players, this device")
    play(page, "a1")
    page.goto(server.url + "/local")  # no rules asked: the room's own
    expect(boards(page)).to_have_attribute("data-version", VERSION)
    expect(page.locator("#room-rules")).to_contain_text("Rules: 4x4k3 · ")
    expect(page.get_by_role("button", name="a1, X", exact=True)).to_be_visible()
    choose_and_open(page, server.url, "classic", "Two players, this device")
    expect(page.get_by_role("gridcell")).to_have_count(9)
    expect(page.get_by_role("button", name="a1, empty", exact=True)).to_be_visible()


def test_unknown_rules_are_refused_clearly(page: Page, server: Any) -> None:
    answer = page.goto(server.url + "/local?variant=5x5")
    assert answer is not None and answer.status == 400
    expect(page.locator(".missing-reason")).to_contain_text("no variant is called '5x5'")


@pytest.mark.parametrize("size", SIZES)
def test_several_boards_and_4x4_fit_the_screen(
    new_context: NewContext, server: Any, size: str
) -> None:
    page = new_context(viewport=SIZES[size]).new_page()
    for variant in ("notakto3", "4x4k4"):
        choose_and_open(page, server.url, variant, "Two players, this device")
        page.evaluate("window.scrollTo(0, 0)")
        expect_on_screen(page, boards(page), page.locator("#status"))
        name = "1:a1" if variant == "notakto3" else "a1"
        play(page, name)
        expect_on_screen(page, boards(page), page.locator("#status"))
    for name in ("a2", "b1", "b2", "c1", "c2", "d1"):
        play(page, name)
    page.evaluate("window.scrollTo(0, 0)")
    next_game = page.get_by_role("button", name="Next game", exact=True)
    expect_on_screen(page, boards(page), page.locator("#status"), next_game)


def test_arrow_keys_go_on_from_board_to_board(page: Page, server: Any, axe: Any) -> None:
    choose_and_open(page, server.url, "notakto3", "Two players, this device")
    expect(page.locator("#game-meta")).to_have_text("Game 1 · Player 1 moves first, both play X")
    expect(status(page)).to_have_text("Player 1 to move")
    page.get_by_role("button", name="1:c1, empty", exact=True).focus()
    for key, cell in (
        ("ArrowRight", 9),  # past board 1's right edge: board 2's a1
        ("ArrowLeft", 2),  # and back
        ("ArrowDown", 5),
        ("ArrowDown", 8),
        ("ArrowDown", 11),  # past board 1's bottom: board 2, same column, top row
        ("Control+End", 26),
        ("Control+Home", 0),
    ):
        page.keyboard.press(key)
        assert focused_cell(page) == cell, key
    page.keyboard.press("1")  # no number keys on 27 cells
    expect(page.get_by_role("button", name="1:a1, empty", exact=True)).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="1:a1, X", exact=True)).to_be_visible()
    expect(status(page)).to_have_text("Player 2 to move")
    expect_no_violations(axe, page, "notakto3 on one device")
