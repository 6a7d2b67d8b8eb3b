"""End-to-end: the board first. At a phone's and a laptop's size, the whole board, whose
turn it is and the next action are on screen without scrolling at every moment of a
match; after every game its result, both HP bars with their change and the next action
too (and on a laptop the AI's words and "Why this move?"); nothing moves when a note
appears."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import (
    best,
    board,
    expect_no_violations,
    first_empty,
    open_game,
    play,
    play_game,
    play_until,
    settle,
    start_match,
    worst,
)
from browser_rooms import click_cell, in_step, invite_link, mark_of, open_room, play_out, start_room
from playwright.sync_api import BrowserContext, Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

MATCH_OVER = re.compile(r"^(You won the match!|The AI won the match)$")
LAST_GAME = re.compile(r"^Last game: (You win!|AI wins|Draw)$")
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


def expect_on_screen(page: Page, *parts: Locator) -> None:
    """Each part's box lies wholly inside the viewport, the page not scrolled."""
    view = page.viewport_size or {}
    for part in parts:
        expect(part).to_be_visible()
        box = part.bounding_box()
        assert box, part
        inside = (
            box["x"] >= 0
            and box["y"] >= 0
            and box["x"] + box["width"] <= view["width"]
            and box["y"] + box["height"] <= view["height"]
        )
        assert inside, f"{part} at {box} is not inside {view}"


def status(page: Page) -> Locator:
    """Whose turn it is, or the result."""
    return page.locator("#status")


def top(page: Page) -> None:
    """Back to the top of the page, as a fresh load would show it."""
    page.evaluate("window.scrollTo(0, 0)")


def game_end_parts(page: Page, action: str) -> list[Locator]:
    """What a game's end shows at once: the board, the result, both HP bars with the
    change each took (-34: the point of the game), and the next action."""
    return [
        board(page),
        status(page),
        page.get_by_role("meter", name="Your HP"),
        page.get_by_role("meter", name="AI HP"),
        page.locator("#human-delta"),
        page.locator("#ai-delta"),
        page.get_by_role("button", name=action, exact=True),
    ]


def ai_words(page: Page) -> list[Locator]:
    """The AI's words on its latest move, and "Why this move?" when it is offered."""
    why = page.get_by_role("link", name="Why this move?")
    return [page.locator("#explain"), *([why] if why.is_visible() else [])]


@pytest.mark.parametrize("size", SIZES)
def test_board_turn_and_next_action_fit_the_screen(
    page: Page, server: Any, axe: Any, shoot: Any, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    expect_on_screen(page, board(page), status(page))  # fresh page

    start_match(page, "Adaptive", human_hp=1, ai_hp=1)  # one game decides it
    expect_on_screen(page, board(page), status(page))  # the new match's board is in view
    play(page, first_empty(page))
    top(page)
    expect_on_screen(page, board(page), status(page))  # mid-game
    if size == "laptop":  # the AI's words on its move, and the way to ask why
        expect(page.get_by_role("link", name="Why this move?")).to_be_visible()
        expect_on_screen(page, *ai_words(page))
    play_game(page)
    top(page)
    # A finished match has its own headline; the last game's result is the line below.
    expect(page.locator("#status-text")).to_have_text(MATCH_OVER)
    expect(page.locator("#substatus")).to_have_text(LAST_GAME)
    expect_on_screen(page, page.locator("#substatus"), *game_end_parts(page, "New match"))
    if size == "phone":
        expect_no_violations(axe, page, "a finished match")
        shoot(page, "match-over")

    page.get_by_role("button", name="New match").click()
    confirm = page.get_by_role("dialog", name="Abandon this match?")
    if confirm.is_visible():
        confirm.get_by_role("button", name="Start new match").click()
    expect(board(page)).to_have_attribute("data-status", "playing")
    settle(page)
    start_match(page, "Adaptive", human_hp=100, ai_hp=100)
    play_game(page)
    top(page)
    expect_on_screen(page, *game_end_parts(page, "Next game"))  # game over, match going on


# Each end of a game in an HP match that goes on: its result, the HP each side starts
# with, and how the player plays (with the hints on). A win at full HP heals nothing and
# says so, the longest HP badge; at AI HP 1 the AI plays its best 99% of the time, and at
# 25 a draw does not end the match (though three wins may: about 1 run in 150).
ENDS = {
    "win": ("You win!", 100, 100, best),
    "loss": ("AI wins", 100, 1, worst),
    "draw": ("Draw", 100, 25, best),
}


@pytest.mark.parametrize("end", ENDS)
@pytest.mark.parametrize("size", SIZES)
def test_a_game_end_shows_result_hp_and_next_game_on_one_screen(
    page: Page, server: Any, axe: Any, shoot: Any, size: str, end: str
) -> None:
    result, human_hp, ai_hp, choose = ENDS[end]
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=human_hp, ai_hp=ai_hp)
    page.get_by_role("button", name="Hint").click()
    # A few wins in a row can end the match before its draw: then a new one like it.
    play_until(page, result, choose, again=lambda p: start_match(p, "Adaptive", human_hp, ai_hp))
    top(page)
    expect_on_screen(page, *game_end_parts(page, "Next game"))
    if size == "laptop":
        expect_on_screen(page, *ai_words(page))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        expect_no_violations(axe, page, f"{size}, {scheme}: {result}")
    if size == "phone":
        shoot(page, f"game-end-{end}")


BOXES = """() => ['masthead', 'game-meta', 'status', 'board', 'actions', 'scoreboard', 'explain']
  .map(k => document.getElementById(k) ?? document.querySelector('.' + k))
  .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; })"""


@pytest.mark.parametrize("size", SIZES)
def test_nothing_moves_when_a_note_appears(page: Page, server: Any, size: str) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=100, ai_hp=100)
    top(page)
    before = page.evaluate(BOXES)
    play(page, first_empty(page))  # the take-back note appears after the first move
    expect(page.get_by_text("No take-back in an HP match")).to_be_visible()
    top(page)
    assert page.evaluate(BOXES) == before  # tops and bottoms, every one
    play_game(page)  # the result, the HP badges, Next game and the AI's words
    top(page)
    after = page.evaluate(BOXES)
    assert after[:4] == before[:4], "the header, the status or the board moved"
    assert after[6] == before[6], "the AI's words below the actions moved"


# The home's four things and how far down each may start: on a phone, its heading starts
# within 1.6 screens of the top (right after the game and the match card); on a laptop,
# the whole heading is on the first screen, in the column beside the board.
FOUR_THINGS = ("Play the AI", "Play a person", "Your games", "How it works")
PHONE_SCREENS = 1.6


def four_things(page: Page) -> dict[str, Locator]:
    """The headings of the four things the home offers (How it works is a disclosure)."""
    found = {name: page.get_by_role("heading", name=name, exact=True) for name in FOUR_THINGS[:3]}
    return {**found, "How it works": page.get_by_text("How it works", exact=True)}


@pytest.mark.parametrize("size", SIZES)
def test_the_four_things_are_near_the_top(page: Page, server: Any, axe: Any, size: str) -> None:
    view = SIZES[size]
    page.set_viewport_size(view)
    open_game(page, server.url)
    expect_on_screen(page, board(page), status(page))  # still board first
    edge = board(page).bounding_box()
    assert edge
    for name, heading in four_things(page).items():
        box = heading.bounding_box()
        assert box, name
        if size == "phone":
            assert box["y"] <= PHONE_SCREENS * view["height"], (name, box)
        else:
            assert box["y"] + box["height"] <= view["height"], (name, box)
            assert box["x"] >= edge["x"] + edge["width"], (name, box)  # beside the board
    expect_no_violations(axe, page, f"{size}: the home")


# Rooms and replays: the same promise, for two people on two browsers (and a watcher),
# two on one device, and a game stepped through in History or on its share page.


def room_parts(page: Page, action: str | None = None) -> list[Locator]:
    """The board, whose turn it is (or the result), and the next action when one is due."""
    parts = [board(page), status(page)]
    if action:
        parts.append(page.get_by_role("button", name=action, exact=True))
    return parts


@pytest.mark.parametrize("size", SIZES)
def test_a_room_shows_board_turn_and_rematch_on_one_screen(
    new_context: Callable[..., BrowserContext], server: Any, axe: Any, size: str
) -> None:
    def person() -> Page:
        return new_context(viewport=SIZES[size]).new_page()

    host = person()
    link = start_room(host, server.url)
    expect_on_screen(host, board(host), status(host), invite_link(host))  # fresh, waiting
    guest, watcher = person(), person()
    open_room(guest, link)
    open_room(watcher, link)
    in_step(host, guest, watcher)
    x, o = (host, guest) if mark_of(host) == "X" else (guest, host)
    for page in (x, o, watcher):
        expect_on_screen(page, *room_parts(page))  # fresh game
    click_cell(x, 4)
    in_step(x, o, watcher)
    for page in (x, o, watcher):
        expect_on_screen(page, *room_parts(page))  # mid-game
    play_out({x: click_cell, o: click_cell})
    in_step(x, o, watcher)
    for page in (x, o):
        top(page)
        expect_on_screen(page, *room_parts(page, "Rematch"))  # game over
    expect_on_screen(watcher, *room_parts(watcher))
    expect_no_violations(axe, watcher, f"{size}: a spectator after a game")


@pytest.mark.parametrize("size", SIZES)
def test_one_device_shows_board_turn_and_next_game_on_one_screen(
    page: Page, server: Any, axe: Any, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_room(page, server.url + "/local")
    expect_on_screen(page, *room_parts(page))  # fresh
    for target in (4, 0):
        click_cell(page, target)
    expect_on_screen(page, *room_parts(page))  # mid-game
    for target in (1, 2, 7):  # X holds b1, b2 and b3: a win
        click_cell(page, target)
    expect(status(page)).to_have_text(re.compile("wins$"))
    top(page)
    expect_on_screen(page, *room_parts(page, "Next game"))  # game over
    expect_no_violations(axe, page, f"{size}: one device, game over")


def replay_parts(page: Page) -> list[Locator]:
    """The replay's board, the move it shows, and its step buttons."""
    steps = page.get_by_role("group", name="Step through the game")
    return [page.get_by_role("grid", name="Replay board"), page.locator("#replay-move"), steps]


@pytest.mark.parametrize("size", SIZES)
def test_a_replay_shows_board_move_and_steps_on_one_screen(
    page: Page, browser: Any, server: Any, axe: Any, size: str
) -> None:
    page.set_viewport_size(SIZES[size])
    open_game(page, server.url)
    play_game(page)
    page.goto(server.url + "/history")
    rows = page.locator("#games-rows tr")
    rows.first.get_by_role("button", name=re.compile("^Replay the game of")).click()
    expect_on_screen(page, *replay_parts(page))  # opened at the end
    page.get_by_role("button", name="First", exact=True).click()
    expect_on_screen(page, *replay_parts(page))  # the empty board
    page.get_by_role("button", name="Next", exact=True).click()
    expect_on_screen(page, *replay_parts(page))  # a move in
    expect_no_violations(axe, page, f"{size}: a replay in History")

    link = page.locator("#share-link").input_value()
    shared = browser.new_page(viewport=SIZES[size])
    shared.goto(link)
    expect_on_screen(shared, *replay_parts(shared))  # the share page, fresh
    shared.get_by_role("button", name="Previous", exact=True).click()
    expect_on_screen(shared, *replay_parts(shared))
    shared.close()
