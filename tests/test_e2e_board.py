"""End-to-end: one board on every page. The AI page, practice, a room and the replay all
draw it through the same module: the same grid, keys, roving tab stop, winning line and
hint and review marks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import (
    HINT,
    Axe,
    HeldAcks,
    best,
    board,
    cell,
    cell_name,
    expect_no_violations,
    expect_one_tab_stop,
    focused_cell,
    marks,
    next_game,
    open_game,
    play_until,
    settle,
    start_match,
)
from browser_history import open_newest_replay, play_with_a_mistake
from browser_rooms import open_room, status
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def grid(page: Page, name: str = "Board") -> Locator:
    """A board by its accessible name."""
    return page.get_by_role("grid", name=name)


def the_tab_stop(page: Page) -> Locator:
    return page.locator('[data-cell][tabindex="0"]')


def expect_keys_move_the_focus(page: Page) -> None:
    """Arrows move by one and stop at the edges, Home and End go to the row's ends,
    Ctrl+Home and Ctrl+End to the corners; the tab stop follows the focus."""
    the_tab_stop(page).focus()
    start = focused_cell(page)
    assert start >= 0
    for key, to in (
        ("Control+Home", 0),
        ("ArrowLeft", 0),
        ("ArrowUp", 0),
        ("ArrowRight", 1),
        ("ArrowDown", 4),
        ("End", 5),
        ("ArrowRight", 5),
        ("Home", 3),
        ("Control+End", 8),
        ("ArrowDown", 8),
    ):
        page.keyboard.press(key)
        assert focused_cell(page) == to, (key, focused_cell(page), to)
        expect_one_tab_stop(page)
        expect(the_tab_stop(page)).to_have_attribute("data-cell", str(to))
    page.keyboard.press("Control+Home")


def expect_winning_line(page: Page, name: str = "Board") -> tuple[int, ...]:
    """The struck line is on, and its three cells (and only they) are marked as winning,
    all with the same mark."""
    expect(grid(page, name).locator("svg.strike")).to_have_class(re.compile(r"\bis-on\b"))
    won = grid(page, name).locator(".cell.is-win")
    expect(won).to_have_count(3)
    cells = tuple(
        int(index)
        for index in grid(page, name)
        .locator(".board-cell")
        .evaluate_all("cells => cells.flatMap((c, i) => c.querySelector('.is-win') ? [i] : [])")
    )
    assert cells in LINES, cells
    names = (
        grid(page, name)
        .get_by_role("gridcell")
        .evaluate_all(
            "cells => cells.map(c => c.querySelector('[aria-label]')?.getAttribute('aria-label')"
            " ?? c.getAttribute('aria-label'))"
        )
    )
    assert len({names[i].split(", ")[1] for i in cells}) == 1, names
    return cells


def test_the_ai_page_board_by_keys_with_hints_and_its_winning_line(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    start_match(page, "Easy", first="Me")
    expect(grid(page)).to_have_attribute("aria-describedby", "board-help")
    expect(page.locator("#board-help")).to_have_text(
        "Arrow keys move between cells, Enter or Space plays the focused cell,"
        " keys 1 to 9 play a cell in reading order. Typing a cell's name, such as b2, goes to it."
    )
    expect_one_tab_stop(page)
    expect_keys_move_the_focus(page)

    # Enter plays the focused cell, Space too, and a number key plays its cell.
    expect(cell(page, 0)).to_have_accessible_name("a1, empty")
    page.keyboard.press("Enter")
    expect(cell(page, 0)).to_have_accessible_name(re.compile(r"^a1, [XO]$"))
    settle(page)
    free = [i for i, mark in enumerate(marks(page)) if mark == "."]
    cell(page, free[0]).focus()
    page.keyboard.press(" ")
    expect(cell(page, free[0])).not_to_have_accessible_name(f"{cell_name(free[0])}, empty")
    if settle(page) == "human":
        target = marks(page).index(".")
        page.keyboard.press(str(target + 1))
        expect(cell(page, target)).not_to_have_accessible_name(f"{cell_name(target)}, empty")

    # Won with the hints' best moves: the winning line is struck.
    if settle(page) == "none":
        next_game(page)
    page.get_by_role("button", name="Hint").click()
    play_until(page, "You win!", best)
    expect_winning_line(page)
    expect_no_violations(axe, page, "the AI page, a won game's line")
    shoot(page, "board-ai-won")


def test_hints_mark_the_empty_cells_of_the_ai_page(page: Page, server: Any, axe: Axe) -> None:
    open_game(page, server.url)
    start_match(page, "Easy", first="Me")
    page.get_by_role("button", name="Hint").click()
    empty = page.get_by_role("gridcell", name=re.compile(r", empty$"))
    expect(empty.filter(has_text=HINT)).to_have_count(9)
    expect(cell(page, 4)).to_have_accessible_description(re.compile(r"^hint: "))
    expect(grid(page)).to_have_class(re.compile(r"\bhas-hints\b"))
    expect_no_violations(axe, page, "the AI page with hints")
    page.get_by_role("button", name="Hint").click()
    expect(empty.filter(has_text=HINT)).to_have_count(0)


def expect_turn_of(page: Page, mark: str) -> None:
    """Waits until the server's state says it is ``mark``'s move and the board takes a
    move again: a key pressed before that would be refused as too early."""
    expect(status(page)).to_have_text(f"{mark} to move")
    expect(page.locator("#board .cell[aria-disabled='false']").first).to_be_attached()


def test_a_room_board_by_mouse_and_keys_and_its_winning_line(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_room(page, server.url + "/local")
    expect_one_tab_stop(page)
    expect_keys_move_the_focus(page)
    # X a1 by Enter, O a2 by Space, X b1 by its number key, O b2 by a click, X c1 by key.
    page.keyboard.press("Enter")
    expect(cell(page, 0)).to_have_accessible_name("a1, X")
    expect_turn_of(page, "O")
    page.keyboard.press("ArrowDown")
    page.keyboard.press(" ")
    expect(cell(page, 3)).to_have_accessible_name("a2, O")
    expect_turn_of(page, "X")
    page.get_by_role("button", name="Hint").click()
    empty = page.get_by_role("gridcell", name=re.compile(r", empty$"))
    expect(empty.filter(has_text=HINT)).to_have_count(7)
    cell(page, 3).focus()  # back in the board from the Hint button
    page.keyboard.press("2")
    expect(cell(page, 1)).to_have_accessible_name("b1, X")
    expect_turn_of(page, "O")
    page.get_by_role("gridcell", name="b2, empty", exact=True).click()
    expect(cell(page, 4)).to_have_accessible_name("b2, O")
    expect_turn_of(page, "X")
    cell(page, 4).focus()
    page.keyboard.press("3")
    expect(cell(page, 2)).to_have_accessible_name("c1, X")
    expect(status(page)).to_have_text("Player 1 (X) wins")
    assert expect_winning_line(page) == (0, 1, 2)
    expect_no_violations(axe, page, "a room, a won game's line")
    shoot(page, "board-room-won")


def test_the_ai_page_takes_a_key_on_the_reply_shown_before_its_ack(page: Page, server: Any) -> None:
    # With no AI pause the AI's reply is pushed before the move's ack: the board shows
    # the player's turn while the ack is still on its way, and takes a move there.
    held = HeldAcks(page)
    open_game(page, server.url)
    the_tab_stop(page).focus()
    first = marks(page).index(".")
    page.keyboard.press(str(first + 1))
    expect(cell(page, first)).not_to_have_accessible_name(f"{cell_name(first)}, empty")
    assert settle(page) == "human", "two moves end no game"
    second = marks(page).index(".")
    page.keyboard.press(str(second + 1))
    expect(cell(page, second)).not_to_have_accessible_name(f"{cell_name(second)}, empty")
    # The second move was shown past the first one's ack (frames keep their order).
    assert held.release() >= 1
    assert len(held.moves) == 2, "one move a key"
    settle(page)


def test_one_device_takes_a_click_on_the_next_turn_shown_before_its_ack(
    page: Page, server: Any
) -> None:
    # On one device the move's own snapshot is the next player's turn, pushed before the
    # move's ack: the board takes the next click as soon as it shows that turn.
    held = HeldAcks(page)
    open_room(page, server.url + "/local")
    page.get_by_role("gridcell", name="a1, empty", exact=True).click()
    expect(cell(page, 0)).to_have_accessible_name("a1, X")
    expect_turn_of(page, "O")
    page.get_by_role("gridcell", name="b1, empty", exact=True).click()
    expect(cell(page, 1)).to_have_accessible_name("b1, O")
    expect_turn_of(page, "X")
    assert held.release() >= 1  # the first move's ack, at least, came after
    assert len(held.moves) == 2, "one move a click"


def test_the_replay_and_practice_draw_the_same_board(
    page: Page, server: Any, axe: Axe, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible")
    slipped = 0
    for _ in range(4):  # the AI may open so that the first position leaves no slip
        slipped = play_with_a_mistake(page)
        if slipped:
            break
        page.get_by_role("button", name="Next game").click()
        expect(board(page)).to_have_attribute("data-status", "playing")
    assert slipped, "no position offered a mistake"
    result = page.locator("#board").get_attribute("data-status")

    # The replay: a read-only grid of the same cells, no buttons, no tab stop of its own.
    open_newest_replay(page, server.url)
    replay = grid(page, "Replay board")
    expect(replay).to_have_attribute("aria-readonly", "true")
    expect(replay.get_by_role("gridcell")).to_have_count(9)
    expect(replay.get_by_role("button")).to_have_count(0)
    expect(replay.locator(".mark svg")).to_have_count(len(marks_of_replay(page)))
    if result in ("human_won", "ai_won"):  # the game ended on a line: it is struck
        expect_winning_line(page, "Replay board")
    page.keyboard.press("Home")
    expect(replay.locator("svg.strike")).not_to_have_class(re.compile(r"\bis-on\b"))
    for _ in range(slipped):
        page.keyboard.press("ArrowRight")
    ringed = replay.locator('[data-best="true"]')
    expect(ringed.first).to_be_visible()
    expect(ringed.first).to_have_accessible_name(re.compile(r", empty, the better move$"))
    expect_no_violations(axe, page, "the replay's board")

    # Practice: the AI page's board, played by a number key.
    page.get_by_role("button", name="Retry from your first mistake").click()
    expect(page).to_have_url(server.url + "/practice")
    settle(page)
    expect_one_tab_stop(page)
    expect_keys_move_the_focus(page)
    target = marks(page).index(".")
    page.keyboard.press(str(target + 1))
    expect(cell(page, target)).not_to_have_accessible_name(f"{cell_name(target)}, empty")
    expect(page.locator("#practice-feedback")).not_to_have_text("")
    expect_no_violations(axe, page, "practice, one move played")
    shoot(page, "board-practice")


def marks_of_replay(page: Page) -> list[str]:
    """The marks on the replay's board as shown (its last move)."""
    labels = (
        grid(page, "Replay board")
        .get_by_role("gridcell")
        .evaluate_all("cells => cells.map(c => c.getAttribute('aria-label'))")
    )
    return [label for label in labels if re.search(r", [XO]", label)]
